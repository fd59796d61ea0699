// Payload index routes (docs/api.md §6): create (or replace) and delete a field index.
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { createFieldIndex, deleteFieldIndex } from '../filter/collection-filters.js';
import { CollectionParamsSchema, WriteQuerySchema, type CollectionParams, type WriteQuery } from '../points/request-schemas.js';
import { success } from './envelope.js';
import { routeSettings } from './route-config.js';

const CreateIndexBodySchema = Type.Object(
  {
    field_name: Type.String(),
    field_schema: Type.Optional(Type.Unknown()),
    shard_key: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false },
);
type CreateIndexBody = Static<typeof CreateIndexBodySchema>;

const IndexParamsSchema = Type.Object({ collection_name: Type.String(), field_name: Type.String() });
type IndexParams = Static<typeof IndexParamsSchema>;

export function registerPayloadIndexRoutes(app: FastifyInstance): void {
  app.put<{ Params: CollectionParams; Querystring: WriteQuery; Body: CreateIndexBody }>(
    '/collections/:collection_name/index',
    { config: routeSettings({ permission: 'write' }), schema: { params: CollectionParamsSchema, querystring: WriteQuerySchema, body: CreateIndexBodySchema } },
    async (request, reply) => {
      const collection = app.collections.get(request.params.collection_name);
      return success(reply, await createFieldIndex(collection, request.body.field_name, request.body.field_schema, request.query.wait ?? false));
    },
  );

  app.delete<{ Params: IndexParams; Querystring: WriteQuery }>(
    '/collections/:collection_name/index/:field_name',
    { config: routeSettings({ permission: 'write' }), schema: { params: IndexParamsSchema, querystring: WriteQuerySchema } },
    async (request, reply) => {
      const collection = app.collections.get(request.params.collection_name);
      return success(reply, await deleteFieldIndex(collection, request.params.field_name, request.query.wait ?? false));
    },
  );
}
