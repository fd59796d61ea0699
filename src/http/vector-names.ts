// Named-vector management (docs/api.md §4.7): `PUT C/vectors/{vector_name}` adds a dense or
// sparse vector to an existing collection, `DELETE C/vectors/{vector_name}` removes one with all
// its stored vectors. The registry persists the configuration; the Collection does the rest.
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { VectorNameConfigSchema, type VectorNameConfig } from '../engine/vector-name-config.js';
import { WriteQuerySchema, type WriteQuery } from '../points/request-schemas.js';
import { success } from './envelope.js';
import { routeSettings } from './route-config.js';

const VectorNameParamsSchema = Type.Object({ collection_name: Type.String(), vector_name: Type.String() });
type VectorNameParams = Static<typeof VectorNameParamsSchema>;

export function registerVectorNameRoutes(app: FastifyInstance): void {
  const writeRoute = { config: routeSettings({ permission: 'write' }) };

  app.put<{ Params: VectorNameParams; Querystring: WriteQuery; Body: VectorNameConfig }>(
    '/collections/:collection_name/vectors/:vector_name',
    { ...writeRoute, schema: { params: VectorNameParamsSchema, querystring: WriteQuerySchema, body: VectorNameConfigSchema } },
    async (request, reply) => success(reply, await app.collections.createVector(request.params.collection_name, request.params.vector_name, request.body)),
  );

  app.delete<{ Params: VectorNameParams; Querystring: WriteQuery }>(
    '/collections/:collection_name/vectors/:vector_name',
    { ...writeRoute, schema: { params: VectorNameParamsSchema, querystring: WriteQuerySchema } },
    async (request, reply) => success(reply, await app.collections.deleteVector(request.params.collection_name, request.params.vector_name)),
  );
}
