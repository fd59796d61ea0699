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
  // A callback hook (fastify passes a synchronous throw on as the request's error): an async
  // one would cost every request a promise and a microtask for a check that never waits.
  app.addHook('onRequest', (request, _reply, done) => {
    if (closing && !request.routeOptions.config?.quiver?.probe) throw errors.shuttingDown();
    if (!request.is404 && !request.routeOptions.config?.quiver?.beforeReady) engine.assertReady();
    done();
  });
  return () => closing;
}
