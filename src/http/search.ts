// `POST C/points/search` and `C/points/search/batch` (docs/api.md §3): thin handlers over the query
// executor; the request becomes a QueryPlan with one nearest query.
import type { FastifyInstance } from 'fastify';
import { CollectionParamsSchema, ReadQuerySchema, type CollectionParams } from '../points/request-schemas.js';
import { searchEnvironment, requestLimits } from '../search/environment.js';
import { searchBatchPlans, searchPlan } from '../search/request.js';
import { SearchBatchRequest, SearchRequest, type SearchBatchBody, type SearchRequestBody } from '../search/schemas.js';
import { runPlan, runPlans } from '../search/service.js';
import { refuseClusterOptionsFromClients } from './cluster-options.js';
import { success } from './envelope.js';
import { routeSettings } from './route-config.js';

export function registerSearchRoutes(app: FastifyInstance): void {
  const environment = searchEnvironment(app);
  const limits = requestLimits(app.quiverConfig);

  app.post<{ Params: CollectionParams; Body: SearchRequestBody }>(
    '/collections/:collection_name/points/search',
    { config: routeSettings({ permission: 'read' }), schema: { params: CollectionParamsSchema, querystring: ReadQuerySchema, body: SearchRequest } },
    async (request, reply) => {
      refuseClusterOptionsFromClients(request, request.body as Record<string, unknown>);
      const plan = searchPlan(request.body, limits);
      const collection = app.collections.get(request.params.collection_name);
      return success(reply, await runPlan(collection, environment, plan));
    },
  );

  app.post<{ Params: CollectionParams; Body: SearchBatchBody }>(
    '/collections/:collection_name/points/search/batch',
    { config: routeSettings({ permission: 'read' }), schema: { params: CollectionParamsSchema, querystring: ReadQuerySchema, body: SearchBatchRequest } },
    async (request, reply) => {
      refuseClusterOptionsFromClients(request, request.body as Record<string, unknown>);
      const plans = searchBatchPlans(request.body, limits);
      const collection = app.collections.get(request.params.collection_name);
      return success(reply, await runPlans(collection, environment, plans));
    },
  );
}
