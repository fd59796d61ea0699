// Which points a write targets: listed ids, or a filter. Filters belong to the filter module
// (src/filter); it plugs its evaluator in here with `registerFilterSelector`, so the engine
// never depends on it. Until something is registered, a filter is refused with 400 — never
// silently ignored (which would, for a delete, mean "delete nothing" and look like success).
import { errors } from '../errors.js';
import type { PointId } from '../points/ids.js';
import type { Collection, PointEntry } from './collection.js';

export type PointSelector = { kind: 'ids'; ids: PointId[] } | { kind: 'filter'; filter: unknown };

/**
 * Returns the live points of `collection` that `filter` accepts. Runs inside the collection's
 * write queue, so it sees exactly the state the write applies to; it may throw a 400 for a bad
 * filter (nothing has been written at that point).
 */
export type FilterSelector = (collection: Collection, filter: unknown) => Iterable<PointEntry>;

let filterSelector: FilterSelector | undefined;

/** Called once by the filter module at import time. */
export function registerFilterSelector(selector: FilterSelector): void {
  filterSelector = selector;
}

export function selectByFilter(collection: Collection, filter: unknown, field: string): Iterable<PointEntry> {
  if (!filterSelector) throw errors.invalidField(field, 'selecting points by filter is not supported yet');
  return filterSelector(collection, filter);
}
