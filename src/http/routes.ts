// Registers every route module. Each resource has one file in src/http; add it here.
import type { FastifyInstance } from 'fastify';
import { registerAuthRoutes } from './auth.js';
import { registerBatchRoutes } from './batch.js';
import { registerCollectionNameGuard } from './collection-name-guard.js';
import { registerCollectionRoutes } from './collections.js';
import { registerCountRoutes } from './count.js';
import { registerFacetRoutes } from './facet.js';
import { registerHealthRoutes } from './health.js';
import { registerNotImplementedRoutes } from './not-implemented.js';
import { registerPayloadIndexRoutes } from './payload-index.js';
import { registerPayloadRoutes } from './payload.js';
import { registerPointRoutes } from './points.js';
import { registerQueryRoutes } from './query.js';
import { registerScrollRoutes } from './scroll.js';
import { registerSearchMatrixRoutes } from './search-matrix.js';
import { registerSearchRoutes } from './search.js';
import { registerSparseStatisticsRoutes } from './sparse-statistics.js';
import { registerStrictModeGuard } from './strict-mode-guard.js';
import { registerVectorNameRoutes } from './vector-names.js';

export function registerRoutes(app: FastifyInstance): void {
  registerCollectionNameGuard(app);
  registerStrictModeGuard(app);
  registerHealthRoutes(app);
  registerAuthRoutes(app);
  registerCollectionRoutes(app);
  registerVectorNameRoutes(app);
  registerPointRoutes(app);
  registerPayloadRoutes(app);
  registerBatchRoutes(app);
  registerPayloadIndexRoutes(app);
  registerCountRoutes(app);
  registerScrollRoutes(app);
  registerSearchRoutes(app);
  registerQueryRoutes(app);
  registerFacetRoutes(app);
  registerSearchMatrixRoutes(app);
  // Cluster mode's internal read (docs/architecture.md §13).
  registerSparseStatisticsRoutes(app);
  registerNotImplementedRoutes(app);
}
