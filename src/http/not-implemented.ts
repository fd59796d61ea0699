// Routes Qdrant has and QuiverDB does not serve: each answers 501 with the error envelope naming
// the feature, after the same readiness and permission checks as any route, so a Qdrant client
// learns "not here" instead of a 404 that reads like a missing collection. docs/api.md §9 lists
// the groups; docs/api.md §11 has the table of every Qdrant v1.19 route (a test keeps
// the two in step).
import type { FastifyInstance, HTTPMethods } from 'fastify';
import { errors } from '../errors.js';
import { routeSettings, type Permission } from './route-config.js';

/**
 * `spec`: the contract says 501 (the groups of docs/api.md §9). `later`: not built yet; the
 * route is listed so that clients get an honest answer until it is.
 */
export type NotImplementedReason = 'spec' | 'later';

export interface NotImplementedRoute {
  method: HTTPMethods;
  url: string;
  feature: string;
  permission: Permission;
  reason: NotImplementedReason;
  /** Answers while the engine is still loading, as the health check does (the probes). */
  beforeReady?: boolean;
}

const C = '/collections/:collection_name';

// Server-wide routes (cluster, quotas, issues, telemetry, full snapshots) show or change the
// whole server, not one collection: they need the admin permission.
export const notImplementedRoutes: readonly NotImplementedRoute[] = [
  // Aliases (docs/api.md §9).
  { method: 'GET', url: '/aliases', feature: 'Aliases', permission: 'read', reason: 'spec' },
  { method: 'POST', url: '/aliases', feature: 'Aliases', permission: 'write', reason: 'spec' },
  // Qdrant clients update aliases at this path; same group, same answer.
  { method: 'POST', url: '/collections/aliases', feature: 'Aliases', permission: 'write', reason: 'spec' },
  { method: 'GET', url: `${C}/aliases`, feature: 'Aliases', permission: 'read', reason: 'spec' },

  // Snapshots (docs/api.md §9): collection, full-storage and shard snapshots alike.
  { method: 'POST', url: `${C}/snapshots`, feature: 'Snapshots', permission: 'write', reason: 'spec' },
  { method: 'GET', url: `${C}/snapshots`, feature: 'Snapshots', permission: 'read', reason: 'spec' },
  { method: 'GET', url: `${C}/snapshots/:snapshot_name`, feature: 'Snapshots', permission: 'read', reason: 'spec' },
  { method: 'DELETE', url: `${C}/snapshots/:snapshot_name`, feature: 'Snapshots', permission: 'write', reason: 'spec' },
  { method: 'PUT', url: `${C}/snapshots/:snapshot_name/recover`, feature: 'Snapshots', permission: 'write', reason: 'spec' },
  { method: 'PUT', url: `${C}/snapshots/recover`, feature: 'Snapshots', permission: 'write', reason: 'spec' },
  { method: 'POST', url: `${C}/snapshots/upload`, feature: 'Snapshots', permission: 'write', reason: 'spec' },
  { method: 'GET', url: '/snapshots', feature: 'Snapshots', permission: 'admin', reason: 'spec' },
  { method: 'POST', url: '/snapshots', feature: 'Snapshots', permission: 'admin', reason: 'spec' },
  { method: 'GET', url: '/snapshots/:snapshot_name', feature: 'Snapshots', permission: 'admin', reason: 'spec' },
  { method: 'DELETE', url: '/snapshots/:snapshot_name', feature: 'Snapshots', permission: 'admin', reason: 'spec' },
  { method: 'GET', url: `${C}/shards/:shard_id/snapshot`, feature: 'Snapshots', permission: 'read', reason: 'spec' },
  { method: 'GET', url: `${C}/shards/:shard_id/snapshots`, feature: 'Snapshots', permission: 'read', reason: 'spec' },
  { method: 'POST', url: `${C}/shards/:shard_id/snapshots`, feature: 'Snapshots', permission: 'write', reason: 'spec' },
  { method: 'GET', url: `${C}/shards/:shard_id/snapshots/:snapshot_name`, feature: 'Snapshots', permission: 'read', reason: 'spec' },
  { method: 'DELETE', url: `${C}/shards/:shard_id/snapshots/:snapshot_name`, feature: 'Snapshots', permission: 'write', reason: 'spec' },
  { method: 'PUT', url: `${C}/shards/:shard_id/snapshots/recover`, feature: 'Snapshots', permission: 'write', reason: 'spec' },
  { method: 'POST', url: `${C}/shards/:shard_id/snapshots/upload`, feature: 'Snapshots', permission: 'write', reason: 'spec' },

  // Maintenance operations and collection status (docs/api.md §9).
  { method: 'POST', url: `${C}/operations/flush`, feature: 'Maintenance operations', permission: 'write', reason: 'spec' },
  { method: 'POST', url: `${C}/operations/optimize`, feature: 'Maintenance operations', permission: 'write', reason: 'spec' },
  { method: 'POST', url: `${C}/operations/rebuild_index`, feature: 'Maintenance operations', permission: 'write', reason: 'spec' },
  { method: 'GET', url: `${C}/status`, feature: 'Collection status', permission: 'read', reason: 'spec' },

  // Groups, recommendations, discovery (docs/api.md §9); the last two stay reachable through /points/query.
  { method: 'POST', url: `${C}/points/search/groups`, feature: 'Grouped search', permission: 'read', reason: 'spec' },
  { method: 'POST', url: `${C}/points/query/groups`, feature: 'Grouped search', permission: 'read', reason: 'spec' },
  { method: 'POST', url: `${C}/points/recommend`, feature: 'Recommendations', permission: 'read', reason: 'spec' },
  { method: 'POST', url: `${C}/points/recommend/batch`, feature: 'Recommendations', permission: 'read', reason: 'spec' },
  { method: 'POST', url: `${C}/points/recommend/groups`, feature: 'Recommendations', permission: 'read', reason: 'spec' },
  { method: 'POST', url: `${C}/points/discover`, feature: 'Discovery', permission: 'read', reason: 'spec' },
  { method: 'POST', url: `${C}/points/discover/batch`, feature: 'Discovery', permission: 'read', reason: 'spec' },

  // Point and collection operations not built yet.

  // Distributed mode: one node has no cluster, shards or shard keys to manage.
  { method: 'GET', url: `${C}/cluster`, feature: 'Distributed mode', permission: 'read', reason: 'later' },
  { method: 'POST', url: `${C}/cluster`, feature: 'Distributed mode', permission: 'write', reason: 'later' },
  { method: 'GET', url: `${C}/shards`, feature: 'Shard keys', permission: 'read', reason: 'later' },
  { method: 'PUT', url: `${C}/shards`, feature: 'Shard keys', permission: 'write', reason: 'later' },
  { method: 'POST', url: `${C}/shards/delete`, feature: 'Shard keys', permission: 'write', reason: 'later' },
  { method: 'GET', url: '/cluster', feature: 'Distributed mode', permission: 'admin', reason: 'later' },
  { method: 'GET', url: '/cluster/telemetry', feature: 'Distributed mode', permission: 'admin', reason: 'later' },
  { method: 'POST', url: '/cluster/recover', feature: 'Distributed mode', permission: 'admin', reason: 'later' },
  { method: 'DELETE', url: '/cluster/peer/:peer_id', feature: 'Distributed mode', permission: 'admin', reason: 'later' },

  // Service routes.
  { method: 'GET', url: '/issues', feature: 'Issues report', permission: 'admin', reason: 'later' },
  { method: 'DELETE', url: '/issues', feature: 'Issues report', permission: 'admin', reason: 'later' },
  { method: 'GET', url: '/quotas', feature: 'Quotas', permission: 'admin', reason: 'later' },
  { method: 'PUT', url: '/quotas', feature: 'Quotas', permission: 'admin', reason: 'later' },
];

export function registerNotImplementedRoutes(app: FastifyInstance): void {
  for (const route of notImplementedRoutes) {
    app.route({
      method: route.method,
      url: route.url,
      config: routeSettings({ permission: route.permission, ...(route.beforeReady ? { beforeReady: true } : {}) }),
      handler: async () => {
        throw errors.notImplemented(route.feature);
      },
    });
  }
}
