// TypeBox schemas shared by the point routes (and the search routes): path parameters, the
// write query string, ids. Point ids are checked by points/ids.ts, not by the schema, so the
// message is the contract's.
import { Type, type Static } from '@sinclair/typebox';

export const CollectionParamsSchema = Type.Object({ collection_name: Type.String() });
export type CollectionParams = Static<typeof CollectionParamsSchema>;

export const PointParamsSchema = Type.Object({ collection_name: Type.String(), id: Type.String() });
export type PointParams = Static<typeof PointParamsSchema>;

/** Seconds; 0 would mean "no time at all", so it is refused as Qdrant refuses it. */
const TimeoutSchema = Type.Integer({ minimum: 1 });

/** Writes: `wait` (default false); `ordering` and `timeout` are accepted (one node). */
export const WriteQuerySchema = Type.Object({
  wait: Type.Optional(Type.Boolean()),
  ordering: Type.Optional(Type.Union([Type.Literal('weak'), Type.Literal('medium'), Type.Literal('strong')])),
  timeout: Type.Optional(TimeoutSchema),
});
export type WriteQuery = Static<typeof WriteQuerySchema>;

/** Reads: `consistency` and `timeout` are accepted. */
export const ReadQuerySchema = Type.Object({
  consistency: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.String()])),
  timeout: Type.Optional(TimeoutSchema),
});
export type ReadQuery = Static<typeof ReadQuerySchema>;

/** A point id as sent: unsigned integer (number or bigint) or UUID text, checked by parsePointId. */
export const PointIdSchema = Type.Unknown();

export const UpdateModeSchema = Type.Union([Type.Literal('upsert'), Type.Literal('insert_only'), Type.Literal('update_only')]);

/**
 * Which points a write targets (docs/api.md §3): listed ids or a filter, checked together by
 * parsePointSelector; `shard_key` is accepted (one shard). Spread into each body schema.
 */
export const PointSelectorFields = {
  points: Type.Optional(Type.Array(PointIdSchema)),
  filter: Type.Optional(Type.Unknown()),
  shard_key: Type.Optional(Type.Unknown()),
};

/**
 * A result or page size as sent: a positive integer up to 2^64 - 1 (a bigint above 2^53), the
 * unsigned 64-bit range Qdrant reads it in; beyond that it is not a size at all, and a 400.
 */
export const LimitSchema = Type.Union([
  Type.Integer({ minimum: 1, exclusiveMaximum: 2 ** 64 }),
  // Not `maximum: 2^64 - 1`: TypeBox's compiled check writes the bound as a number literal,
  // which rounds it up to 2^64. 2^64 itself is exact.
  Type.BigInt({ minimum: 1n, exclusiveMaximum: 1n << 64n }),
]);

/**
 * A `limit` above the configured cap is clamped to the cap, not refused, as Qdrant clamps:
 * clients ask for "everything" with a huge limit (even 18446744073709551615) and get the most
 * one request may return (docs/api.md §8). The cap still bounds the work.
 */
export function clampLimit(limit: number | bigint, cap: number): number {
  return limit > cap ? cap : Number(limit);
}
