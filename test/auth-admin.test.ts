// The admin user, its JWTs, login limiting, the JWT secret file, restarts and log hygiene.
import { chmod, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { jwtSecretFileName } from '../src/auth/jwt-secret.js';
import {
  adminPassword,
  adminUsername,
  bearer,
  createAccessToken,
  createAuthApp,
  jwtSecret,
  loginAdmin,
  type AuthTestApp,
} from './support/auth.js';

let current: AuthTestApp[] = [];
afterEach(async () => {
  for (const context of current.reverse()) await context.dispose();
  current = [];
});

async function authApp(options: Parameters<typeof createAuthApp>[0] = {}): Promise<AuthTestApp> {
  const context = await createAuthApp(options);
  current.push(context);
  return context;
}

/** GET /aliases needs `read`: 501 means the credential passed, 401 that it did not. */
async function statusWith(context: AuthTestApp, headers: Record<string, string>): Promise<number> {
  return (await context.app.inject({ method: 'GET', url: '/aliases', headers })).statusCode;
}

function base64urlJson(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

describe('admin exists (docs/api.md §7.3)', () => {
  it('answers the standard envelope with a boolean, without a credential', async () => {
    const withAdmin = await authApp();
    const response = await withAdmin.app.inject({ method: 'GET', url: '/auth/admin/exists' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ usage: { hardware: null }, time: expect.any(Number), status: 'ok', result: true });
    const withoutAdmin = await authApp({ auth: { admin_username: null, admin_password: null } });
    expect((await withoutAdmin.app.inject({ method: 'GET', url: '/auth/admin/exists' })).json().result).toBe(false);
  });

  it('is exempt from the 412 guard: a call made while loading answers once the records are in', async () => {
    const context = await authApp({ open: false });
    const pending = context.app.inject({ method: 'GET', url: '/auth/admin/exists' });
    const other = await context.app.inject({ method: 'GET', url: '/aliases' });
    expect(other.statusCode).toBe(412);
    await context.app.engine.open();
    const response = await pending;
    expect(response.statusCode).toBe(200);
    expect(response.json().result).toBe(true);
  });
});

describe('first-admin bootstrap (POST /auth/admin)', () => {
  const remote = '203.0.113.9';

  it('needs the one-time setup code logged at start', async () => {
    const context = await authApp({ auth: { admin_username: null, admin_password: null } });
    const { app } = context;
    const code = app.authService.setupCode!;
    expect(code).toMatch(/^[0-9a-f]{32}$/);
    expect(context.logLines.some((line) => line.includes(code))).toBe(true);

    const withoutCode = await app.inject({ method: 'POST', url: '/auth/admin', remoteAddress: remote, payload: { username: 'boss', password: 'long enough password' } });
    expect(withoutCode.statusCode).toBe(403);
    expect(withoutCode.json()).toEqual({ status: 'error', message: expect.stringMatching(/setup code/) });
    const wrongCode = await app.inject({ method: 'POST', url: '/auth/admin', remoteAddress: remote, payload: { username: 'boss', password: 'long enough password', setup_code: 'f'.repeat(32) } });
    expect(wrongCode.statusCode).toBe(403);
    expect((await app.inject({ method: 'GET', url: '/auth/admin/exists' })).json().result).toBe(false);

    const created = await app.inject({ method: 'POST', url: '/auth/admin', remoteAddress: remote, payload: { username: 'boss', password: 'long enough password', setup_code: code } });
    expect(created.statusCode).toBe(200);
    expect(created.json()).toEqual({ status: 'success', message: expect.any(String) });
    expect(app.authService.setupCode).toBeUndefined();
    expect((await app.inject({ method: 'GET', url: '/auth/admin/exists' })).json().result).toBe(true);
    const login = await app.inject({ method: 'POST', url: '/auth/login', payload: { username: 'boss', password: 'long enough password' } });
    expect(login.statusCode).toBe(200);
  });

  it('from a loopback address still needs the setup code, and works only while no admin exists', async () => {
    const { app } = await authApp({ auth: { admin_username: null, admin_password: null } });
    const withoutCode = await app.inject({ method: 'POST', url: '/auth/admin', remoteAddress: '127.0.0.1', payload: { username: 'boss', password: 'long enough password' } });
    expect(withoutCode.statusCode).toBe(403);
    const code = app.authService.setupCode;
    const first = await app.inject({ method: 'POST', url: '/auth/admin', remoteAddress: '127.0.0.1', payload: { username: 'boss', password: 'long enough password', setup_code: code } });
    expect(first.statusCode).toBe(200);
    const second = await app.inject({ method: 'POST', url: '/auth/admin', remoteAddress: '127.0.0.1', payload: { username: 'usurper', password: 'long enough password', setup_code: code } });
    expect(second.statusCode).toBe(409);
    expect(second.json()).toEqual({ status: 'error', message: 'Admin user already exists' });
  });

  it('two concurrent bootstraps create exactly one admin', async () => {
    const { app } = await authApp({ auth: { admin_username: null, admin_password: null } });
    const setup_code = app.authService.setupCode;
    const responses = await Promise.all(
      ['first', 'second'].map((username) => app.inject({ method: 'POST', url: '/auth/admin', payload: { username, password: 'long enough password', setup_code } })),
    );
    expect(responses.map((response) => response.statusCode).sort()).toEqual([200, 409]);
  });

  it('refuses a short password with 400 naming the field', async () => {
    const { app } = await authApp({ auth: { admin_username: null, admin_password: null } });
    const response = await app.inject({ method: 'POST', url: '/auth/admin', payload: { username: 'boss', password: 'short' } });
    expect(response.statusCode).toBe(400);
    expect(response.json().message).toMatch(/password/);
  });
});

describe('login (POST /auth/login)', () => {
  it('returns an HS256 JWT with exp, token_type Bearer and expires_at', async () => {
    const context = await authApp({ auth: { jwt_ttl_seconds: 600 } });
    const response = await context.app.inject({ method: 'POST', url: '/auth/login', payload: { username: adminUsername, password: adminPassword } });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toEqual({ status: 'success', token: expect.any(String), token_type: 'Bearer', expires_at: expect.any(String) });
    const [header, payload] = body.token.split('.').slice(0, 2).map((part: string) => JSON.parse(Buffer.from(part, 'base64url').toString()));
    expect(header.alg).toBe('HS256');
    expect(payload.exp - payload.iat).toBe(600);
    expect(Date.parse(body.expires_at)).toBe(payload.exp * 1000);
    expect(await statusWith(context, bearer(body.token))).toBe(501);
  });

  it('a wrong password or user name answers 401 in the auth envelope', async () => {
    const { app } = await authApp();
    for (const payload of [{ username: adminUsername, password: 'wrong password' }, { username: 'nobody', password: adminPassword }]) {
      const response = await app.inject({ method: 'POST', url: '/auth/login', payload });
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual({ status: 'error', message: 'Invalid username or password' });
    }
  });

  it('failed logins are limited per client address: 429 with Retry-After, then allowed after a minute', async () => {
    const context = await authApp({ auth: { login_attempts_per_minute: 3 } });
    const { app, clock } = context;
    const attacker = '198.51.100.7';
    const attempt = (password: string, remoteAddress = attacker) =>
      app.inject({ method: 'POST', url: '/auth/login', remoteAddress, payload: { username: adminUsername, password } });
    for (let index = 0; index < 3; index += 1) expect((await attempt('wrong password')).statusCode).toBe(401);
    const limited = await attempt(adminPassword);
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toEqual({ status: 'error', message: expect.stringMatching(/^Too many failed login attempts/) });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // Another address is not affected.
    expect((await attempt(adminPassword, '198.51.100.8')).statusCode).toBe(200);
    clock.now_ms += 61_000;
    expect((await attempt(adminPassword)).statusCode).toBe(200);
  });

  it('parallel wrong guesses cannot slip past the limit', async () => {
    const { app } = await authApp({ auth: { login_attempts_per_minute: 3 } });
    const responses = await Promise.all(
      Array.from({ length: 8 }, () => app.inject({ method: 'POST', url: '/auth/login', payload: { username: adminUsername, password: 'wrong password' } })),
    );
    const statuses = responses.map((response) => response.statusCode);
    expect(statuses.filter((status) => status === 401)).toHaveLength(3);
    expect(statuses.filter((status) => status === 429)).toHaveLength(5);
  });

  it('a successful login clears the address\'s failures', async () => {
    const { app } = await authApp({ auth: { login_attempts_per_minute: 2 } });
    const attempt = (password: string) => app.inject({ method: 'POST', url: '/auth/login', payload: { username: adminUsername, password } });
    expect((await attempt('wrong password')).statusCode).toBe(401);
    expect((await attempt(adminPassword)).statusCode).toBe(200);
    expect((await attempt('wrong password')).statusCode).toBe(401);
    expect((await attempt(adminPassword)).statusCode).toBe(200);
  });
});

describe('JWT verification', () => {
  const claims = { ver: 1 };

  async function signed(secret: string, overrides: { sub?: string; exp?: number; ver?: number } = {}): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ ...claims, ...(overrides.ver === undefined ? {} : { ver: overrides.ver }) })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(overrides.sub ?? adminUsername)
      .setIssuedAt(now)
      .setExpirationTime(overrides.exp ?? now + 3600)
      .sign(new TextEncoder().encode(secret));
  }

  it('a JWT signed with the server secret and current claims is accepted (the control case)', async () => {
    const context = await authApp();
    expect(await statusWith(context, bearer(await signed(jwtSecret)))).toBe(501);
  });

  it('refuses a tampered signature, alg none, another secret, a wrong subject and a stale version', async () => {
    const context = await authApp();
    const genuine = await loginAdmin(context.app);
    const [header, payload, signature] = genuine.split('.') as [string, string, string];
    const flipped = signature[5] === 'A' ? 'B' : 'A';
    const tamperedSignature = `${header}.${payload}.${signature.slice(0, 5)}${flipped}${signature.slice(6)}`;
    const decodedPayload = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const tamperedPayload = `${header}.${base64urlJson({ ...decodedPayload, sub: 'someone-else' })}.${signature}`;
    const algNone = `${base64urlJson({ alg: 'none', typ: 'JWT' })}.${payload}.`;
    const otherSecret = await signed('another-secret-that-is-long-enough-to-pass');
    const wrongSubject = await signed(jwtSecret, { sub: 'intruder' });
    const staleVersion = await signed(jwtSecret, { ver: 0 });
    const expired = await signed(jwtSecret, { exp: Math.floor(Date.now() / 1000) - 10 });
    for (const [name, token] of Object.entries({ tamperedSignature, tamperedPayload, algNone, otherSecret, wrongSubject, staleVersion, expired })) {
      expect(await statusWith(context, bearer(token)), name).toBe(401);
      expect(await statusWith(context, { 'api-key': token }), name).toBe(401);
    }
    expect(await statusWith(context, bearer(genuine))).toBe(501);
  });

  it('a JWT stops working when its exp passes', async () => {
    const context = await authApp({ auth: { jwt_ttl_seconds: 60 } });
    const jwt = await loginAdmin(context.app);
    expect(await statusWith(context, bearer(jwt))).toBe(501);
    context.clock.now_ms += 61_000;
    expect(await statusWith(context, bearer(jwt))).toBe(401);
  });

  it('refuses malformed Authorization headers', async () => {
    const context = await authApp();
    const jwt = await loginAdmin(context.app);
    for (const authorization of [`Basic ${jwt}`, 'Bearer', `Bearer ${jwt} extra`, `Bearer ${'x'.repeat(5000)}`]) {
      expect(await statusWith(context, { authorization }), authorization.slice(0, 20)).toBe(401);
    }
    expect(await statusWith(context, { authorization: `bearer ${jwt}` })).toBe(501);
  });
});

describe('password reset (POST /auth/admin/reset_password)', () => {
  it('changes the password and revokes every JWT issued before it', async () => {
    const context = await authApp();
    const { app } = context;
    const older = await loginAdmin(app);
    const caller = await loginAdmin(app);
    const newPassword = 'a brand new passphrase';
    const reset = await app.inject({
      method: 'POST',
      url: '/auth/admin/reset_password',
      headers: bearer(caller),
      payload: { current_password: adminPassword, new_password: newPassword },
    });
    expect(reset.statusCode).toBe(200);
    expect(reset.json()).toEqual({ status: 'success', message: expect.any(String) });
    // Same second, same clock: only the credential version tells them apart.
    expect(await statusWith(context, bearer(older))).toBe(401);
    expect(await statusWith(context, bearer(caller))).toBe(401);
    const oldLogin = await app.inject({ method: 'POST', url: '/auth/login', payload: { username: adminUsername, password: adminPassword } });
    expect(oldLogin.statusCode).toBe(401);
    expect(await statusWith(context, bearer(await loginAdmin(app, newPassword)))).toBe(501);
  });

  it('a wrong current password answers 403 and changes nothing', async () => {
    const context = await authApp();
    const jwt = await loginAdmin(context.app);
    const response = await context.app.inject({
      method: 'POST',
      url: '/auth/admin/reset_password',
      headers: bearer(jwt),
      payload: { current_password: 'not the password', new_password: 'another passphrase' },
    });
    expect(response.statusCode).toBe(403);
    expect(response.json().status).toBe('error');
    expect(await statusWith(context, bearer(jwt))).toBe(501);
  });

  it('access tokens survive a password reset', async () => {
    const context = await authApp();
    const jwt = await loginAdmin(context.app);
    const token = await createAccessToken(context.app, jwt, { name: 'svc', permission: 'read' });
    await context.app.inject({ method: 'POST', url: '/auth/admin/reset_password', headers: bearer(jwt), payload: { current_password: adminPassword, new_password: 'another passphrase' } });
    expect(await statusWith(context, bearer(token.token))).toBe(501);
  });
});

describe('the JWT secret', () => {
  it('without configuration is generated once into the data directory with mode 0600, reused, and kept at 0600', async () => {
    const first = await authApp({ auth: { jwt_secret: null } });
    const path = join(first.directory, jwtSecretFileName);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    const secret = await readFile(path, 'utf8');
    expect(secret.trim().length).toBeGreaterThanOrEqual(32);
    const jwt = await loginAdmin(first.app);
    await first.app.close();

    await chmod(path, 0o644);
    const second = await authApp({ auth: { jwt_secret: null }, directory: first.directory });
    expect(await readFile(path, 'utf8')).toBe(secret);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(await statusWith(second, bearer(jwt))).toBe(501);
  });
});

describe('restart', () => {
  it('keeps the admin, its password, tokens, deletions and the token id sequence', async () => {
    const first = await authApp({ auth: { jwt_secret: null } });
    const jwt = await loginAdmin(first.app);
    const kept = await createAccessToken(first.app, jwt, { name: 'kept', permission: 'write', description: 'stays' });
    const dropped = await createAccessToken(first.app, jwt, { name: 'dropped', permission: 'read' });
    await first.app.inject({ method: 'DELETE', url: `/auth/access_token/${dropped.id}`, headers: bearer(jwt) });
    const newPassword = 'password after reset';
    const freshJwt = await loginAdmin(first.app);
    await first.app.inject({ method: 'POST', url: '/auth/admin/reset_password', headers: bearer(freshJwt), payload: { current_password: adminPassword, new_password: newPassword } });
    const listedBefore = (await first.app.inject({ method: 'GET', url: '/auth/access_tokens', headers: bearer(await loginAdmin(first.app, newPassword)) })).json();
    await first.app.close();

    // No admin in the configuration this time: everything must come from the database.
    const second = await authApp({ directory: first.directory, clock: first.clock, auth: { jwt_secret: null, admin_username: null, admin_password: null } });
    expect((await second.app.inject({ method: 'GET', url: '/auth/admin/exists' })).json().result).toBe(true);
    expect(await statusWith(second, bearer(jwt))).toBe(401); // revoked by the reset, still revoked
    const adminJwt = await loginAdmin(second.app, newPassword);
    expect(await statusWith(second, bearer(kept.token))).toBe(501);
    expect(await statusWith(second, bearer(dropped.token))).toBe(401);
    const listedAfter = (await second.app.inject({ method: 'GET', url: '/auth/access_tokens', headers: bearer(adminJwt) })).json();
    expect(listedAfter).toEqual(listedBefore);
    const next = await createAccessToken(second.app, adminJwt, { name: 'next', permission: 'read' });
    expect(next.id).toBe(dropped.id + 1);
  });
});

describe('logs', () => {
  it('never carry a password, raw token, JWT or the JWT secret', async () => {
    const context = await authApp({ auth: { admin_username: null, admin_password: null, jwt_secret: null } });
    const { app } = context;
    const password = 'log-hygiene passphrase';
    await app.inject({ method: 'POST', url: '/auth/admin', payload: { username: 'boss', password, setup_code: app.authService.setupCode } });
    const login = await app.inject({ method: 'POST', url: '/auth/login', payload: { username: 'boss', password } });
    const jwt = login.json().token as string;
    await app.inject({ method: 'POST', url: '/auth/login', payload: { username: 'boss', password: 'wrong-but-secret' } });
    const created = await app.inject({ method: 'POST', url: '/auth/access_token', headers: bearer(jwt), payload: { name: 'n', permission: 'read' } });
    const rotated = await app.inject({ method: 'POST', url: `/auth/access_token/${created.json().id}/rotate`, headers: bearer(jwt) });
    await app.inject({ method: 'GET', url: '/aliases', headers: { 'api-key': rotated.json().token } });
    await app.inject({ method: 'GET', url: '/aliases', headers: bearer('qv_guessed-token-value') });
    await app.inject({ method: 'POST', url: '/auth/admin/reset_password', headers: bearer(jwt), payload: { current_password: password, new_password: 'next-secret-passphrase' } });
    const secret = (await readFile(join(context.directory, jwtSecretFileName), 'utf8')).trim();
    await app.close();

    const logs = context.logLines.join('\n');
    expect(context.logLines.length).toBeGreaterThan(0);
    for (const forbidden of [password, 'wrong-but-secret', 'next-secret-passphrase', jwt, created.json().token, rotated.json().token, 'qv_guessed-token-value', secret]) {
      expect(logs.includes(forbidden), forbidden.slice(0, 12)).toBe(false);
    }
  });
});
