// `POST C/facet` (docs/api.md §3): a thin handler over the facet service.
import type { FastifyInstance } from 'fastify';
import { CollectionParamsSchema, ReadQuerySchema, type CollectionParams } from '../points/request-schemas.js';
import { facetCounts } from '../search/facet.js';
import { FacetBodySchema, facetRequest, type FacetBody } from '../search/facet-schema.js';
import { success } from './envelope.js';
import { routeSettings } from './route-config.js';

export function registerFacetRoutes(app: FastifyInstance): void {
  const maxLimit = app.quiverConfig.limits.max_search_limit;
  app.post<{ Params: CollectionParams; Body: FacetBody }>(
    '/collections/:collection_name/facet',
    { config: routeSettings({ permission: 'read' }), schema: { params: CollectionParamsSchema, querystring: ReadQuerySchema, body: FacetBodySchema } },
    async (request, reply) => {
      const facet = facetRequest(request.body, maxLimit);
      const collection = app.collections.get(request.params.collection_name);
      return success(reply, facetCounts(collection, facet));
    },
  );
}
