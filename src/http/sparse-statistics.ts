// `POST C/points/sparse-statistics`: cluster mode's internal read of a shard's IDF statistics
// (docs/architecture.md §13, docs/api.md §16): for a sparse vector name and some indices, how
// many live points hold the vector and how many of them hold each index. A coordinator sums the
// shards' answers and sends them back as `cluster_idf_statistics` (./cluster-options.ts). Not a
// Qdrant route: only in-process requests (src/auth/internal-request.ts) may call it.
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { isInternalRequest } from '../auth/internal-request.js';
import { errors } from '../errors.js';
import { CollectionParamsSchema, type CollectionParams } from '../points/request-schemas.js';
import { success } from './envelope.js';
import { routeSettings } from './route-config.js';

/** As many indices as one sparse query may hold in practice; bounded so the read stays small. */
const maxIndices = 65_536;

const SparseStatisticsRequest = Type.Object(
  { using: Type.String(), indices: Type.Array(Type.Integer({ minimum: 0, maximum: 4_294_967_295 }), { maxItems: maxIndices }) },
  { additionalProperties: false },
);

export function registerSparseStatisticsRoutes(app: FastifyInstance): void {
  app.post<{ Params: CollectionParams; Body: Static<typeof SparseStatisticsRequest> }>(
    '/collections/:collection_name/points/sparse-statistics',
    { config: routeSettings({ permission: 'read' }), schema: { params: CollectionParamsSchema, body: SparseStatisticsRequest } },
    async (request, reply) => {
      if (!isInternalRequest(request)) throw errors.forbidden('sparse-statistics is internal to cluster mode');
      const collection = app.collections.get(request.params.collection_name);
      collection.assertOperable();
      const { using, indices } = request.body;
      if (!collection.sparse.isSparse(using)) throw errors.invalidBodyField('using', `${JSON.stringify(using)} is not a sparse vector of this collection`);
      const index = collection.sparse.index(using);
      return success(reply, { document_count: index.stats().count, document_frequencies: [...index.documentFrequencies(Uint32Array.from(indices))] });
    },
  );
}
