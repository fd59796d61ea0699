// `POST C/points/query` and `C/points/query/batch` (docs/api.md §3, §5): the universal query API.
import type { FastifyInstance } from 'fastify';
import { CollectionParamsSchema, ReadQuerySchema, type CollectionParams } from '../points/request-schemas.js';
import { requestLimits, searchEnvironment } from '../search/environment.js';
import { queryBatchPlans, queryPlan } from '../search/request.js';
import { QueryBatchRequest, QueryRequest, type QueryBatchBody, type QueryRequestBody } from '../search/schemas.js';
import { runPlan, runPlans } from '../search/service.js';
import { refuseClusterOptionsFromClients } from './cluster-options.js';
import { success } from './envelope.js';
import { routeSettings } from './route-config.js';

export function registerQueryRoutes(app: FastifyInstance): void {
  const environment = searchEnvironment(app);
  const limits = requestLimits(app.quiverConfig);

  app.post<{ Params: CollectionParams; Body: QueryRequestBody }>(
    '/collections/:collection_name/points/query',
    { config: routeSettings({ permission: 'read' }), schema: { params: CollectionParamsSchema, querystring: ReadQuerySchema, body: QueryRequest } },
    async (request, reply) => {
      refuseClusterOptionsFromClients(request, request.body as Record<string, unknown>);
      const plan = queryPlan(request.body, limits);
      const collection = app.collections.get(request.params.collection_name);
      return success(reply, { points: await runPlan(collection, environment, plan) });
    },
  );

  app.post<{ Params: CollectionParams; Body: QueryBatchBody }>(
    '/collections/:collection_name/points/query/batch',
    { config: routeSettings({ permission: 'read' }), schema: { params: CollectionParamsSchema, querystring: ReadQuerySchema, body: QueryBatchRequest } },
    async (request, reply) => {
      refuseClusterOptionsFromClients(request, request.body as Record<string, unknown>);
      const plans = queryBatchPlans(request.body, limits);
      const collection = app.collections.get(request.params.collection_name);
      const answers = await runPlans(collection, environment, plans);
      return success(reply, answers.map((points) => ({ points })));
    },
  );
}
