import { afterEach, describe, expect, it } from 'vitest';
import { routeSettings } from '../src/http/route-config.js';
import { notImplementedRoutes } from '../src/http/not-implemented.js';
import { createTestApp, type TestApp } from './support/app.js';

let current: TestApp | undefined;
afterEach(async () => {
  await current?.dispose();
  current = undefined;
});

function concreteUrl(template: string): string {
  return template.replace(':collection_name', 'books').replace(':snapshot_name', 'snap-1');
}

describe('GET / (health check)', () => {
  it('answers title, API version and commit, unenveloped, with our version header', async () => {
    current = await createTestApp();
    const response = await current.app.inject({ method: 'GET', url: '/' });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.title).toBe('quiverdb - vector search engine');
    expect(body.version).toMatch(/^1\.\d+\.\d+$/);
    if ('commit' in body) expect(body.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(body).not.toHaveProperty('status');
    expect(response.headers['x-quiverdb-version']).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('answers 200 even while the engine is initializing', async () => {
    current = await createTestApp({ open: false });
    const response = await current.app.inject({ method: 'GET', url: '/' });
    expect(response.statusCode).toBe(200);
  });
});

describe('engine readiness', () => {
  it('answers 412 Engine not initialized on other routes until loading finishes', async () => {
    current = await createTestApp({ open: false });
    const response = await current.app.inject({ method: 'GET', url: '/aliases' });
    expect(response.statusCode).toBe(412);
    expect(response.json()).toEqual({ time: expect.any(Number), status: { error: 'Engine not initialized' } });
    await current.app.engine.open();
    expect((await current.app.inject({ method: 'GET', url: '/aliases' })).statusCode).toBe(501);
  });
});

describe('not-implemented endpoint groups', () => {
  it.each(notImplementedRoutes.map((route) => [route.method, route.url] as const))('%s %s answers 501 with the error envelope', async (method, url) => {
    current ??= await createTestApp();
    const response = await current.app.inject({ method, url: concreteUrl(url), payload: method === 'GET' || method === 'DELETE' ? undefined : {} });
    expect(response.statusCode).toBe(501);
    const body = response.json();
    expect(body.status.error).toMatch(/not implemented/);
    expect(typeof body.time).toBe('number');
    expect(body).not.toHaveProperty('result');
  });
});

describe('unknown routes', () => {
  it('answer 404 with the error envelope', async () => {
    current = await createTestApp();
    const response = await current.app.inject({ method: 'GET', url: '/no/such/route' });
    expect(response.statusCode).toBe(404);
    expect(response.json().status.error).toContain('/no/such/route');
  });

  it('ignore a trailing slash on known routes', async () => {
    current = await createTestApp();
    expect((await current.app.inject({ method: 'GET', url: '/aliases/' })).statusCode).toBe(501);
  });
});

describe('JSON bodies', () => {
  async function appWithEcho(limitMegabytes?: number) {
    const testApp = await createTestApp(limitMegabytes ? { overrides: { service: { max_request_size_mb: limitMegabytes } } } : {});
    testApp.app.post('/test/echo', { config: routeSettings({ permission: 'read' }) }, async (request) => ({ echoed: request.body }));
    return testApp;
  }

  it('keep integers above 2^53 exact in and out', async () => {
    current = await appWithEcho();
    const response = await current.app.inject({
      method: 'POST',
      url: '/test/echo',
      headers: { 'content-type': 'application/json' },
      payload: '{"id":424242424242424242,"plain":7}',
    });
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe('{"echoed":{"id":424242424242424242,"plain":7}}');
  });

  it('malformed JSON answers 400 with the envelope', async () => {
    current = await appWithEcho();
    const response = await current.app.inject({ method: 'POST', url: '/test/echo', headers: { 'content-type': 'application/json' }, payload: '{"a": [1,' });
    expect(response.statusCode).toBe(400);
    expect(response.json().status.error).toMatch(/Format error in JSON body/);
  });

  it('a wrong content type answers 400 naming it', async () => {
    current = await appWithEcho();
    const response = await current.app.inject({ method: 'POST', url: '/test/echo', headers: { 'content-type': 'text/plain' }, payload: 'hello' });
    expect(response.statusCode).toBe(400);
    expect(response.json().status.error).toMatch(/Content-Type/);
  });

  it('a body over the limit answers 400 naming the limit', async () => {
    current = await appWithEcho(0.001);
    const response = await current.app.inject({
      method: 'POST',
      url: '/test/echo',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ data: 'x'.repeat(5_000) }),
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().status.error).toMatch(/larger than the limit of 1048 bytes/);
  });

  it('a __proto__ key is refused with 400', async () => {
    current = await appWithEcho();
    const response = await current.app.inject({ method: 'POST', url: '/test/echo', headers: { 'content-type': 'application/json' }, payload: '{"__proto__":{"x":1}}' });
    expect(response.statusCode).toBe(400);
  });
});
