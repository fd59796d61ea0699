// The typed filter tree (docs/api.md §6) that parse.ts builds from JSON. Every later step (evaluate,
// plan, indexes) works on this tree, never on raw JSON.
import type { FieldCondition, RangeBounds } from '../payload/conditions.js';
import type { PayloadPath } from '../payload/path.js';

export interface Filter {
  must: Condition[];
  /** At least one must hold when the list is not empty. */
  should: Condition[];
  mustNot: Condition[];
  minShould: { conditions: Condition[]; minCount: number } | undefined;
}

export type { FieldCondition, IntegerValue, RangeBounds, TextMode } from '../payload/conditions.js';

/** A condition: one on a payload field (payload/conditions.ts, what indexes answer), or a structural one. */
export type Condition =
  | FieldCondition
  | { kind: 'group'; filter: Filter }
  /** Canonical id keys (decimal integer or lowercase hyphenated UUID). */
  | { kind: 'has_id'; ids: Set<string> }
  | { kind: 'has_vector'; name: string }
  /** The point's id hashes into slice `index` of `total` (filter/slice.ts). */
  | { kind: 'slice'; total: number; index: number }
  | { kind: 'nested'; key: PayloadPath; filter: Filter };

export function isFieldCondition(condition: Condition): condition is FieldCondition {
  return condition.kind !== 'group' && condition.kind !== 'has_id' && condition.kind !== 'has_vector' && condition.kind !== 'slice' && condition.kind !== 'nested';
}

export function inRange(value: number, bounds: RangeBounds): boolean {
  if (bounds.gt !== undefined && !(value > bounds.gt)) return false;
  if (bounds.gte !== undefined && !(value >= bounds.gte)) return false;
  if (bounds.lt !== undefined && !(value < bounds.lt)) return false;
  if (bounds.lte !== undefined && !(value <= bounds.lte)) return false;
  return true;
}

export const emptyFilter: Filter = Object.freeze({ must: [], should: [], mustNot: [], minShould: undefined }) as Filter;
