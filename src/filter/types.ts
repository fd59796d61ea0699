// The typed filter tree (API.md §6) that parse.ts builds from JSON. Every later step (evaluate,
// plan, indexes) works on this tree, never on raw JSON.
import type { GeoBoundingBox, GeoPolygon, GeoRadius } from '../payload/geo.js';
import type { PayloadPath } from '../payload/path.js';

export interface Filter {
  must: Condition[];
  /** At least one must hold when the list is not empty. */
  should: Condition[];
  mustNot: Condition[];
  minShould: { conditions: Condition[]; minCount: number } | undefined;
}

/** Integers as the payload holds them: a number, or a bigint beyond 2^53. */
export type IntegerValue = number | bigint;

export interface RangeBounds {
  gt?: number;
  gte?: number;
  lt?: number;
  lte?: number;
}

export type TextMode = 'text' | 'text_any' | 'phrase';

export type Condition =
  | { kind: 'group'; filter: Filter }
  | { kind: 'match_value'; key: PayloadPath; value: string | IntegerValue | boolean }
  | { kind: 'match_any'; key: PayloadPath; values: string[] | IntegerValue[] }
  | { kind: 'match_except'; key: PayloadPath; values: string[] | IntegerValue[] }
  | { kind: 'match_text'; key: PayloadPath; mode: TextMode; text: string }
  | { kind: 'match_prefix'; key: PayloadPath; prefix: string }
  /** Numeric range; payload numbers (and bigints, compared as numbers) only. */
  | { kind: 'range'; key: PayloadPath; bounds: RangeBounds }
  /** Datetime range; bounds in epoch milliseconds, payload RFC 3339 strings only. */
  | { kind: 'datetime_range'; key: PayloadPath; bounds: RangeBounds }
  | { kind: 'geo_bounding_box'; key: PayloadPath; box: GeoBoundingBox }
  | { kind: 'geo_radius'; key: PayloadPath; circle: GeoRadius }
  | { kind: 'geo_polygon'; key: PayloadPath; polygon: GeoPolygon }
  | { kind: 'values_count'; key: PayloadPath; bounds: RangeBounds }
  /** `negated`: the `{"key", "is_empty": false}` form. */
  | { kind: 'is_empty'; key: PayloadPath; negated: boolean }
  | { kind: 'is_null'; key: PayloadPath; negated: boolean }
  /** Canonical id keys (decimal integer or lowercase hyphenated UUID). */
  | { kind: 'has_id'; ids: Set<string> }
  | { kind: 'has_vector'; name: string }
  | { kind: 'nested'; key: PayloadPath; filter: Filter };

export type FieldCondition = Exclude<Condition, { kind: 'group' | 'has_id' | 'has_vector' | 'nested' }>;

export function isFieldCondition(condition: Condition): condition is FieldCondition {
  return condition.kind !== 'group' && condition.kind !== 'has_id' && condition.kind !== 'has_vector' && condition.kind !== 'nested';
}

export function inRange(value: number, bounds: RangeBounds): boolean {
  if (bounds.gt !== undefined && !(value > bounds.gt)) return false;
  if (bounds.gte !== undefined && !(value >= bounds.gte)) return false;
  if (bounds.lt !== undefined && !(value < bounds.lt)) return false;
  if (bounds.lte !== undefined && !(value <= bounds.lte)) return false;
  return true;
}

export const emptyFilter: Filter = Object.freeze({ must: [], should: [], mustNot: [], minShould: undefined }) as Filter;
