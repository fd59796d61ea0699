// Stages that order points by a key rather than rank them by a score: no query at all (ids
// ascending, exactly as scroll pages them) and order_by. Over the whole collection both are
// answered by the filter module's scroll, so they agree with it to the point; over prefetched
// points order_by reads each candidate's payload. Scores are 0.
import type { Collection, PointEntry } from '../engine/collection.js';
import { scroll } from '../filter/scroll.js';
import { comparePointIds } from '../points/ids.js';
import { isCandidate } from './candidates.js';
import { fieldPath } from './field-path.js';
import { orderBoundary, orderByPath, orderValuesOf } from './order-value.js';
import type { OrderBySpec, QueryStage } from './plan.js';
import type { Scored, StageOutput } from './stage-output.js';

/** Scroll's answer as scored points, leaving out excluded ids, at most `limit` of them. */
function fromScroll(collection: Collection, found: ReturnType<typeof scroll>, excluded: ReadonlySet<string>, limit: number): Scored[] {
  const points: Scored[] = [];
  for (const record of found.points) {
    const entry = collection.pointById(record.id);
    if (!isCandidate(entry, undefined, excluded) || points.length === limit) continue;
    points.push({ entry, score: 0, ...(record.order_value !== undefined ? { orderValue: record.order_value } : {}) });
  }
  return points;
}

/** No query: points by id ascending, exactly as scroll pages them. */
export function pointsById(collection: Collection, filter: unknown, excluded: ReadonlySet<string>, limit: number): StageOutput {
  const found = scroll(collection, {
    offset: undefined,
    limit: limit + excluded.size,
    filter,
    orderBy: undefined,
    payload: { kind: 'none' },
    vector: { kind: 'none' },
  });
  return { order: 'larger_better', points: fromScroll(collection, found, excluded, limit) };
}

/**
 * order_by over the whole collection walks the key's range index, exactly as scroll with
 * order_by does (same 400 without a range index, same order for several values and ties).
 */
export function orderByIndex(collection: Collection, spec: OrderBySpec, filter: unknown, excluded: ReadonlySet<string>, limit: number): StageOutput {
  const order = spec.direction === 'asc' ? 'smaller_better' : 'larger_better';
  // An excluded point takes one row per value it holds: ask for more until the page is full.
  for (let wanted = limit + excluded.size; ; wanted *= 2) {
    const found = scroll(collection, {
      offset: undefined,
      limit: wanted,
      filter,
      orderBy: { key: spec.key, direction: spec.direction, startFrom: spec.startFrom },
      payload: { kind: 'none' },
      vector: { kind: 'none' },
    });
    const points = fromScroll(collection, found, excluded, limit);
    if (points.length === limit || found.points.length < wanted) return { order, points };
  }
}

/**
 * order_by over prefetched points reads each point's payload: the candidates are few. As in the
 * index walk, a point comes once per distinct value it holds at the key.
 */
export function orderByPayload(spec: OrderBySpec, stage: QueryStage, entries: Iterable<PointEntry>, limit: number): StageOutput {
  const field = `${fieldPath(stage.field, 'query')}.order_by`;
  const ascending = spec.direction === 'asc';
  const path = orderByPath(spec.key, `${field}.key`);
  const start = spec.startFrom === undefined ? undefined : orderBoundary(spec.startFrom, `${field}.start_from`);
  const ordered: Scored[] = [];
  for (const entry of entries) {
    for (const value of orderValuesOf(entry.payload, path)) {
      if (start !== undefined && (ascending ? value < start : value > start)) continue;
      ordered.push({ entry, score: 0, orderValue: value });
    }
  }
  ordered.sort((left, right) => {
    const difference = (left.orderValue as number) - (right.orderValue as number);
    return (ascending ? difference : -difference) || comparePointIds(left.entry.id, right.entry.id);
  });
  return { order: ascending ? 'smaller_better' : 'larger_better', points: ordered.slice(0, limit) };
}
