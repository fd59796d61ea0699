// Every registered route, called with every kind of credential: the status class must follow
// from the route's declared permission alone. The route list is read from the running app, so a
// route added by any module is covered the moment it exists.
import { afterAll, describe, expect, it } from 'vitest';
import type { RegisteredRoute } from '../src/auth/permission-hook.js';
import type { Permission } from '../src/http/route-config.js';
import { notImplementedRoutes } from '../src/http/not-implemented.js';
import { bearer, createAccessToken, createAuthApp, loginAdmin, type AuthTestApp } from './support/auth.js';

type CredentialKind = 'none' | 'bad' | 'expired' | 'deleted' | 'read' | 'write' | 'admin';
type Outcome = 401 | 403 | 'passed';

const credentialKinds: readonly CredentialKind[] = ['none', 'bad', 'expired', 'deleted', 'read', 'write', 'admin'];

/** The rule under test: what each credential earns on a route declaring `permission`. */
function expectedOutcome(permission: Permission, credential: CredentialKind): Outcome {
  if (permission === 'public') return 'passed';
  if (credential === 'none' || credential === 'bad' || credential === 'expired' || credential === 'deleted') return 401;
  if (credential === 'admin') return 'passed';
  if (permission === 'read') return 'passed';
  if (permission === 'write') return credential === 'write' ? 'passed' : 403;
  return 403; // admin routes, read or write token
}

const sampleParameters: Record<string, string> = {
  collection_name: 'auth_table_probe',
  token_id: '999999',
  snapshot_name: 'snapshot-1',
  field_name: 'field',
  id: '1',
};

function concreteUrl(template: string): string {
  return template
    .replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, (_match, name: string) => sampleParameters[name] ?? 'x')
    .replace(/\*/g, 'x');
}

// Built at collection time (top-level await) so that each route becomes its own named test.
const context: AuthTestApp = await createAuthApp();
const headersFor = await obtainCredentials(context);
const routes: readonly RegisteredRoute[] = context.app.registeredRoutes;

async function obtainCredentials({ app, clock }: AuthTestApp): Promise<Record<CredentialKind, Record<string, string>>> {
  const adminJwt = await loginAdmin(app);
  const readToken = await createAccessToken(app, adminJwt, { name: 'reader', permission: 'read' });
  const writeToken = await createAccessToken(app, adminJwt, { name: 'writer', permission: 'write' });
  const hourFromNow = new Date(clock.now_ms + 3_600_000).toISOString();
  // Admin tokens, so that only their expiry or deletion can explain a refusal.
  const expiring = await createAccessToken(app, adminJwt, { name: 'expiring', permission: 'admin', expires_at: hourFromNow });
  const deleted = await createAccessToken(app, adminJwt, { name: 'deleted', permission: 'admin' });
  const deletion = await app.inject({ method: 'DELETE', url: `/auth/access_token/${deleted.id}`, headers: bearer(adminJwt) });
  if (deletion.statusCode !== 200) throw new Error(`could not delete a token: ${deletion.body}`);
  clock.now_ms += 2 * 3_600_000; // the expiring token is now past its date; the 24 h JWT is not
  return {
    none: {},
    bad: bearer('qv_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'),
    expired: bearer(expiring.token),
    deleted: bearer(deleted.token),
    // Qdrant clients send `api-key`; the read token goes that way, the rest as Bearer.
    read: { 'api-key': readToken.token },
    write: bearer(writeToken.token),
    admin: bearer(adminJwt),
  };
}

afterAll(async () => {
  await context.dispose();
});

/**
 * Every method + path fastify itself routes, read from its printed route tree (each level is
 * indented by four characters and extends its parent's path). An independent view of the
 * router, to catch a route registered where the permission hook's recorder could not see it.
 */
function routesKnownToFastify(): Set<string> {
  const tree = context.app.printRoutes({ commonPrefix: false });
  const pathAtDepth: string[] = [];
  const known = new Set<string>();
  for (const line of tree.split('\n')) {
    const match = /^([│├└─\s]*)(\S.*?)(?: \(([^)]+)\))?$/.exec(line);
    if (!match) continue;
    const depth = Math.floor(match[1]!.length / 4);
    const parent = depth > 0 ? pathAtDepth[depth - 1] ?? '' : '';
    // The printer drops the slash before a wildcard child (`/dashboard/*` prints as `dashboard`
    // then `*`) when trailing slashes are ignored; put it back.
    const path = parent + (match[2] === '*' && !parent.endsWith('/') ? '/*' : match[2]!);
    pathAtDepth[depth] = path;
    pathAtDepth.length = depth + 1;
    for (const method of match[3]?.split(',') ?? []) known.add(`${method.trim()} ${path}`);
  }
  return known;
}

describe('the route list the permission table is built from', () => {
  it('matches every route the router knows', async () => {
    await context.app.ready();
    const recorded = new Set(routes.map((route) => `${route.method} ${route.url}`));
    const known = routesKnownToFastify();
    expect(known.size).toBeGreaterThan(20);
    expect([...known].filter((key) => !recorded.has(key))).toEqual([]);
  });

  it('holds every auth and not-implemented route, each with a declared permission', () => {
    const keys = new Set(routes.map((route) => `${route.method} ${route.url}`));
    const mustHave = [
      'GET /',
      'GET /auth/admin/exists',
      'POST /auth/admin',
      'POST /auth/login',
      'POST /auth/admin/reset_password',
      'POST /auth/access_token',
      'GET /auth/access_tokens',
      'DELETE /auth/access_token/:token_id',
      'POST /auth/access_token/:token_id/rotate',
      ...notImplementedRoutes.map((route) => `${route.method} ${route.url}`),
    ];
    for (const key of mustHave) expect(keys, key).toContain(key);
    for (const route of routes) expect(['public', 'read', 'write', 'admin']).toContain(route.permission);
  });

  it('declares the contract permissions on the auth group', () => {
    const permissionOf = (method: string, url: string) => routes.find((route) => route.method === method && route.url === url)?.permission;
    expect(permissionOf('GET', '/')).toBe('public');
    expect(permissionOf('GET', '/auth/admin/exists')).toBe('public');
    expect(permissionOf('POST', '/auth/login')).toBe('public');
    expect(permissionOf('POST', '/auth/admin')).toBe('public');
    for (const [method, url] of [
      ['POST', '/auth/admin/reset_password'],
      ['POST', '/auth/access_token'],
      ['GET', '/auth/access_tokens'],
      ['DELETE', '/auth/access_token/:token_id'],
      ['POST', '/auth/access_token/:token_id/rotate'],
    ] as const) {
      expect(permissionOf(method, url), `${method} ${url}`).toBe('admin');
    }
  });
});

describe('every route x every credential', () => {
  it('covers a real route list', () => {
    expect(routes.length).toBeGreaterThan(20);
  });

  it.each(routes.map((route) => [`${route.method} ${route.url} [${route.permission}]`, route] as const))(
    '%s — 401, 403 or passed for each credential exactly as its permission says',
    async (_name, route) => {
      const url = concreteUrl(route.url);
      const hasBody = route.method !== 'GET' && route.method !== 'HEAD' && route.method !== 'DELETE';
      const mismatches: string[] = [];
      for (const credential of credentialKinds) {
        const response = await context.app.inject({
          method: route.method,
          url,
          headers: headersFor[credential],
          // `{}` fails validation wherever a body field is required, so these calls change nothing.
          ...(hasBody ? { payload: {} } : {}),
        });
        const expected = expectedOutcome(route.permission, credential);
        const actual = response.statusCode;
        const matches = expected === 'passed' ? actual !== 401 && actual !== 403 : actual === expected;
        if (!matches) mismatches.push(`${credential}: expected ${expected}, got ${actual} ${response.body.slice(0, 120)}`);
        if (expected === 401 && route.method !== 'HEAD') {
          const body = response.json();
          const message = route.url.startsWith('/auth/') ? body.message : body.status?.error;
          if (message !== 'Invalid or missing authorization token') mismatches.push(`${credential}: 401 message was ${JSON.stringify(message)}`);
        }
      }
      expect(mismatches).toEqual([]);
    },
  );
});
