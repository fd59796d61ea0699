// Staged writes (docs/api.md §10): `POST .../points/batch` applies a list of update operations as
// one atomic write, and `POST .../points/vectors/delete` removes named vectors from points. The
// handlers only parse (src/points/batch-request.ts); the Collection stages and writes.
import type { FastifyInstance } from 'fastify';
import {
  DeleteVectorsSchema,
  deleteVectorsOperation,
  parseUpdateOperations,
  UpdateOperationsSchema,
  type DeleteVectorsBody,
  type UpdateOperationsBody,
} from '../points/batch-request.js';
import { CollectionParamsSchema, WriteQuerySchema, type CollectionParams, type WriteQuery } from '../points/request-schemas.js';
import { success } from './envelope.js';
import { routeSettings } from './route-config.js';

export function registerBatchRoutes(app: FastifyInstance): void {
  const limits = app.quiverConfig.limits;
  const writeRoute = { config: routeSettings({ permission: 'write' }) };

  app.post<{ Params: CollectionParams; Querystring: WriteQuery; Body: UpdateOperationsBody }>(
    '/collections/:collection_name/points/batch',
    { ...writeRoute, schema: { params: CollectionParamsSchema, querystring: WriteQuerySchema, body: UpdateOperationsSchema } },
    async (request, reply) => {
      const collection = app.collections.get(request.params.collection_name);
      const operations = parseUpdateOperations(request.body, collection.vectorLayout, { maxPoints: limits.max_points_per_upsert, maxPayloadBytes: limits.max_payload_bytes });
      // One atomic write, one operation id: every operation reports it (docs/api.md §10).
      const result = operations.length === 0 ? undefined : await collection.applyOperations(operations, request.query.wait ?? false, true);
      return success(reply, result ? operations.map(() => result) : []);
    },
  );

  app.post<{ Params: CollectionParams; Querystring: WriteQuery; Body: DeleteVectorsBody }>(
    '/collections/:collection_name/points/vectors/delete',
    { ...writeRoute, schema: { params: CollectionParamsSchema, querystring: WriteQuerySchema, body: DeleteVectorsSchema } },
    async (request, reply) => {
      const collection = app.collections.get(request.params.collection_name);
      const operation = deleteVectorsOperation(request.body, collection.vectorLayout, '');
      return success(reply, await collection.applyOperations([operation], request.query.wait ?? false, false));
    },
  );
}
