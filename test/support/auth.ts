// Apps with auth switched on, a movable clock, and helpers to obtain each kind of credential.
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { redactedPaths } from '../../src/logging.js';
import { createTestApp, type Overrides, type TestApp } from './app.js';

export const adminUsername = 'root';
export const adminPassword = 'correct horse battery staple';
export const jwtSecret = 'test-secret-of-at-least-thirty-two-characters';

/** A clock the test moves by hand; milliseconds since the epoch. */
export interface TestClock {
  now_ms: number;
}

export interface AuthTestApp extends TestApp {
  clock: TestClock;
  /** Every log line the app wrote, as text. */
  logLines: string[];
}

/**
 * An app with auth on. By default the admin comes from configuration and the JWT secret is
 * fixed (so tests can forge tokens); `auth` overrides either.
 */
export async function createAuthApp(options: { auth?: Record<string, unknown>; overrides?: Overrides; directory?: string; clock?: TestClock; open?: boolean } = {}): Promise<AuthTestApp> {
  const clock = options.clock ?? { now_ms: Date.now() };
  const logLines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(chunk.toString('utf8'));
      done();
    },
  });
  const logger = pino({ level: 'debug', redact: { paths: redactedPaths, censor: '[redacted]' } }, sink);
  const testApp = await createTestApp({
    directory: options.directory,
    open: options.open,
    overrides: {
      ...options.overrides,
      auth: { enabled: true, admin_username: adminUsername, admin_password: adminPassword, jwt_secret: jwtSecret, ...options.auth },
    },
    build: { logger, now: () => clock.now_ms },
  });
  return { ...testApp, clock, logLines };
}

export async function loginAdmin(app: FastifyInstance, password = adminPassword): Promise<string> {
  const response = await app.inject({ method: 'POST', url: '/auth/login', payload: { username: adminUsername, password } });
  if (response.statusCode !== 200) throw new Error(`login failed: ${response.statusCode} ${response.body}`);
  return response.json().token as string;
}

export interface CreatedToken {
  id: number;
  token: string;
}

export async function createAccessToken(
  app: FastifyInstance,
  adminJwt: string,
  body: { name: string; permission: string; description?: string; expires_at?: string | null },
): Promise<CreatedToken> {
  const response = await app.inject({ method: 'POST', url: '/auth/access_token', headers: { authorization: `Bearer ${adminJwt}` }, payload: body });
  if (response.statusCode !== 200) throw new Error(`token creation failed: ${response.statusCode} ${response.body}`);
  return response.json() as CreatedToken;
}

export function bearer(credential: string): Record<string, string> {
  return { authorization: `Bearer ${credential}` };
}
