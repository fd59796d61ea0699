// qdrant.Qdrant/HealthCheck: the same title and version as REST's `GET /` (docs/api.md §3); it
// answers while the engine loads, as `GET /` does.
import type { ServiceHandlers } from '../transport.js';
import type { Qdrant } from '../descriptors.js';
import { apiVersion, buildCommit } from '../../version.js';

export function qdrantService(): ServiceHandlers<typeof Qdrant> {
  return {
    healthCheck() {
      return { title: 'quiverdb - vector search engine', version: apiVersion, ...(buildCommit ? { commit: buildCommit } : {}) };
    },
  };
}
