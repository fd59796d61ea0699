// Before the engine has opened (docs/api.md §1): every collection and point route answers 412
// Engine not initialized; GET / still answers.
import { describe, expect, it } from 'vitest';
import { createTestApp } from '../support/app.js';

describe('engine not initialized (docs/api.md §1.2)', () => {
  it('every collection and point route answers 412 Engine not initialized; GET / answers 200', async () => {
    const loading = await createTestApp({ open: false });
    try {
      const routes: [string, string, unknown?][] = [
        ['GET', '/collections'],
        ['GET', '/collections/any'],
        ['PUT', '/collections/any', { vectors: { size: 2, distance: 'Dot' } }],
        ['PATCH', '/collections/any', {}],
        ['DELETE', '/collections/any'],
        ['GET', '/collections/any/exists'],
        ['PUT', '/collections/any/points', { points: [] }],
        ['POST', '/collections/any/points', { ids: [1] }],
        ['GET', '/collections/any/points/1'],
        ['POST', '/collections/any/points/delete', { points: [1] }],
        ['PUT', '/collections/any/points/vectors', { points: [{ id: 1, vector: [1, 2] }] }],
        ['POST', '/collections/any/points/payload', { payload: {}, points: [1] }],
        ['PUT', '/collections/any/points/payload', { payload: {}, points: [1] }],
        ['POST', '/collections/any/points/payload/delete', { keys: ['a'], points: [1] }],
        ['POST', '/collections/any/points/payload/clear', { points: [1] }],
        ['PUT', '/collections/any/index', { field_name: 'a' }],
        ['DELETE', '/collections/any/index/a'],
        ['POST', '/collections/any/points/count', {}],
        ['POST', '/collections/any/points/search', { vector: [1, 2], limit: 1 }],
        ['POST', '/collections/any/points/search/batch', { searches: [] }],
        ['POST', '/collections/any/points/query', {}],
        ['POST', '/collections/any/points/query/batch', { searches: [] }],
        ['POST', '/collections/any/points/scroll', {}],
      ];
      for (const [method, url, body] of routes) {
        const response = await loading.app.inject({ method: method as 'GET', url, ...(body === undefined ? {} : { payload: body as object }) });
        expect(`${method} ${url} ${response.statusCode}`).toBe(`${method} ${url} 412`);
        expect(response.json()).toEqual({ time: expect.any(Number), status: { error: 'Engine not initialized' } });
      }
      expect((await loading.app.inject({ method: 'GET', url: '/' })).statusCode).toBe(200);
    } finally {
      await loading.dispose();
    }
  });
});
