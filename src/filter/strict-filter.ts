// What strict mode needs to know about a parsed filter (docs/api.md §4.5): how many conditions it
// holds, its largest match list, and which of its field conditions no payload index answers. The
// limits themselves are checked by the collection's StrictMode (src/engine/strict-mode.ts).
import type { FilterSummary } from '../engine/strict-mode.js';
import type { FieldIndexes } from '../payload/indexes/field-indexes.js';
import { formatPath, type PayloadPath } from '../payload/path.js';
import { isFieldCondition, type Condition, type FieldCondition, type Filter } from './types.js';

type Segments = PayloadPath['segments'];

/** The index types that could answer `condition`, or undefined when it needs none. */
function answeringTypes(condition: FieldCondition): readonly string[] | undefined {
  switch (condition.kind) {
    case 'match_value':
      return typeof condition.value === 'string' ? ['keyword', 'uuid'] : typeof condition.value === 'boolean' ? ['bool'] : ['integer'];
    case 'match_any':
    case 'match_except':
      return condition.values.some((value) => typeof value === 'string') ? ['keyword', 'uuid'] : ['integer'];
    case 'match_text':
      return ['text'];
    case 'match_prefix':
      return ['keyword'];
    case 'range':
      return ['integer', 'float'];
    case 'datetime_range':
      return ['datetime'];
    case 'geo_bounding_box':
    case 'geo_radius':
    case 'geo_polygon':
      return ['geo'];
    default:
      // values_count, is_empty and is_null read the payload itself.
      return undefined;
  }
}

/**
 * Whether an index answers `condition` on `pathText`. A keyword index answers `match.prefix`
 * for strict mode only when it was created with `prefix: true` (Qdrant v1.19's option).
 */
function indexed(indexes: FieldIndexes, pathText: string, condition: FieldCondition): boolean {
  const field = indexes.forPath(pathText);
  if (!field) return false;
  if (condition.kind === 'match_prefix' && field.definition.params?.prefix !== true) return false;
  return field.index.estimate(condition) !== undefined;
}

export function summarizeFilter(filter: Filter, indexes: FieldIndexes): FilterSummary {
  const summary: FilterSummary = { conditions: 0, largestCondition: undefined, unindexed: [] };
  const visit = (conditions: readonly Condition[], prefix: Segments): void => {
    for (const condition of conditions) {
      summary.conditions += 1;
      if (condition.kind === 'group') visitFilter(condition.filter, prefix);
      else if (condition.kind === 'nested') {
        const last = condition.key.segments[condition.key.segments.length - 1];
        visitFilter(condition.filter, [...prefix, ...condition.key.segments, ...(last?.kind === 'every' ? [] : [{ kind: 'every' as const }])]);
      } else if (isFieldCondition(condition)) {
        const pathText = prefix.length === 0 ? condition.key.text : formatPath([...prefix, ...condition.key.segments]);
        if (condition.kind === 'match_any' || condition.kind === 'match_except') {
          const size = condition.values.length;
          if (summary.largestCondition === undefined || size > summary.largestCondition.size) summary.largestCondition = { size, field: pathText };
        }
        const types = answeringTypes(condition);
        if (types !== undefined && !indexed(indexes, pathText, condition)) summary.unindexed.push({ field: pathText, types });
      }
    }
  };
  const visitFilter = (inner: Filter, prefix: Segments): void => {
    visit(inner.must, prefix);
    visit(inner.should, prefix);
    visit(inner.mustNot, prefix);
    if (inner.minShould) visit(inner.minShould.conditions, prefix);
  };
  visitFilter(filter, []);
  return summary;
}
