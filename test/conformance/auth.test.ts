// The auth group (docs/api.md §7): with auth off, the access-token API refuses with 403; with
// auth on, credentials, login, access tokens and their permissions.
import { QdrantClient } from '@qdrant/js-client-rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminPassword, adminUsername, createAccessToken, createAuthApp, jwtSecret, loginAdmin } from '../support/auth.js';
import { clientStatus, expectError, expectSuccess, type RawResponse } from '../support/envelope.js';
import { makeDataDirectory, removeDataDirectory, serverForFile, startServer, type TestServer } from '../support/server.js';

const server = serverForFile();

describe('auth group with auth off (docs/api.md §7)', () => {
  it('GET /auth/admin/exists — the standard envelope with result false', async () => {
    expect(expectSuccess(await server.request('GET', '/auth/admin/exists'))).toBe(false);
  });

  it.each([
    ['GET', '/auth/access_tokens'],
    ['DELETE', '/auth/access_token/1'],
    ['POST', '/auth/access_token/1/rotate'],
  ])('%s %s — 403 {status: "error", message: "Access token API requires auth_enabled=true"}', async (method, path) => {
    const response = await server.request(method, path);
    expect(response.status).toBe(403);
    expect(response.body).toEqual({ status: 'error', message: 'Access token API requires auth_enabled=true' });
  });
});

describe('auth group with auth on (docs/api.md §7, §7.3)', () => {
  let secured: TestServer;
  let securedDirectory: string;
  let adminJwt: string;

  beforeAll(async () => {
    securedDirectory = await makeDataDirectory();
    secured = await startServer(securedDirectory, { auth: { enabled: true, admin_username: adminUsername, admin_password: adminPassword, jwt_secret: jwtSecret } });
  });

  afterAll(async () => {
    await secured?.close();
    if (securedDirectory) await removeDataDirectory(securedDirectory);
  });

  async function call(method: string, path: string, headers: Record<string, string> = {}, body?: unknown): Promise<RawResponse> {
    const response = await fetch(`${secured.url}${path}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? undefined : JSON.parse(text), text };
  }

  const recordKeys = ['created_at', 'description', 'expired_at', 'id', 'name', 'permission', 'will_expire'];
  const rfc3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

  it('public routes need no credential; everything else is 401 Invalid or missing authorization token', async () => {
    expect((await call('GET', '/')).status).toBe(200);
    expect(expectSuccess(await call('GET', '/auth/admin/exists'))).toBe(true);
    expectError(await call('GET', '/collections'), 401, 'Invalid or missing authorization token');
    expectError(await call('GET', '/collections', { authorization: 'Bearer qv_not-a-token' }), 401, 'Invalid or missing authorization token');
    const tokens = await call('GET', '/auth/access_tokens');
    expect(tokens.status).toBe(401);
    expect(tokens.body).toEqual({ status: 'error', message: 'Invalid or missing authorization token' });
  });

  it('POST /auth/login — {status, token, token_type, expires_at}; a wrong password is an auth-envelope 401', async () => {
    const wrong = await call('POST', '/auth/login', {}, { username: adminUsername, password: 'wrong password' });
    expect(wrong.status).toBe(401);
    expect(Object.keys(wrong.body).sort()).toEqual(['message', 'status']);
    expect(wrong.body.status).toBe('error');
    const invalid = await call('POST', '/auth/login', {}, {});
    expect(invalid.status).toBe(400);
    expect(invalid.body.status).toBe('error');
    expect(invalid.body.message).toContain('username');
    const login = await call('POST', '/auth/login', {}, { username: adminUsername, password: adminPassword });
    expect(login.status).toBe(200);
    expect(Object.keys(login.body).sort()).toEqual(['expires_at', 'status', 'token', 'token_type']);
    expect(login.body).toMatchObject({ status: 'success', token_type: 'Bearer' });
    expect(login.body.expires_at).toMatch(rfc3339);
    adminJwt = login.body.token;
    expect(expectSuccess(await call('GET', '/collections', { authorization: `Bearer ${adminJwt}` }))).toEqual({ collections: [] });
  });

  it('access tokens — create, list (never raw values), use, permission 403, rotate, delete', async () => {
    const admin = { authorization: `Bearer ${adminJwt}` };
    const created = await call('POST', '/auth/access_token', admin, { name: 'reader', description: 'reads', permission: 'read' });
    expect(created.status).toBe(200);
    expect(Object.keys(created.body).sort()).toEqual([...recordKeys, 'token'].sort());
    expect(created.body).toMatchObject({ name: 'reader', description: 'reads', permission: 'read', expired_at: null, will_expire: false });
    expect(Number.isInteger(created.body.id)).toBe(true);
    expect(created.body.created_at).toMatch(rfc3339);
    expect(created.body.token).toMatch(/^qv_[A-Za-z0-9_-]{43}$/);

    const listed = await call('GET', '/auth/access_tokens', admin);
    expect(listed.status).toBe(200);
    expect(Array.isArray(listed.body)).toBe(true);
    for (const record of listed.body) expect(Object.keys(record).sort()).toEqual(recordKeys);
    expect(listed.text).not.toContain(created.body.token);

    // Qdrant clients send `api-key`; the official client must work with a token.
    const address = new URL(secured.url);
    const client = new QdrantClient({ host: address.hostname, port: Number(address.port), https: false, apiKey: created.body.token, checkCompatibility: false });
    expect(await client.getCollections()).toEqual({ collections: [] });
    expect((await clientStatus(client.createCollection('denied', { vectors: { size: 2, distance: 'Dot' } }))).status).toBe(403);
    expectError(await call('PUT', '/collections/denied', { 'api-key': created.body.token }, { vectors: { size: 2, distance: 'Dot' } }), 403);
    const forbidden = await call('GET', '/auth/access_tokens', { 'api-key': created.body.token });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.status).toBe('error');

    const rotated = await call('POST', `/auth/access_token/${created.body.id}/rotate`, admin);
    expect(rotated.status).toBe(200);
    const { token: newToken, ...rotatedRecord } = rotated.body;
    const { token: oldToken, ...createdRecord } = created.body;
    expect(rotatedRecord).toEqual(createdRecord);
    expect(newToken).not.toBe(oldToken);
    expectError(await call('GET', '/collections', { 'api-key': oldToken }), 401, 'Invalid or missing authorization token');
    expectSuccess(await call('GET', '/collections', { authorization: `Bearer ${newToken}` }));

    const deleted = await call('DELETE', `/auth/access_token/${created.body.id}`, admin);
    expect(deleted.status).toBe(200);
    expect(Object.keys(deleted.body).sort()).toEqual(['message', 'status']);
    expect(deleted.body.status).toBe('success');
    expectError(await call('GET', '/collections', { authorization: `Bearer ${newToken}` }), 401, 'Invalid or missing authorization token');
    for (const [method, path] of [['DELETE', `/auth/access_token/${created.body.id}`], ['POST', `/auth/access_token/${created.body.id}/rotate`]] as const) {
      const missing = await call(method, path, admin);
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ status: 'error', message: 'Access token not found' });
    }
  });

  it('rotating an expired token — 400 Cannot rotate an expired access token', async () => {
    const clock = { now_ms: Date.now() };
    const authApp = await createAuthApp({ clock });
    try {
      const jwt = await loginAdmin(authApp.app);
      const expiring = await createAccessToken(authApp.app, jwt, { name: 'short', permission: 'read', expires_at: new Date(clock.now_ms + 3_600_000).toISOString() });
      clock.now_ms += 2 * 3_600_000;
      const refreshedJwt = await loginAdmin(authApp.app);
      const response = await authApp.app.inject({ method: 'POST', url: `/auth/access_token/${expiring.id}/rotate`, headers: { authorization: `Bearer ${refreshedJwt}` } });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({ status: 'error', message: 'Cannot rotate an expired access token' });
      const used = await authApp.app.inject({ method: 'GET', url: '/collections', headers: { 'api-key': expiring.token } });
      expect(used.statusCode).toBe(401);
    } finally {
      await authApp.dispose();
    }
  });
});
