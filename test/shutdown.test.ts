// A request that arrives while the server closes is answered in the contract's envelope (503
// with Retry-After), never with fastify's own body.
import { rm } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { createTestApp } from './support/app.js';

describe('shutdown', () => {
  it('closing — a request that arrives while the server closes is a 503 in the envelope with Retry-After', async () => {
    const { app, directory } = await createTestApp();
    await app.ready();
    const closed = app.close();
    const response = await app.inject({ method: 'GET', url: '/collections' });
    await closed;
    await rm(directory, { recursive: true, force: true });
    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBe('1');
    expect(response.json()).toMatchObject({ status: { error: 'Service unavailable: the server is shutting down' } });
  });
});
