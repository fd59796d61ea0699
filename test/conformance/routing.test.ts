// The routes themselves (docs/api.md §1, §3): GET / unenveloped, unknown routes and bad paths as
// enveloped errors, trailing slashes ignored, the not-implemented groups answering 501.
import { describe, expect, it } from 'vitest';
import { createWithPoints } from '../support/base-points.js';
import { expectError, expectSuccess } from '../support/envelope.js';
import { serverForFile } from '../support/server.js';

const server = serverForFile();

describe('GET / and routing', () => {
  it('GET / — health check is not enveloped', async () => {
    const response = await server.request('GET', '/');
    expect(response.status).toBe(200);
    expect(response.body.title).toBe('quiverdb - vector search engine');
    expect(response.body).not.toHaveProperty('result');
  });

  it('unknown route — 404 with the error envelope', async () => {
    expectError(await server.request('GET', '/no/such/thing'), 404);
    expectError(await server.request('POST', '/collections/x/points/nothing', {}), 404);
  });

  it('trailing slash — ignored on collection and point routes', async () => {
    await createWithPoints(server, 'trailing');
    expect(expectSuccess(await server.request('GET', '/collections/'))).toHaveProperty('collections');
    expect(expectSuccess(await server.request('GET', '/collections/trailing/')).points_count).toBe(5);
    expect(expectSuccess(await server.request('POST', '/collections/trailing/points/count/', {})).count).toBe(5);
  });

  it('an over-long path parameter or a malformed URL — 400 with the error envelope (not fastify\'s own body)', async () => {
    expectError(await server.request('GET', `/collections/trailing/points/${'1'.repeat(2000)}`), 400, 'Bad request: a path parameter is longer than 1024 characters');
    expectError(await server.request('DELETE', `/collections/trailing/index/${'x'.repeat(2000)}`), 400, /path parameter is longer/);
    expectError(await server.request('GET', '/collections/%E0%A4%A'), 400, /^Bad request: /);
  });

  it('docs/api.md §9 groups — 501 with the error envelope', async () => {
    expectError(await server.request('GET', '/aliases'), 501);
    expectError(await server.request('POST', '/collections/trailing/points/recommend', {}), 501);
  });
});
