// What a collection needs from the modules layered above the engine (the filter module and its
// payload indexes). It is passed in explicitly: app.ts gives the registry a factory, and the
// registry builds each collection's hooks with it, so nothing is registered by import side
// effects and the engine imports nothing from above it.
import { errors } from '../errors.js';
import type { PointEntry } from './point-table.js';
import type { StagedPoint } from './write-draft.js';
import type { PayloadChange } from './write-path.js';

export type { PayloadChange } from './write-path.js';

/** One collection's hooks. */
export interface CollectionHooks {
  /**
   * The live points `filter` accepts, for deletes and payload writes by filter. Runs inside the
   * collection's write queue, so it sees exactly the state the write applies to; it may throw a
   * 400 naming `field` for a bad filter (nothing has been written at that point).
   */
  selectByFilter(filter: unknown, field: string): Iterable<PointEntry>;
  /**
   * Whether `filter` accepts one point as a write is staging it (not yet committed): batches
   * and `update_filter` (docs/api.md §10). May throw a 400 naming `field` for a bad filter.
   * Optional: without it, such filters are refused as withoutFilterHooks refuses them.
   */
  matchesPoint?(filter: unknown, point: StagedPoint, field: string): boolean;
  /** Told of every payload change once it is in memory: `before` undefined = new point, `after` undefined = deleted. */
  payloadChanged(change: PayloadChange): void;
  /** CollectionInfo's `payload_schema`. */
  payloadSchema(): Record<string, unknown>;
  /** Called once the collection's points are in memory: created empty, or recovered at start-up. */
  loaded(): Promise<void>;
}

/**
 * Hooks for a collection with no filter module (engine unit tests): a filter is refused with
 * 400 — never silently ignored, which would, for a delete, mean "delete nothing" and look like
 * success.
 */
export const withoutFilterHooks: Required<CollectionHooks> = {
  selectByFilter: (_filter, field) => {
    throw errors.invalidField(field, 'selecting points by filter is not supported yet');
  },
  matchesPoint: (_filter, _point, field) => {
    throw errors.invalidField(field, 'selecting points by filter is not supported yet');
  },
  payloadChanged: () => undefined,
  payloadSchema: () => ({}),
  loaded: async () => undefined,
};
