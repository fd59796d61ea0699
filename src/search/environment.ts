// What the search services need from the running server: other collections (lookup_from), the
// filter planner, and the configured limits.
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { QueryEnvironment } from './query-environment.js';
import { allowedSlots } from './filter-bridge.js';
import type { RequestLimits } from './request.js';

export function searchEnvironment(app: FastifyInstance): QueryEnvironment {
  return {
    collectionNamed: (name) => app.collections.get(name),
    allowedSlots,
  };
}

export function requestLimits(config: Config): RequestLimits {
  return {
    maxLimit: config.limits.max_search_limit,
    maxBatch: config.limits.max_batch_searches,
    maxPrefetchDepth: 8,
    maxExamples: 1_024,
    maxPrefetches: 64,
  };
}
