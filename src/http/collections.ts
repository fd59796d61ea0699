// Collection routes (API.md §3, §4): list, info, create, update, delete, exists.
import type { FastifyInstance } from 'fastify';
import { CreateCollectionSchema, UpdateCollectionSchema, type CreateCollectionRequest, type UpdateCollectionRequest } from '../engine/collection-config.js';
import { CollectionParamsSchema, ReadQuerySchema, WriteQuerySchema, type CollectionParams } from '../points/request-schemas.js';
import { success } from './envelope.js';
import { routeSettings } from './route-config.js';

export function registerCollectionRoutes(app: FastifyInstance): void {
  const registry = () => app.collections;

  app.get('/collections', { config: routeSettings({ permission: 'read' }) }, async (_request, reply) => {
    return success(reply, { collections: registry().names().map((name) => ({ name })) });
  });

  app.get<{ Params: CollectionParams }>(
    '/collections/:collection_name',
    { config: routeSettings({ permission: 'read' }), schema: { params: CollectionParamsSchema, querystring: ReadQuerySchema } },
    async (request, reply) => success(reply, registry().get(request.params.collection_name).info()),
  );

  app.put<{ Params: CollectionParams; Body: CreateCollectionRequest }>(
    '/collections/:collection_name',
    { config: routeSettings({ permission: 'write' }), schema: { params: CollectionParamsSchema, querystring: WriteQuerySchema, body: CreateCollectionSchema } },
    async (request, reply) => {
      await registry().create(request.params.collection_name, request.body);
      return success(reply, true);
    },
  );

  app.patch<{ Params: CollectionParams; Body: UpdateCollectionRequest }>(
    '/collections/:collection_name',
    { config: routeSettings({ permission: 'write' }), schema: { params: CollectionParamsSchema, querystring: WriteQuerySchema, body: UpdateCollectionSchema } },
    async (request, reply) => {
      await registry().update(request.params.collection_name, request.body);
      return success(reply, true);
    },
  );

  app.delete<{ Params: CollectionParams }>(
    '/collections/:collection_name',
    { config: routeSettings({ permission: 'write' }), schema: { params: CollectionParamsSchema, querystring: WriteQuerySchema } },
    async (request, reply) => success(reply, await registry().delete(request.params.collection_name)),
  );

  app.get<{ Params: CollectionParams }>(
    '/collections/:collection_name/exists',
    { config: routeSettings({ permission: 'read' }), schema: { params: CollectionParamsSchema } },
    async (request, reply) => success(reply, { exists: registry().exists(request.params.collection_name) }),
  );
}
