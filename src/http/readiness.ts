// 412 `Engine not initialized` on every route that does not opt out, until loading is done.
import type { FastifyInstance } from 'fastify';
import type { Engine } from '../engine/engine.js';
import { errors } from '../errors.js';

/** Returns whether the server has started closing (the readiness probe reads it, docs/api.md §13.1). */
export function registerReadinessGuard(app: FastifyInstance, engine: Engine): () => boolean {
  // Requests that arrive while the server closes get a 503 in the envelope (fastify's own
  // return503OnClosing body is not), and Retry-After so clients try the restarted server.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async (request) => {
    if (closing && !request.routeOptions.config?.quiver?.probe) throw errors.shuttingDown();
    if (request.is404) return;
    if (request.routeOptions.config?.quiver?.beforeReady) return;
    engine.assertReady();
  });
  return () => closing;
}
