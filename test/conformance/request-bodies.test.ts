// Bodies the server cannot read (docs/api.md §1, §8): too large, not JSON, missing — each a 400
// in the error envelope.
import { describe, expect, it } from 'vitest';
import { createTestApp } from '../support/app.js';

describe('request bodies (docs/api.md §1: every client input error is a 400)', () => {
  it('a body over the size limit, a non-JSON content type and an empty required body are 400s with the error envelope', async () => {
    const small = await createTestApp({ overrides: { service: { max_request_size_mb: 0.001 } } });
    try {
      await small.app.inject({ method: 'PUT', url: '/collections/c', payload: { vectors: { size: 2, distance: 'Dot' } } });
      const points = Array.from({ length: 100 }, (_, id) => ({ id, vector: [1, 2] }));
      const tooLarge = await small.app.inject({ method: 'PUT', url: '/collections/c/points?wait=true', payload: { points } });
      expect(tooLarge.statusCode).toBe(400);
      expect(tooLarge.json()).toEqual({ time: expect.any(Number), status: { error: 'Request body is larger than the limit of 1048 bytes' } });
      const plain = await small.app.inject({ method: 'POST', url: '/collections/c/points/count', payload: '{}', headers: { 'content-type': 'text/plain' } });
      expect(plain.statusCode).toBe(400);
      expect(plain.json().status.error).toMatch(/Content-Type/);
      const empty = await small.app.inject({ method: 'PUT', url: '/collections/c/points', headers: { 'content-type': 'application/json' } });
      expect(empty.statusCode).toBe(400);
      expect(empty.json().status.error).toMatch(/body/);
      expect((await small.app.inject({ method: 'POST', url: '/collections/c/points/count', payload: {} })).json().result).toEqual({ count: 0 });
    } finally {
      await small.dispose();
    }
  });
});
