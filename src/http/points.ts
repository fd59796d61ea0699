// Point routes (docs/api.md §3): upsert (list and batch forms), retrieve, get one, delete by ids (or
// by filter once the filter module registers its selector), update vectors.
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { errors } from '../errors.js';
import type { PointSelector } from '../engine/point-selection.js';
import { parsePointId, parsePointIds, type PointId } from '../points/ids.js';
import {
  CollectionParamsSchema,
  PointIdSchema,
  PointParamsSchema,
  PointSelectorFields,
  ReadQuerySchema,
  UpdateModeSchema,
  WriteQuerySchema,
  type CollectionParams,
  type PointParams,
  type WriteQuery,
} from '../points/request-schemas.js';
import { payloadSelection, vectorSelection, WithPayloadSchema, WithVectorSchema } from '../points/selectors.js';
import { checkUpsertBody } from '../points/upsert-request.js';
import type { SparseVector } from '../points/sparse-vector.js';
import { parsePointVectors } from '../points/vectors.js';
import { success } from './envelope.js';
import { routeSettings } from './route-config.js';

const strict = { additionalProperties: false } as const;
const PayloadSchema = Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]);

const UpsertBodySchema = Type.Object(
  {
    points: Type.Optional(
      Type.Array(
        Type.Object({ id: PointIdSchema, vector: Type.Unknown(), payload: Type.Optional(PayloadSchema) }, strict),
      ),
    ),
    batch: Type.Optional(
      Type.Object(
        {
          ids: Type.Array(PointIdSchema),
          vectors: Type.Unknown(),
          payloads: Type.Optional(Type.Union([Type.Array(PayloadSchema), Type.Null()])),
        },
        strict,
      ),
    ),
    update_mode: Type.Optional(UpdateModeSchema),
    shard_key: Type.Optional(Type.Unknown()),
  },
  strict,
);
type UpsertBody = Static<typeof UpsertBodySchema>;

const UpsertQuerySchema = Type.Composite([WriteQuerySchema, Type.Object({ update_mode: Type.Optional(UpdateModeSchema) })]);
type UpsertQuery = Static<typeof UpsertQuerySchema>;

const RetrieveBodySchema = Type.Object(
  {
    ids: Type.Array(PointIdSchema),
    with_payload: Type.Optional(WithPayloadSchema),
    with_vector: Type.Optional(WithVectorSchema),
    with_vectors: Type.Optional(WithVectorSchema),
    shard_key: Type.Optional(Type.Unknown()),
  },
  strict,
);
type RetrieveBody = Static<typeof RetrieveBodySchema>;

const DeleteBodySchema = Type.Object(
  {
    ...PointSelectorFields,
  },
  strict,
);
type DeleteBody = Static<typeof DeleteBodySchema>;

const UpdateVectorsBodySchema = Type.Object(
  {
    points: Type.Array(Type.Object({ id: PointIdSchema, vector: Type.Unknown() }, strict), { minItems: 1 }),
    shard_key: Type.Optional(Type.Unknown()),
  },
  strict,
);
type UpdateVectorsBody = Static<typeof UpdateVectorsBodySchema>;

/**
 * A point id from a URL path, read as Qdrant reads it: an unsigned 64-bit integer when the text
 * is one, else a UUID, so 32 digits beyond 2^64 are the simple UUID form, not a refused integer.
 */
export function parsePathPointId(text: string): PointId {
  if (/^\d+$/.test(text) && (text.length < 20 || BigInt(text) < 1n << 64n)) return parsePointId(text.length > 15 ? BigInt(text) : Number(text));
  return parsePointId(text);
}

function parseIdList(values: unknown[], field: string): PointId[] {
  try {
    return parsePointIds(values);
  } catch (error) {
    throw errors.invalidInput(`${field}: ${(error as Error).message}`);
  }
}

/** `{"points": [...]}` or `{"filter": ...}`, exactly one of them. */
export function parsePointSelector(body: { points?: unknown[]; filter?: unknown }): PointSelector {
  const hasPoints = body.points !== undefined;
  const hasFilter = body.filter !== undefined && body.filter !== null;
  if (hasPoints === hasFilter) throw errors.invalidInput('Validation error in body: give either "points" or "filter"');
  if (hasFilter) return { kind: 'filter', filter: body.filter };
  return { kind: 'ids', ids: parseIdList(body.points!, 'points') };
}

export function registerPointRoutes(app: FastifyInstance): void {
  const limits = app.quiverConfig.limits;

  app.put<{ Params: CollectionParams; Querystring: UpsertQuery; Body: UpsertBody }>(
    '/collections/:collection_name/points',
    { config: routeSettings({ permission: 'write' }), schema: { params: CollectionParamsSchema, querystring: UpsertQuerySchema, body: UpsertBodySchema } },
    async (request, reply) => {
      const collection = app.collections.get(request.params.collection_name);
      const points = checkUpsertBody(request.body, collection.vectorLayout, { maxPoints: limits.max_points_per_upsert, maxPayloadBytes: limits.max_payload_bytes });
      const mode = request.body.update_mode ?? request.query.update_mode ?? 'upsert';
      return success(reply, await collection.upsert(points, mode, request.query.wait ?? false));
    },
  );

  app.post<{ Params: CollectionParams; Body: RetrieveBody }>(
    '/collections/:collection_name/points',
    { config: routeSettings({ permission: 'read' }), schema: { params: CollectionParamsSchema, querystring: ReadQuerySchema, body: RetrieveBodySchema } },
    async (request, reply) => {
      const collection = app.collections.get(request.params.collection_name);
      const ids = parseIdList(request.body.ids, 'ids');
      const records = collection.retrieve(
        ids,
        payloadSelection(request.body.with_payload, true),
        vectorSelection(request.body.with_vector ?? request.body.with_vectors, false),
      );
      return success(reply, records);
    },
  );

  app.get<{ Params: PointParams }>(
    '/collections/:collection_name/points/:id',
    { config: routeSettings({ permission: 'read' }), schema: { params: PointParamsSchema, querystring: ReadQuerySchema } },
    async (request, reply) => {
      const collection = app.collections.get(request.params.collection_name);
      const id = parsePathPointId(request.params.id);
      const [record] = collection.retrieve([id], { kind: 'all' }, { kind: 'all' });
      if (!record) throw errors.pointNotFound(request.params.id);
      return success(reply, record);
    },
  );

  app.post<{ Params: CollectionParams; Querystring: WriteQuery; Body: DeleteBody }>(
    '/collections/:collection_name/points/delete',
    { config: routeSettings({ permission: 'write' }), schema: { params: CollectionParamsSchema, querystring: WriteQuerySchema, body: DeleteBodySchema } },
    async (request, reply) => {
      const collection = app.collections.get(request.params.collection_name);
      const selector = parsePointSelector(request.body);
      return success(reply, await collection.deletePoints(selector, request.query.wait ?? false));
    },
  );

  app.put<{ Params: CollectionParams; Querystring: WriteQuery; Body: UpdateVectorsBody }>(
    '/collections/:collection_name/points/vectors',
    { config: routeSettings({ permission: 'write' }), schema: { params: CollectionParamsSchema, querystring: WriteQuerySchema, body: UpdateVectorsBodySchema } },
    async (request, reply) => {
      const collection = app.collections.get(request.params.collection_name);
      const layout = collection.vectorLayout;
      if (request.body.points.length > limits.max_points_per_upsert) {
        throw errors.invalidField('points', `at most ${limits.max_points_per_upsert} points per request (got ${request.body.points.length})`);
      }
      const points = request.body.points.map((point, position) => {
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
      return success(reply, await collection.updateVectors(points, request.query.wait ?? false));
    },
  );
}
