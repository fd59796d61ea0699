// Strict mode's per-request limits (docs/api.md §4.5): the `timeout` query parameter against
// max_timeout, and the read / write rate limits, for every route on a collection's points, indexes
// and searches. They belong to no single service, so one hook asks the collection's StrictMode
// (src/engine/strict-mode.ts) before the handler runs. The collection routes themselves (PUT,
// PATCH, GET, DELETE C) are left out, so a client can always read or relax the limits.
import type { FastifyInstance, FastifyRequest } from 'fastify';

const collectionPrefix = '/collections/:collection_name/';
/** Routes about the collection rather than its data. */
const unguarded = new Set([`${collectionPrefix}exists`, `${collectionPrefix}optimizations`]);

export function registerStrictModeGuard(app: FastifyInstance): void {
  // A callback hook: the checks never wait, and an async hook costs every request a promise.
  app.addHook('preHandler', (request, _reply, done) => {
    check(request);
    done();
  });

  function check(request: FastifyRequest): void {
    const url = request.routeOptions.url;
    const permission = request.routeOptions.config?.quiver?.permission;
    if (url === undefined || !url.startsWith(collectionPrefix) || unguarded.has(url) || (permission !== 'read' && permission !== 'write')) return;
    const name = (request.params as { collection_name?: unknown }).collection_name;
    if (typeof name !== 'string' || !app.collections.exists(name)) return;
    const strictMode = app.collections.get(name).strictMode;
    const timeout = (request.query as { timeout?: unknown } | undefined)?.timeout;
    strictMode.checkTimeout(typeof timeout === 'number' ? timeout : undefined);
    strictMode.checkRate(permission);
  }
}
