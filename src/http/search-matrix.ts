// `POST C/points/search/matrix/pairs` and `C/points/search/matrix/offsets` (docs/api.md §3): thin
// handlers over the search-matrix service; the two differ only in how the matrix is written.
import type { FastifyInstance } from 'fastify';
import { CollectionParamsSchema, ReadQuerySchema, type CollectionParams } from '../points/request-schemas.js';
import { matrixOffsets, matrixPairs, searchMatrix, type SearchMatrix } from '../search/search-matrix.js';
import { SearchMatrixBodySchema, searchMatrixRequest, type SearchMatrixBody } from '../search/search-matrix-schema.js';
import { success } from './envelope.js';
import { routeSettings } from './route-config.js';

const formats: Record<'pairs' | 'offsets', (matrix: SearchMatrix) => unknown> = { pairs: matrixPairs, offsets: matrixOffsets };

export function registerSearchMatrixRoutes(app: FastifyInstance): void {
  const maxLimit = app.quiverConfig.limits.max_search_limit;
  for (const [format, write] of Object.entries(formats)) {
    app.post<{ Params: CollectionParams; Body: SearchMatrixBody }>(
      `/collections/:collection_name/points/search/matrix/${format}`,
      { config: routeSettings({ permission: 'read' }), schema: { params: CollectionParamsSchema, querystring: ReadQuerySchema, body: SearchMatrixBodySchema } },
      async (request, reply) => {
        const matrix = searchMatrixRequest(request.body, maxLimit);
        const collection = app.collections.get(request.params.collection_name);
        return success(reply, write(await searchMatrix(collection, matrix)));
      },
    );
  }
}
