// The endpoint groups the spec lists as not implemented (spec §4.6): each answers 501 with the
// error envelope, after the same readiness and permission checks as any route.
import type { FastifyInstance, HTTPMethods } from 'fastify';
import { errors } from '../errors.js';
import { routeSettings, type Permission } from './route-config.js';

interface NotImplementedRoute {
  method: HTTPMethods;
  url: string;
  feature: string;
  permission: Permission;
}

export const notImplementedRoutes: readonly NotImplementedRoute[] = [
  { method: 'GET', url: '/aliases', feature: 'Aliases', permission: 'read' },
  { method: 'POST', url: '/aliases', feature: 'Aliases', permission: 'write' },
  // Qdrant clients update aliases at this path; same group, same answer.
  { method: 'POST', url: '/collections/aliases', feature: 'Aliases', permission: 'write' },
  { method: 'GET', url: '/collections/:collection_name/aliases', feature: 'Aliases', permission: 'read' },
  { method: 'POST', url: '/collections/:collection_name/snapshots', feature: 'Snapshots', permission: 'write' },
  { method: 'GET', url: '/collections/:collection_name/snapshots', feature: 'Snapshots', permission: 'read' },
  { method: 'DELETE', url: '/collections/:collection_name/snapshots/:snapshot_name', feature: 'Snapshots', permission: 'write' },
  { method: 'PUT', url: '/collections/:collection_name/snapshots/:snapshot_name/recover', feature: 'Snapshots', permission: 'write' },
  { method: 'POST', url: '/collections/:collection_name/operations/flush', feature: 'Maintenance operations', permission: 'write' },
  { method: 'POST', url: '/collections/:collection_name/operations/optimize', feature: 'Maintenance operations', permission: 'write' },
  { method: 'POST', url: '/collections/:collection_name/operations/rebuild_index', feature: 'Maintenance operations', permission: 'write' },
  { method: 'GET', url: '/collections/:collection_name/status', feature: 'Collection status', permission: 'read' },
  { method: 'POST', url: '/collections/:collection_name/points/search/groups', feature: 'Grouped search', permission: 'read' },
  { method: 'POST', url: '/collections/:collection_name/points/query/groups', feature: 'Grouped search', permission: 'read' },
  { method: 'POST', url: '/collections/:collection_name/points/recommend', feature: 'Recommendations', permission: 'read' },
  { method: 'POST', url: '/collections/:collection_name/points/recommend/batch', feature: 'Recommendations', permission: 'read' },
  { method: 'POST', url: '/collections/:collection_name/points/recommend/groups', feature: 'Recommendations', permission: 'read' },
  { method: 'POST', url: '/collections/:collection_name/points/discover', feature: 'Discovery', permission: 'read' },
  { method: 'POST', url: '/collections/:collection_name/points/discover/batch', feature: 'Discovery', permission: 'read' },
];

export function registerNotImplementedRoutes(app: FastifyInstance): void {
  for (const route of notImplementedRoutes) {
    app.route({
      method: route.method,
      url: route.url,
      config: routeSettings({ permission: route.permission }),
      handler: async () => {
        throw errors.notImplemented(route.feature);
      },
    });
  }
}
