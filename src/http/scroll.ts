// `POST .../points/scroll` (docs/api.md §3). The paging rules live in src/filter/scroll.ts.
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { errors } from '../errors.js';
import { scroll, type OrderBy } from '../filter/scroll.js';
import { parsePointId, type PointId } from '../points/ids.js';
import { clampLimit, CollectionParamsSchema, LimitSchema, PointIdSchema, ReadQuerySchema, type CollectionParams } from '../points/request-schemas.js';
import { payloadSelection, vectorSelection, WithPayloadSchema, WithVectorSchema } from '../points/selectors.js';
import { success } from './envelope.js';
import { routeSettings } from './route-config.js';

const OrderBySchema = Type.Union([
  Type.String(),
  Type.Object(
    {
      key: Type.String(),
      direction: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc'), Type.Null()])),
      start_from: Type.Optional(Type.Union([Type.Number(), Type.BigInt(), Type.String(), Type.Null()])),
    },
    { additionalProperties: false },
  ),
]);

const ScrollBodySchema = Type.Object(
  {
    offset: Type.Optional(Type.Union([PointIdSchema, Type.Null()])),
    limit: Type.Optional(Type.Union([LimitSchema, Type.Null()])),
    filter: Type.Optional(Type.Unknown()),
    with_payload: Type.Optional(WithPayloadSchema),
    with_vector: Type.Optional(WithVectorSchema),
    with_vectors: Type.Optional(WithVectorSchema),
    order_by: Type.Optional(Type.Union([OrderBySchema, Type.Null()])),
    shard_key: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false },
);
type ScrollBody = Static<typeof ScrollBodySchema>;

function parseOffset(value: unknown): PointId | undefined {
  if (value === undefined || value === null) return undefined;
  try {
    return parsePointId(value);
  } catch (error) {
    throw errors.invalidField('offset', (error as Error).message);
  }
}

function parseOrderBy(value: ScrollBody['order_by']): OrderBy | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return { key: value, direction: 'asc', startFrom: undefined };
  return { key: value.key, direction: value.direction ?? 'asc', startFrom: value.start_from ?? undefined };
}

export function registerScrollRoutes(app: FastifyInstance): void {
  const maxLimit = app.quiverConfig.limits.max_search_limit;
  app.post<{ Params: CollectionParams; Body: ScrollBody }>(
    '/collections/:collection_name/points/scroll',
    { config: routeSettings({ permission: 'read' }), schema: { params: CollectionParamsSchema, querystring: ReadQuerySchema, body: ScrollBodySchema } },
    async (request, reply) => {
      const body = request.body;
      const limit = clampLimit(body.limit ?? 10, maxLimit);
      const collection = app.collections.get(request.params.collection_name);
      const result = scroll(collection, {
        offset: parseOffset(body.offset),
        limit,
        filter: body.filter,
        orderBy: parseOrderBy(body.order_by),
        payload: payloadSelection(body.with_payload, true),
        vector: vectorSelection(body.with_vector ?? body.with_vectors, false),
      });
      return success(reply, result);
    },
  );
}
