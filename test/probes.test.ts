// The Kubernetes probes (docs/api.md §13.1): plain text in Qdrant's words, never behind auth,
// never 412; /readyz follows the engine (503 while loading and while closing, 200 when ready).
import { rm } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { createTestApp } from './support/app.js';
import { createAuthApp } from './support/auth.js';
import { startServer, dataDirectoriesForFile } from './support/server.js';

const newDirectory = dataDirectoriesForFile();

describe('probes', () => {
  it('probes — while the engine loads, healthz and livez pass, readyz is 503 and other routes are 412', async () => {
    const { app, dispose } = await createTestApp({ open: false });
    try {
      for (const url of ['/healthz', '/livez']) {
        const response = await app.inject({ method: 'GET', url });
        expect(response.statusCode).toBe(200);
        expect(response.body).toBe('healthz check passed');
        expect(response.headers['content-type']).toMatch(/^text\/plain/);
      }
      const notReady = await app.inject({ method: 'GET', url: '/readyz' });
      expect(notReady.statusCode).toBe(503);
      expect(notReady.body).toBe('some shards are not ready');
      expect(notReady.headers['content-type']).toMatch(/^text\/plain/);
      expect((await app.inject({ method: 'GET', url: '/collections' })).statusCode).toBe(412);

      await app.engine.open();
      const ready = await app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode).toBe(200);
      expect(ready.body).toBe('all shards are ready');
      expect(ready.headers['content-type']).toMatch(/^text\/plain/);
    } finally {
      await dispose();
    }
  });

  it('probes — with auth on they answer without a credential, before and after loading', async () => {
    const { app, dispose } = await createAuthApp({ open: false });
    try {
      expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
      expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(503);
      await app.engine.open();
      for (const url of ['/healthz', '/livez', '/readyz']) {
        const response = await app.inject({ method: 'GET', url, headers: { authorization: 'Bearer not-a-token' } });
        expect(response.statusCode).toBe(200);
      }
      expect((await app.inject({ method: 'GET', url: '/collections' })).statusCode).toBe(401);
    } finally {
      await dispose();
    }
  });

  it('probes — once the server starts closing, readyz is 503 in plain text, not the envelope', async () => {
    const { app, directory } = await createTestApp();
    await app.ready();
    expect(app.engine.isReady).toBe(true);
    const closed = app.close();
    const readiness = await app.inject({ method: 'GET', url: '/readyz' });
    await closed;
    await rm(directory, { recursive: true, force: true });
    expect(readiness.statusCode).toBe(503);
    expect(readiness.body).toBe('some shards are not ready');
  });

  it('probes — over real HTTP and through the official client, HEAD and GET answer and the body is the bare text', async () => {
    const server = await startServer(await newDirectory());
    try {
      const response = await fetch(`${server.url}/readyz`);
      expect(response.status).toBe(200);
      expect(await response.text()).toBe('all shards are ready');
      const head = await fetch(`${server.url}/livez`, { method: 'HEAD' });
      expect(head.status).toBe(200);
      // The official client's probe calls.
      expect((await server.client.api().healthz({})).status).toBe(200);
      expect((await server.client.api().livez({})).status).toBe(200);
      const ready = await server.client.api().readyz({});
      expect(ready.status).toBe(200);
      expect(ready.data).toBe('all shards are ready');
    } finally {
      await server.close();
    }
  });
});
