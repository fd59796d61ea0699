// A collection name longer than the configured maximum can never exist: every route that names
// one answers the 400 that creating it would get, not a 404 (docs/api.md §4).
import type { FastifyInstance } from 'fastify';
import { validateCollectionName } from '../engine/collection-name.js';

export function registerCollectionNameGuard(app: FastifyInstance): void {
  const maximumLength = app.quiverConfig.limits.max_collection_name_length;
  // A callback hook: it never waits, and an async one costs every request a promise.
  app.addHook('preValidation', (request, _reply, done) => {
    const name = (request.params as { collection_name?: unknown } | undefined)?.collection_name;
    // Only the length: other rules of the name stay the create route's own.
    // A name has no more code points than UTF-16 units: only a long one is counted out.
    if (typeof name === 'string' && name.length > maximumLength && [...name].length > maximumLength) validateCollectionName(name, maximumLength);
    done();
  });
}
