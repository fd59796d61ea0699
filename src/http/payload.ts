// Payload routes (docs/api.md §3): set (merge), overwrite, delete keys, clear. Handlers only parse;
// src/payload/operations.ts does the edits and the Collection writes them atomically.
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { errors } from '../errors.js';
import { clearPayload, deletePayloadKeys, overwritePayload, setPayload } from '../payload/operations.js';
import type { Payload } from '../payload/path.js';
import { keyPath, missingPolicy } from '../points/batch-request.js';
import { CollectionParamsSchema, PointSelectorFields, WriteQuerySchema, type CollectionParams, type WriteQuery } from '../points/request-schemas.js';
import { success } from './envelope.js';
import { parsePointSelector } from './points.js';
import { routeSettings } from './route-config.js';

const strict = { additionalProperties: false } as const;

const SetPayloadBodySchema = Type.Object(
  {
    payload: Type.Record(Type.String(), Type.Unknown()),
    key: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    ...PointSelectorFields,
  },
  strict,
);
type SetPayloadBody = Static<typeof SetPayloadBodySchema>;

const DeletePayloadBodySchema = Type.Object(
  {
    keys: Type.Array(Type.String()),
    ...PointSelectorFields,
  },
  strict,
);
type DeletePayloadBody = Static<typeof DeletePayloadBodySchema>;

const ClearPayloadBodySchema = Type.Object(
  {
    ...PointSelectorFields,
  },
  strict,
);
type ClearPayloadBody = Static<typeof ClearPayloadBodySchema>;


export function registerPayloadRoutes(app: FastifyInstance): void {
  const writeRoute = { config: routeSettings({ permission: 'write' }) };

  for (const method of ['POST', 'PUT'] as const) {
    app.route<{ Params: CollectionParams; Querystring: WriteQuery; Body: SetPayloadBody }>({
      method,
      url: '/collections/:collection_name/points/payload',
      ...writeRoute,
      schema: { params: CollectionParamsSchema, querystring: WriteQuerySchema, body: SetPayloadBodySchema },
      handler: async (request, reply) => {
        const collection = app.collections.get(request.params.collection_name);
        const selector = parsePointSelector(request.body);
        const key = request.body.key === undefined || request.body.key === null ? undefined : keyPath(request.body.key, 'key');
        const patch = request.body.payload as Payload;
        const transform = method === 'POST' ? (payload: Payload) => setPayload(payload, patch, key) : (payload: Payload) => overwritePayload(payload, patch, key);
        const result = await collection.updatePayloads(selector, transform, { wait: request.query.wait ?? false, missing: missingPolicy(selector) });
        return success(reply, result);
      },
    });
  }

  app.post<{ Params: CollectionParams; Querystring: WriteQuery; Body: DeletePayloadBody }>(
    '/collections/:collection_name/points/payload/delete',
    { ...writeRoute, schema: { params: CollectionParamsSchema, querystring: WriteQuerySchema, body: DeletePayloadBodySchema } },
    async (request, reply) => {
      // docs/api.md §3.3: only listed ids; filter-based targeting is unavailable for this operation.
      if (request.body.filter !== undefined) throw errors.invalidField('filter', 'deleting payload keys takes "points" (ids) only: filter-based targeting is unavailable for this operation');
      if (request.body.points === undefined) throw errors.invalidInput('Validation error in body points: missing required field');
      const collection = app.collections.get(request.params.collection_name);
      const keys = request.body.keys.map((key, position) => keyPath(key, `keys[${position}]`));
      const selector = parsePointSelector({ points: request.body.points });
      const result = await collection.updatePayloads(selector, (payload) => deletePayloadKeys(payload, keys), { wait: request.query.wait ?? false, missing: 'not_found' });
      return success(reply, result);
    },
  );

  app.post<{ Params: CollectionParams; Querystring: WriteQuery; Body: ClearPayloadBody }>(
    '/collections/:collection_name/points/payload/clear',
    { ...writeRoute, schema: { params: CollectionParamsSchema, querystring: WriteQuerySchema, body: ClearPayloadBodySchema } },
    async (request, reply) => {
      const collection = app.collections.get(request.params.collection_name);
      const selector = parsePointSelector(request.body);
      const result = await collection.updatePayloads(selector, clearPayload, { wait: request.query.wait ?? false, missing: missingPolicy(selector) });
      return success(reply, result);
    },
  );
}
