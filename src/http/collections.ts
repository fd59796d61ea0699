// Collection routes (docs/api.md §3, §4): list, info, create, update, delete, exists, optimizations.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import {
  CreateCollectionSchema,
  UpdateCollectionSchema,
  VectorParamsSchema,
  withoutDefaultNulls,
  type CreateCollectionRequest,
  type UpdateCollectionRequest,
} from '../engine/collection-request-schemas.js';
import { describeOptimizations, parseOptimizationsDetails } from '../engine/optimizations.js';
import { CollectionParamsSchema, ReadQuerySchema, WriteQuerySchema, type CollectionParams } from '../points/request-schemas.js';
import { success } from './envelope.js';
import { routeSettings } from './route-config.js';
import { describeJsonPointer, describeProblem, lazyCheck, logIgnoredFields, removeIgnoredFields, validationError, type IgnoredFieldsLogger } from './validation.js';
import { errors } from '../errors.js';

/**
 * Checks a body after removing its "default" nulls, so the error names the exact field, and its
 * unknown fields, which Qdrant ignores (docs/api.md §1.4; logged at debug level).
 */
function bodyChecker<Request>(schema: TSchema, route: string): (body: unknown, logger?: IgnoredFieldsLogger) => Request {
  const check = lazyCheck(schema);
  return (body, logger) => {
    const compiled = check();
    const value = withoutDefaultNulls(body ?? {});
    if (!compiled.Check(value)) {
      logIgnoredFields(logger, route, removeIgnoredFields(compiled, value));
      if (!compiled.Check(value)) throw validationError(compiled, value, 'body');
    }
    return value as Request;
  };
}

const createCheck = lazyCheck(CreateCollectionSchema);
const checkCreateBody = bodyChecker<CreateCollectionRequest>(CreateCollectionSchema, 'PUT /collections/:collection_name');
const vectorParamsCheck = lazyCheck(VectorParamsSchema);

/** The vectors field is one VectorParams or a map of them: check the form it was meant as, so
 * the error names e.g. `vectors.size`, not just "expected union value". */
function checkVectorsField(body: Record<string, unknown>, field: 'vectors' | 'vectors_config', logger?: IgnoredFieldsLogger): void {
  const vectors = body[field];
  if (typeof vectors !== 'object' || vectors === null || Array.isArray(vectors)) return;
  const single = 'size' in vectors || 'distance' in vectors;
  const entries: [string, unknown][] = single ? [[field, vectors]] : Object.entries(vectors).map(([name, params]) => [`${field}.${name}`, params]);
  for (const [where, params] of entries) {
    if (!vectorParamsCheck().Check(params)) {
      const ignored = removeIgnoredFields(vectorParamsCheck(), params).map((path) => `${where}.${path}`);
      logIgnoredFields(logger, 'PUT /collections/:collection_name', ignored);
    }
    const first = vectorParamsCheck().Errors(params).First();
    if (!first) continue;
    const path = describeJsonPointer(first.path);
    // describeProblem prints bigints (sizes above 2^53 arrive as bigint): JSON.stringify throws on them.
    throw errors.invalidInput(`Validation error in body ${where}${path ? `.${path}` : ''}: ${describeProblem(first)}`);
  }
}

export function checkCreate(body: unknown, logger?: IgnoredFieldsLogger): CreateCollectionRequest {
  const value = withoutDefaultNulls(body ?? {});
  // Unknown fields go first, so the per-vector checks below see only known ones.
  if (!createCheck().Check(value)) logIgnoredFields(logger, 'PUT /collections/:collection_name', removeIgnoredFields(createCheck(), value));
  if (typeof value === 'object' && value !== null) {
    checkVectorsField(value as Record<string, unknown>, 'vectors_config', logger);
    checkVectorsField(value as Record<string, unknown>, 'vectors', logger);
  }
  return checkCreateBody(value, logger);
}
export const checkUpdate = bodyChecker<UpdateCollectionRequest>(UpdateCollectionSchema, 'PATCH /collections/:collection_name');

const OptimizationsQuerySchema = Type.Object({
  with: Type.Optional(Type.String({ maxLength: 256 })),
  completed_limit: Type.Optional(Type.Integer({ minimum: 0 })),
});
type OptimizationsQuery = Static<typeof OptimizationsQuerySchema>;

export function registerCollectionRoutes(app: FastifyInstance): void {
  const registry = () => app.collections;

  app.get('/collections', { config: routeSettings({ permission: 'read' }) }, async (_request, reply) => {
    return success(reply, { collections: registry().names().map((name) => ({ name })) });
  });

  app.get<{ Params: CollectionParams }>(
    '/collections/:collection_name',
    { config: routeSettings({ permission: 'read' }), schema: { params: CollectionParamsSchema, querystring: ReadQuerySchema } },
    async (request, reply) => success(reply, registry().info(request.params.collection_name)),
  );

  app.put<{ Params: CollectionParams }>(
    '/collections/:collection_name',
    { config: routeSettings({ permission: 'write' }), schema: { params: CollectionParamsSchema, querystring: WriteQuerySchema } },
    async (request, reply) => {
      await registry().create(request.params.collection_name, checkCreate(request.body, request.log));
      return success(reply, true);
    },
  );

  app.patch<{ Params: CollectionParams }>(
    '/collections/:collection_name',
    { config: routeSettings({ permission: 'write' }), schema: { params: CollectionParamsSchema, querystring: WriteQuerySchema } },
    async (request, reply) => {
      await registry().update(request.params.collection_name, checkUpdate(request.body, request.log));
      return success(reply, true);
    },
  );

  app.delete<{ Params: CollectionParams }>(
    '/collections/:collection_name',
    { config: routeSettings({ permission: 'write' }), schema: { params: CollectionParamsSchema, querystring: WriteQuerySchema } },
    async (request, reply) => success(reply, await registry().delete(request.params.collection_name)),
  );

  app.get<{ Params: CollectionParams; Querystring: OptimizationsQuery }>(
    '/collections/:collection_name/optimizations',
    { config: routeSettings({ permission: 'read' }), schema: { params: CollectionParamsSchema, querystring: OptimizationsQuerySchema } },
    async (request, reply) => {
      const chosen = parseOptimizationsDetails(request.query.with);
      return success(reply, describeOptimizations(registry().get(request.params.collection_name), chosen));
    },
  );

  app.get<{ Params: CollectionParams }>(
    '/collections/:collection_name/exists',
    { config: routeSettings({ permission: 'read' }), schema: { params: CollectionParamsSchema } },
    async (request, reply) => success(reply, { exists: registry().exists(request.params.collection_name) }),
  );
}
