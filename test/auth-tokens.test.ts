// Access tokens as docs/api.md §7 and §7.3 describe them.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { accessTokenDigest } from '../src/auth/token-value.js';
import { createTestApp, type TestApp } from './support/app.js';
import { bearer, createAccessToken, createAuthApp, loginAdmin, type AuthTestApp } from './support/auth.js';

let current: AuthTestApp | TestApp | undefined;
afterEach(async () => {
  await current?.dispose();
  current = undefined;
});

async function adminSession() {
  const context = await createAuthApp();
  current = context;
  return { context, app: context.app, jwt: await loginAdmin(context.app) };
}

const listedFields = ['created_at', 'description', 'expired_at', 'id', 'name', 'permission', 'will_expire'];

describe('access tokens — creation', () => {
  it('returns the record plus a raw qv_ value of 32 random bytes, base64url', async () => {
    const { app, jwt } = await adminSession();
    const response = await app.inject({
      method: 'POST',
      url: '/auth/access_token',
      headers: bearer(jwt),
      payload: { name: 'ingest', description: 'nightly loader', permission: 'read,write' },
    });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(Object.keys(body).sort()).toEqual([...listedFields, 'token'].sort());
    expect(body).toMatchObject({ id: 1, name: 'ingest', description: 'nightly loader', permission: 'read,write', expired_at: null, will_expire: false });
    expect(body.token).toMatch(/^qv_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(body.token.slice(3), 'base64url')).toHaveLength(32);
    expect(new Date(body.created_at).toISOString()).toBe(body.created_at);
  });

  it('an expiring token reports will_expire and its RFC 3339 UTC expiry', async () => {
    const { app, jwt, context } = await adminSession();
    const expiry = new Date(context.clock.now_ms + 86_400_000);
    const created = await createAccessToken(app, jwt, { name: 'temp', permission: 'read', expires_at: expiry.toISOString().replace('Z', '+00:00') });
    const listed = (await app.inject({ method: 'GET', url: '/auth/access_tokens', headers: bearer(jwt) })).json();
    expect(listed).toEqual([expect.objectContaining({ id: created.id, will_expire: true, expired_at: expiry.toISOString() })]);
  });

  it.each([
    [{ name: 'x', permission: 'read,fly' }, /permission: unknown permission "fly"/],
    [{ name: 'x', permission: ' , ' }, /permission: at least one permission/],
    [{ name: 'x' }, /permission: missing required field/],
    [{ permission: 'read' }, /name: missing required field/],
    [{ name: 'x', permission: 'read', expires_at: '2001-01-01T00:00:00Z' }, /expires_at: must be in the future/],
    [{ name: 'x', permission: 'read', expires_at: 'tomorrow' }, /expires_at: must be an RFC 3339 date-time/],
  ])('bad input %j answers 400 in the auth envelope naming the field', async (payload, message) => {
    const { app, jwt } = await adminSession();
    const response = await app.inject({ method: 'POST', url: '/auth/access_token', headers: bearer(jwt), payload });
    expect(response.statusCode).toBe(400);
    const body = response.json();
    expect(body.status).toBe('error');
    expect(body.message).toMatch(message);
    // Nothing half-created.
    expect((await app.inject({ method: 'GET', url: '/auth/access_tokens', headers: bearer(jwt) })).json()).toEqual([]);
  });

  it('a token works as Bearer and as api-key, with exactly its permission', async () => {
    const { app, jwt } = await adminSession();
    const reader = await createAccessToken(app, jwt, { name: 'reader', permission: 'read' });
    expect((await app.inject({ method: 'GET', url: '/aliases', headers: bearer(reader.token) })).statusCode).toBe(501);
    expect((await app.inject({ method: 'GET', url: '/aliases', headers: { 'api-key': reader.token } })).statusCode).toBe(501);
    const write = await app.inject({ method: 'POST', url: '/aliases', headers: { 'api-key': reader.token }, payload: {} });
    expect(write.statusCode).toBe(403);
    expect(write.json().status.error).toBe('Permission denied: this endpoint needs the write permission');
  });
});

describe('access tokens — list (docs/api.md §7.3)', () => {
  it('is a bare array of records sorted by id, never with a raw value or its hash', async () => {
    const { app, jwt } = await adminSession();
    const first = await createAccessToken(app, jwt, { name: 'a', permission: 'read' });
    const second = await createAccessToken(app, jwt, { name: 'b', permission: 'admin', description: 'ops' });
    const response = await app.inject({ method: 'GET', url: '/auth/access_tokens', headers: bearer(jwt) });
    expect(response.statusCode).toBe(200);
    const listed = response.json();
    expect(Array.isArray(listed)).toBe(true);
    expect(listed.map((record: { id: number }) => record.id)).toEqual([first.id, second.id]);
    for (const record of listed) expect(Object.keys(record).sort()).toEqual(listedFields);
    expect(response.body).not.toContain(first.token);
    expect(response.body).not.toContain(accessTokenDigest(first.token));
  });
});

describe('access tokens — delete (docs/api.md §7.3)', () => {
  it('answers {status: success, message} and the token stops working at once', async () => {
    const { app, jwt } = await adminSession();
    const token = await createAccessToken(app, jwt, { name: 'gone', permission: 'read' });
    expect((await app.inject({ method: 'GET', url: '/aliases', headers: bearer(token.token) })).statusCode).toBe(501);
    const response = await app.inject({ method: 'DELETE', url: `/auth/access_token/${token.id}`, headers: bearer(jwt) });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'success', message: expect.any(String) });
    const refused = await app.inject({ method: 'GET', url: '/aliases', headers: bearer(token.token) });
    expect(refused.statusCode).toBe(401);
    expect(refused.json().status.error).toBe('Invalid or missing authorization token');
    expect((await app.inject({ method: 'GET', url: '/auth/access_tokens', headers: bearer(jwt) })).json()).toEqual([]);
  });

  it('an unknown id answers 404 {status: error, message: Access token not found}', async () => {
    const { app, jwt } = await adminSession();
    const response = await app.inject({ method: 'DELETE', url: '/auth/access_token/42', headers: bearer(jwt) });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ status: 'error', message: 'Access token not found' });
  });

  it('a non-integer id answers 400 in the auth envelope naming token_id', async () => {
    const { app, jwt } = await adminSession();
    const response = await app.inject({ method: 'DELETE', url: '/auth/access_token/abc', headers: bearer(jwt) });
    expect(response.statusCode).toBe(400);
    expect(response.json().status).toBe('error');
    expect(response.json().message).toMatch(/token_id/);
  });

  it('an admin access token may delete tokens too', async () => {
    const { app, jwt } = await adminSession();
    const operator = await createAccessToken(app, jwt, { name: 'operator', permission: 'admin' });
    const victim = await createAccessToken(app, jwt, { name: 'victim', permission: 'read' });
    const response = await app.inject({ method: 'DELETE', url: `/auth/access_token/${victim.id}`, headers: { 'api-key': operator.token } });
    expect(response.statusCode).toBe(200);
  });
});

describe('access tokens — rotate (docs/api.md §7.3)', () => {
  it('keeps the record, issues a new raw value, and the old value stops working', async () => {
    const { app, jwt, context } = await adminSession();
    const expiry = new Date(context.clock.now_ms + 3_600_000).toISOString();
    const original = await createAccessToken(app, jwt, { name: 'rotating', description: 'ci', permission: 'write', expires_at: expiry });
    const response = await app.inject({ method: 'POST', url: `/auth/access_token/${original.id}/rotate`, headers: bearer(jwt) });
    expect(response.statusCode).toBe(200);
    const rotated = response.json();
    const { token: oldValue, ...originalRecord } = original as unknown as Record<string, unknown>;
    const { token: newValue, ...rotatedRecord } = rotated;
    expect(rotatedRecord).toEqual(originalRecord);
    expect(newValue).toMatch(/^qv_[A-Za-z0-9_-]{43}$/);
    expect(newValue).not.toBe(oldValue);
    expect((await app.inject({ method: 'GET', url: '/aliases', headers: bearer(oldValue as string) })).statusCode).toBe(401);
    expect((await app.inject({ method: 'GET', url: '/aliases', headers: bearer(newValue) })).statusCode).toBe(501);
  });

  it('accepts a body-less call that still says Content-Type: application/json', async () => {
    const { app, jwt } = await adminSession();
    const token = await createAccessToken(app, jwt, { name: 'r', permission: 'read' });
    const response = await app.inject({ method: 'POST', url: `/auth/access_token/${token.id}/rotate`, headers: { ...bearer(jwt), 'content-type': 'application/json' } });
    expect(response.statusCode).toBe(200);
  });

  it('an expired token answers 400 {status: error, message: Cannot rotate an expired access token}', async () => {
    const { app, jwt, context } = await adminSession();
    const token = await createAccessToken(app, jwt, { name: 'short', permission: 'read', expires_at: new Date(context.clock.now_ms + 60_000).toISOString() });
    context.clock.now_ms += 120_000;
    const response = await app.inject({ method: 'POST', url: `/auth/access_token/${token.id}/rotate`, headers: bearer(jwt) });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ status: 'error', message: 'Cannot rotate an expired access token' });
    // Refused for authentication too, but still listed and deletable.
    expect((await app.inject({ method: 'GET', url: '/aliases', headers: bearer(token.token) })).statusCode).toBe(401);
    expect((await app.inject({ method: 'DELETE', url: `/auth/access_token/${token.id}`, headers: bearer(jwt) })).statusCode).toBe(200);
  });

  it('an unknown id answers 404 {status: error, message: Access token not found}', async () => {
    const { app, jwt } = await adminSession();
    const response = await app.inject({ method: 'POST', url: '/auth/access_token/7/rotate', headers: bearer(jwt) });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ status: 'error', message: 'Access token not found' });
  });
});

describe('access tokens — without a credential', () => {
  it.each([
    ['GET', '/auth/access_tokens'],
    ['DELETE', '/auth/access_token/1'],
    ['POST', '/auth/access_token/1/rotate'],
  ] as const)('%s %s answers 401 {status: error, message: Invalid or missing authorization token}', async (method, url) => {
    const { app } = await adminSession();
    const response = await app.inject({ method, url });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({ status: 'error', message: 'Invalid or missing authorization token' });
  });
});

describe('access tokens — auth off (docs/api.md §7.1)', () => {
  it.each([
    ['GET', '/auth/access_tokens', undefined],
    ['DELETE', '/auth/access_token/1', undefined],
    ['POST', '/auth/access_token/1/rotate', undefined],
    ['POST', '/auth/access_token', { name: 'x', permission: 'read' }],
  ] as const)('%s %s answers 403 Access token API requires auth_enabled=true', async (method, url, payload) => {
    current = await createTestApp();
    const response = await current.app.inject({ method, url, ...(payload ? { payload } : {}) });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toEqual({ status: 'error', message: 'Access token API requires auth_enabled=true' });
  });

  it('every other route is open without a credential', async () => {
    current = await createTestApp();
    expect((await current.app.inject({ method: 'GET', url: '/aliases' })).statusCode).toBe(501);
    expect((await current.app.inject({ method: 'POST', url: '/aliases', payload: {} })).statusCode).toBe(501);
  });
});

describe('access tokens — storage', () => {
  it('keeps only the SHA-256 of a raw value on disk', async () => {
    const { app, jwt, context } = await adminSession();
    const token = await createAccessToken(app, jwt, { name: 'secretive', permission: 'read' });
    await app.close();
    let everything = Buffer.alloc(0);
    for (const name of await readdir(join(context.directory, 'db'))) {
      everything = Buffer.concat([everything, await readFile(join(context.directory, 'db', name))]);
    }
    // The digest being found proves the files were readable as written; the raw value must not be.
    expect(everything.includes(accessTokenDigest(token.token))).toBe(true);
    expect(everything.includes(token.token)).toBe(false);
    expect(everything.includes(token.token.slice(3))).toBe(false);
  });
});
