// 412 `Engine not initialized` on every route that does not opt out, until loading is done.
import type { FastifyInstance } from 'fastify';
import type { Engine } from '../engine/engine.js';

export function registerReadinessGuard(app: FastifyInstance, engine: Engine): void {
  app.addHook('onRequest', async (request) => {
    if (request.is404) return;
    if (request.routeOptions.config?.quiver?.beforeReady) return;
    engine.assertReady();
  });
}
