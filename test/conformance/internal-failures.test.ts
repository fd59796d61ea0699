// Unexpected failures inside an operation (docs/api.md §1): a 500 whose message starts with the
// operation's name, and the collection still usable afterwards.
import { describe, it } from 'vitest';
import { expectError, expectSuccess } from '../support/envelope.js';
import { serverForFile } from '../support/server.js';

const server = serverForFile();

describe('internal failures (docs/api.md §1.3: 500 messages start with the operation)', () => {
  it.each([
    ['upsert', 'PUT', 'points?wait=true', { points: [{ id: 1, vector: [1, 2] }] }, 'Upsert failed: disk on fire'],
    ['retrieve', 'POST', 'points', { ids: [1] }, 'Search failed: disk on fire'],
    ['deletePoints', 'POST', 'points/delete?wait=true', { points: [1] }, 'Delete failed: disk on fire'],
    ['updatePayloads', 'POST', 'points/payload?wait=true', { payload: { a: 1 }, points: [1] }, 'Payload operation failed: disk on fire'],
    ['info', 'GET', '', undefined, 'Collection operation failed: disk on fire'],
  ] as const)('an unexpected throw in %s answers 500 "%s"', async (method, verb, path, body, message) => {
    const name = `boom-${method.toLowerCase()}`;
    expectSuccess(await server.request('PUT', `/collections/${name}`, { vectors: { size: 2, distance: 'Dot' } }));
    const collection = server.app.collections.get(name) as unknown as Record<string, unknown>;
    const original = collection[method];
    collection[method] = () => {
      throw new Error('disk on fire');
    };
    try {
      expectError(await server.request(verb, `/collections/${name}${path === '' ? '' : `/${path}`}`, body), 500, message);
    } finally {
      collection[method] = original;
    }
    expectSuccess(await server.request('GET', `/collections/${name}`));
  });
});
