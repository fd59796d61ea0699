// Request bodies of the staged writes (docs/api.md §10): `POST .../points/batch` (Qdrant's
// UpdateOperations), `POST .../points/vectors/delete` (DeleteVectors) and the `update_filter`
// forms. This file turns them into the engine's DraftOperations; every check that needs no
// point state runs here, before the write queue, so a refused request writes nothing.
import { Type, type Static } from '@sinclair/typebox';
import type { DraftOperation, UpdateMode, VectorUpdate } from '../engine/collection.js';
import type { PointSelector } from '../engine/point-selection.js';
import { errors, isQuiverError } from '../errors.js';
import { clearPayload, deletePayloadKeys, overwritePayload, setPayload } from '../payload/operations.js';
import { parsePath, PathSyntaxError, type Payload, type PayloadPath } from '../payload/path.js';
import { parsePointId, parsePointIds, type PointId } from './ids.js';
import { PointIdSchema, UpdateModeSchema } from './request-schemas.js';
import { checkUpsertBody, type UpsertLimits } from './upsert-request.js';
import type { SparseVector } from './sparse-vector.js';
import { parsePointVectors, type VectorLayout } from './vectors.js';

const strict = { additionalProperties: false } as const;
const PayloadSchema = Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]);
const OptionalIds = Type.Optional(Type.Union([Type.Array(PointIdSchema), Type.Null()]));
const OptionalFilter = Type.Optional(Type.Unknown());
const ShardKey = Type.Optional(Type.Unknown());

/** PointInsertOperations: the list form (`points`) or the column form (`batch`), checked together. */
export const UpsertFields = {
  points: Type.Optional(Type.Array(Type.Object({ id: PointIdSchema, vector: Type.Unknown(), payload: Type.Optional(PayloadSchema) }, strict))),
  batch: Type.Optional(
    Type.Object(
      { ids: Type.Array(PointIdSchema), vectors: Type.Unknown(), payloads: Type.Optional(Type.Union([Type.Array(PayloadSchema), Type.Null()])) },
      strict,
    ),
  ),
  update_filter: OptionalFilter,
  update_mode: Type.Optional(Type.Union([UpdateModeSchema, Type.Null()])),
  shard_key: ShardKey,
};
const UpsertSchema = Type.Object(UpsertFields, strict);

const SelectorSchema = Type.Object({ points: OptionalIds, filter: OptionalFilter, shard_key: ShardKey }, strict);
const SetPayloadSchema = Type.Object(
  { payload: Type.Record(Type.String(), Type.Unknown()), points: OptionalIds, filter: OptionalFilter, shard_key: ShardKey, key: Type.Optional(Type.Union([Type.String(), Type.Null()])) },
  strict,
);
const DeletePayloadSchema = Type.Object({ keys: Type.Array(Type.String()), points: OptionalIds, filter: OptionalFilter, shard_key: ShardKey }, strict);

export const UpdateVectorsFields = {
  points: Type.Array(Type.Object({ id: PointIdSchema, vector: Type.Unknown() }, strict), { minItems: 1 }),
  update_filter: OptionalFilter,
  shard_key: ShardKey,
};
const UpdateVectorsSchema = Type.Object(UpdateVectorsFields, strict);

export const DeleteVectorsSchema = Type.Object(
  { points: OptionalIds, filter: OptionalFilter, vector: Type.Array(Type.String(), { minItems: 1 }), shard_key: ShardKey },
  strict,
);
export type DeleteVectorsBody = Static<typeof DeleteVectorsSchema>;

export const UpdateOperationSchema = Type.Union([
  Type.Object({ upsert: UpsertSchema }, strict),
  Type.Object({ delete: SelectorSchema }, strict),
  Type.Object({ set_payload: SetPayloadSchema }, strict),
  Type.Object({ overwrite_payload: SetPayloadSchema }, strict),
  Type.Object({ delete_payload: DeletePayloadSchema }, strict),
  Type.Object({ clear_payload: SelectorSchema }, strict),
  Type.Object({ update_vectors: UpdateVectorsSchema }, strict),
  Type.Object({ delete_vectors: DeleteVectorsSchema }, strict),
]);
export type UpdateOperationBody = Static<typeof UpdateOperationSchema>;

export const UpdateOperationsSchema = Type.Object({ operations: Type.Array(UpdateOperationSchema) }, strict);
export type UpdateOperationsBody = Static<typeof UpdateOperationsSchema>;

export interface BatchLimits extends UpsertLimits {
  /** Bounds the operations of one batch and the points they carry together. */
  maxPoints: number;
}

/** `{"points": [...]}` or `{"filter": ...}`, exactly one of them (null counts as absent). */
export function selectorOf(body: { points?: unknown[] | null; filter?: unknown }): PointSelector {
  const hasPoints = body.points !== undefined && body.points !== null;
  const hasFilter = body.filter !== undefined && body.filter !== null;
  if (hasPoints === hasFilter) throw errors.invalidInput('Validation error in body: give either "points" or "filter"');
  if (hasFilter) return { kind: 'filter', filter: body.filter };
  try {
    return { kind: 'ids', ids: parsePointIds(body.points!) };
  } catch (error) {
    throw errors.invalidInput(`points: ${(error as Error).message}`);
  }
}

/** A payload key path from a request, a 400 naming `field` when it does not parse. */
export function keyPath(text: string, field: string): PayloadPath {
  try {
    return parsePath(text);
  } catch (error) {
    if (error instanceof PathSyntaxError) throw errors.invalidField(field, error.message);
    throw error;
  }
}

/** Listed ids must exist (404, as for a point update); a filter selects what it selects. */
export function missingPolicy(selector: PointSelector): 'skip' | 'not_found' {
  return selector.kind === 'ids' ? 'not_found' : 'skip';
}

/** The vectors of `update_vectors` points: at least one each, every name and dimension checked. */
export function checkVectorUpdates(points: { id: unknown; vector: unknown }[], layout: VectorLayout, maxPoints: number): VectorUpdate[] {
  if (points.length > maxPoints) throw errors.invalidField('points', `at most ${maxPoints} points per request (got ${points.length})`);
  return points.map((point, position) => {
    let id: PointId;
    try {
      id = parsePointId(point.id);
    } catch (error) {
      throw errors.invalidInput(`points[${position}].id: ${(error as Error).message}`);
    }
    const sparse = new Map<string, SparseVector>();
    const vectors = parsePointVectors(point.vector, `points[${position}].vector`, layout, sparse);
    // `{}` names no vector: an update that changes nothing is a mistake, not a no-op.
    if (vectors.size + sparse.size === 0) throw errors.invalidField(`points[${position}].vector`, 'must give at least one vector');
    return { id, vectors, sparse };
  });
}

/** The names of a delete_vectors request, each a vector of the collection (dense or sparse). */
export function checkVectorNames(names: readonly string[], layout: VectorLayout): string[] {
  names.forEach((name, position) => {
    if (!layout.dimensions.has(name) && !layout.sparseNames.has(name)) throw errors.invalidField(`vector[${position}]`, `Not existing vector name error: ${name}`);
  });
  return [...new Set(names)];
}

/** A delete_vectors body (route or batch) as an operation. */
export function deleteVectorsOperation(body: DeleteVectorsBody, layout: VectorLayout, field: string): DraftOperation {
  return { kind: 'delete_vectors', selector: selectorOf(body), names: checkVectorNames(body.vector, layout), field };
}

function parseOperation(operation: UpdateOperationBody, layout: VectorLayout, limits: BatchLimits): { parsed: DraftOperation; points: number } {
  if ('upsert' in operation) {
    const body = operation.upsert;
    const points = checkUpsertBody(body, layout, limits);
    const mode: UpdateMode = body.update_mode ?? 'upsert';
    return { parsed: { kind: 'upsert', points, mode, updateFilter: body.update_filter ?? undefined, field: 'upsert.' }, points: points.length };
  }
  if ('delete' in operation) return { parsed: { kind: 'delete', selector: selectorOf(operation.delete), field: 'delete.' }, points: 0 };
  if ('set_payload' in operation || 'overwrite_payload' in operation) {
    const merge = 'set_payload' in operation;
    const body = merge ? operation.set_payload : operation.overwrite_payload;
    const name = merge ? 'set_payload' : 'overwrite_payload';
    const selector = selectorOf(body);
    const key = body.key === undefined || body.key === null ? undefined : keyPath(body.key, `${name}.key`);
    const patch = body.payload as Payload;
    const transform = merge ? (payload: Payload) => setPayload(payload, patch, key) : (payload: Payload) => overwritePayload(payload, patch, key);
    return { parsed: { kind: 'payload', selector, transform, missing: missingPolicy(selector), field: `${name}.` }, points: 0 };
  }
  if ('delete_payload' in operation) {
    const body = operation.delete_payload;
    // docs/api.md §3.3: only listed ids; filter-based targeting is unavailable for this operation.
    if (body.filter !== undefined && body.filter !== null) {
      throw errors.invalidField('delete_payload.filter', 'deleting payload keys takes "points" (ids) only: filter-based targeting is unavailable for this operation');
    }
    if (body.points === undefined || body.points === null) throw errors.invalidField('delete_payload.points', 'missing required field');
    const keys = body.keys.map((key, position) => keyPath(key, `delete_payload.keys[${position}]`));
    const selector = selectorOf({ points: body.points });
    return { parsed: { kind: 'payload', selector, transform: (payload) => deletePayloadKeys(payload, keys), missing: 'not_found', field: 'delete_payload.' }, points: 0 };
  }
  if ('clear_payload' in operation) {
    const selector = selectorOf(operation.clear_payload);
    return { parsed: { kind: 'payload', selector, transform: clearPayload, missing: missingPolicy(selector), field: 'clear_payload.' }, points: 0 };
  }
  if ('update_vectors' in operation) {
    const body = operation.update_vectors;
    const points = checkVectorUpdates(body.points, layout, limits.maxPoints);
    return { parsed: { kind: 'update_vectors', points, updateFilter: body.update_filter ?? undefined, field: 'update_vectors.' }, points: points.length };
  }
  return { parsed: deleteVectorsOperation(operation.delete_vectors, layout, 'delete_vectors.'), points: 0 };
}

/**
 * The operations of a batch, in order. A refusal names the operation: `operations[2]: ...`.
 * Bounded: at most `maxPoints` operations, and at most `maxPoints` points across them.
 */
export function parseUpdateOperations(body: UpdateOperationsBody, layout: VectorLayout, limits: BatchLimits): DraftOperation[] {
  if (body.operations.length > limits.maxPoints) {
    throw errors.invalidField('operations', `at most ${limits.maxPoints} operations per request (got ${body.operations.length})`);
  }
  let total = 0;
  return body.operations.map((operation, position) => {
    try {
      const { parsed, points } = parseOperation(operation, layout, limits);
      total += points;
      if (total > limits.maxPoints) throw errors.invalidInput(`at most ${limits.maxPoints} points per batch request, counted over all its operations`);
      return parsed;
    } catch (error) {
      if (isQuiverError(error)) throw errors.withinOperation(position, error);
      throw error;
    }
  });
}
