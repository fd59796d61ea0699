// Tells the inline-search gate (src/native/inline-search.ts) as each request begins, REST and
// gRPC alike (the gRPC door's calls run through the REST routes): a search for a request that
// began in the same turn of the event loop as one already searched inline goes to the kernel
// pool, so that several clients at once get both cores.
import type { FastifyInstance } from 'fastify';

export function registerRequestArrivals(app: FastifyInstance, begun: () => void): void {
  // A callback hook, not an async one: it runs on every request and adds no promise to it.
  app.addHook('onRequest', (_request, _reply, done) => {
    begun();
    done();
  });
}
