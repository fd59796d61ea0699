// The Kubernetes probes (docs/api.md §13.1) in Qdrant's plain-text form: `/healthz` and `/livez`
// answer 200 as soon as the server listens; `/readyz` answers 503 until the engine has loaded
// every collection, 200 after, and 503 again once the server starts closing, so traffic moves
// away before the listener goes. Public even with auth on, never 412, never enveloped.
import type { FastifyInstance } from 'fastify';
import type { Engine } from '../engine/engine.js';
import { routeSettings } from './route-config.js';

const probeSettings = routeSettings({ permission: 'public', beforeReady: true, probe: true });
const plainText = 'text/plain; charset=utf-8';

export const livenessBody = 'healthz check passed';
export const readyBody = 'all shards are ready';
export const notReadyBody = 'some shards are not ready';

/** `isClosing`: from the readiness guard, which learns it first (readiness.ts). */
export function registerProbeRoutes(app: FastifyInstance, engine: Engine, isClosing: () => boolean): void {
  for (const url of ['/healthz', '/livez']) {
    app.get(url, { config: probeSettings }, async (_request, reply) => reply.type(plainText).send(livenessBody));
  }
  app.get('/readyz', { config: probeSettings }, async (_request, reply) => {
    const ready = !isClosing() && engine.state === 'ready';
    return reply
      .code(ready ? 200 : 503)
      .type(plainText)
      .send(ready ? readyBody : notReadyBody);
  });
}
