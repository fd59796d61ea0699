// `POST .../points/count` (docs/api.md §3): exact by default, estimated with `exact: false`.
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { countPoints } from '../filter/collection-filters.js';
import { CollectionParamsSchema, ReadQuerySchema, type CollectionParams } from '../points/request-schemas.js';
import { success } from './envelope.js';
import { routeSettings } from './route-config.js';

const CountBodySchema = Type.Object(
  {
    filter: Type.Optional(Type.Unknown()),
    exact: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
    shard_key: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false },
);
type CountBody = Static<typeof CountBodySchema>;

export function registerCountRoutes(app: FastifyInstance): void {
  app.post<{ Params: CollectionParams; Body: CountBody }>(
    '/collections/:collection_name/points/count',
    { config: routeSettings({ permission: 'read' }), schema: { params: CollectionParamsSchema, querystring: ReadQuerySchema, body: CountBodySchema } },
    async (request, reply) => {
      const collection = app.collections.get(request.params.collection_name);
      return success(reply, { count: countPoints(collection, request.body.filter, request.body.exact ?? true) });
    },
  );
}
