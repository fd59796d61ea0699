// `GET /`: the health check. Never 412 and not enveloped (docs/api.md §3).
import type { FastifyInstance } from 'fastify';
import { apiVersion, buildCommit, packageVersion } from '../version.js';
import { routeSettings } from './route-config.js';

export function registerHealthRoutes(app: FastifyInstance): void {
  const body = { title: 'quiverdb - vector search engine', version: apiVersion, ...(buildCommit ? { commit: buildCommit } : {}) };
  app.get('/', { config: routeSettings({ permission: 'public', beforeReady: true }) }, async (_request, reply) => {
    reply.header('x-quiverdb-version', packageVersion);
    // The store's health once it is open (docs/durability.md): free space, refused writes, reopens, a torn log.
    const storage = await app.engine.storageStatus();
    return storage ? { ...body, storage } : body;
  });
}
