// The admin bootstrap and the data files' modes (docs/api.md §7.4, §7.5), against the real
// server as a child process (src/main.ts): real sockets from 127.0.0.1, real umask, real files.
import { chmod, mkdir, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { QdrantClient } from '@qdrant/js-client-rest';
import { afterEach, describe, expect, it } from 'vitest';
import { startChildServer, waitUntilReady, type ChildServer } from './support/child-server.js';
import { dataDirectoriesForFile } from './support/server.js';

const newDirectory = dataDirectoriesForFile();
const rootPassword = 'correct horse battery staple';
const squatterPassword = 'mallory owns this server';

let running: ChildServer[] = [];
afterEach(async () => {
  for (const child of running.splice(0)) await child.kill('SIGTERM');
});

/** Environment for auth on; `admin` puts credentials into the configuration. */
function authOn(admin?: { username: string; password: string }): Record<string, string> {
  return {
    QUIVER__AUTH__ENABLED: 'true',
    ...(admin ? { QUIVER__AUTH__ADMIN_USERNAME: admin.username, QUIVER__AUTH__ADMIN_PASSWORD: admin.password } : {}),
  };
}

async function start(directory: string, environment: Record<string, string> = {}): Promise<ChildServer> {
  const child = await startChildServer(directory, environment);
  running.push(child);
  await waitUntilReady(child.url);
  return child;
}

async function stop(child: ChildServer): Promise<void> {
  running = running.filter((other) => other !== child);
  await child.kill('SIGTERM');
}

interface Answer {
  status: number;
  body: any;
}

async function call(child: ChildServer, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(`${child.url}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
}

function login(child: ChildServer, username: string, password: string): Promise<Answer> {
  return call(child, 'POST', '/auth/login', { username, password });
}

async function jwtOf(child: ChildServer, username: string, password: string): Promise<string> {
  const answer = await login(child, username, password);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.token as string;
}

/** The parsed log lines of `child` whose message contains `text`, waiting briefly for stdout. */
async function logLinesWith(child: ChildServer, text: string, wait_ms = 3_000): Promise<Array<Record<string, unknown>>> {
  const deadline = Date.now() + wait_ms;
  for (;;) {
    const found = child.logLines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => String(line.msg).includes(text));
    if (found.length > 0 || Date.now() > deadline) return found;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function clientWith(child: ChildServer, apiKey: string): QdrantClient {
  const url = new URL(child.url);
  return new QdrantClient({ host: url.hostname, port: Number(url.port), https: false, apiKey, checkCompatibility: false });
}

const warnLevel = 40;
const proxyHeaders = { 'x-forwarded-for': '203.0.113.7', 'x-real-ip': '203.0.113.7', forwarded: 'for=203.0.113.7' };

describe('admin bootstrap (docs/api.md §7.5)', () => {
  it('bootstrap — with auth off, POST /auth/admin from this machine creates nothing, and the admin configured later is the one that logs in', async () => {
    const directory = await newDirectory();
    const open = await start(directory);
    for (const headers of [{}, proxyHeaders]) {
      const squat = await call(open, 'POST', '/auth/admin', { username: 'mallory', password: squatterPassword }, headers);
      expect(squat).toEqual({ status: 403, body: { status: 'error', message: 'Admin user API requires auth_enabled=true' } });
      const withGuessedCode = await call(open, 'POST', '/auth/admin', { username: 'mallory', password: squatterPassword, setup_code: '0'.repeat(32) }, headers);
      expect(withGuessedCode.status).toBe(403);
    }
    expect((await login(open, 'mallory', squatterPassword)).status).toBe(403);
    const reset = await call(open, 'POST', '/auth/admin/reset_password', { current_password: squatterPassword, new_password: squatterPassword });
    expect(reset).toEqual({ status: 403, body: { status: 'error', message: 'Admin user API requires auth_enabled=true' } });
    expect((await call(open, 'GET', '/auth/admin/exists')).body.result).toBe(false);
    await stop(open);

    const secured = await start(directory, authOn({ username: 'root', password: rootPassword }));
    expect((await login(secured, 'mallory', squatterPassword)).status).toBe(401);
    const jwt = await jwtOf(secured, 'root', rootPassword);
    expect((await call(secured, 'GET', '/collections', undefined, { authorization: `Bearer ${jwt}` })).status).toBe(200);
    // The whole start logged no replacement: there was nothing stored to replace.
    expect(await logLinesWith(secured, 'differs from the stored admin', 200)).toEqual([]);
  }, 90_000);

  it('bootstrap — with auth on, a request from 127.0.0.1 needs the setup code even behind a same-host proxy; the code logged at start creates the admin', async () => {
    const secured = await start(await newDirectory(), authOn());
    for (const headers of [{}, proxyHeaders]) {
      const withoutCode = await call(secured, 'POST', '/auth/admin', { username: 'mallory', password: squatterPassword }, headers);
      expect(withoutCode).toEqual({ status: 403, body: { status: 'error', message: 'Permission denied: creating the first admin needs the setup code logged at start' } });
    }
    expect((await call(secured, 'GET', '/auth/admin/exists')).body.result).toBe(false);

    const [announcement] = await logLinesWith(secured, 'setup_code');
    expect(announcement?.level).toBe(warnLevel);
    const code = /setup_code ([0-9a-f]{32})/.exec(String(announcement?.msg))?.[1];
    expect(code).toBeDefined();
    const created = await call(secured, 'POST', '/auth/admin', { username: 'root', password: rootPassword, setup_code: code });
    expect(created).toEqual({ status: 200, body: { status: 'success', message: 'Admin user created' } });
    // Single use: the same code cannot create a second admin.
    expect((await call(secured, 'POST', '/auth/admin', { username: 'mallory', password: squatterPassword, setup_code: code })).status).toBe(409);

    const jwt = await jwtOf(secured, 'root', rootPassword);
    expect((await clientWith(secured, jwt).getCollections()).collections).toEqual([]);
    await expect(clientWith(secured, 'not-a-credential').getCollections()).rejects.toMatchObject({ status: 401 });
  }, 90_000);

  it('bootstrap — a configured admin that differs from the stored one replaces it at start with a warn line; the stored admin\'s password and JWTs stop working', async () => {
    const directory = await newDirectory();
    const first = await start(directory, authOn({ username: 'mallory', password: squatterPassword }));
    const squatterJwt = await jwtOf(first, 'mallory', squatterPassword);
    await stop(first);

    const second = await start(directory, authOn({ username: 'root', password: rootPassword }));
    const [warning] = await logLinesWith(second, 'differs from the stored admin');
    expect(warning).toMatchObject({ level: warnLevel, username: 'root', replaced_username: 'mallory' });
    expect((await login(second, 'mallory', squatterPassword)).status).toBe(401);
    expect((await call(second, 'GET', '/collections', undefined, { authorization: `Bearer ${squatterJwt}` })).status).toBe(401);
    await expect(clientWith(second, squatterJwt).getCollections()).rejects.toMatchObject({ status: 401 });
    const rootJwt = await jwtOf(second, 'root', rootPassword);
    expect((await clientWith(second, rootJwt).getCollections()).collections).toEqual([]);
    await stop(second);

    // The same name with another password is a difference too.
    const third = await start(directory, authOn({ username: 'root', password: 'a different passphrase' }));
    expect((await logLinesWith(third, 'differs from the stored admin'))[0]).toMatchObject({ level: warnLevel, replaced_username: 'root' });
    expect((await call(third, 'GET', '/collections', undefined, { authorization: `Bearer ${rootJwt}` })).status).toBe(401);
    const thirdJwt = await jwtOf(third, 'root', 'a different passphrase');
    await stop(third);

    // A matching configuration changes nothing: no warning, earlier JWTs keep working.
    const fourth = await start(directory, authOn({ username: 'root', password: 'a different passphrase' }));
    expect((await call(fourth, 'GET', '/collections', undefined, { authorization: `Bearer ${thirdJwt}` })).status).toBe(200);
    expect(await logLinesWith(fourth, 'differs from the stored admin', 200)).toEqual([]);
  }, 120_000);
});

/** Every entry under `directory` (itself included) with its permission bits. */
async function modesUnder(directory: string): Promise<Array<{ path: string; directory: boolean; mode: number }>> {
  const found = [{ path: directory, directory: true, mode: (await stat(directory)).mode & 0o777 }];
  for (const entry of await readdir(directory, { withFileTypes: true, recursive: true })) {
    const path = join(entry.parentPath, entry.name);
    found.push({ path, directory: entry.isDirectory(), mode: (await stat(path)).mode & 0o777 });
  }
  return found;
}

describe('data file modes (docs/api.md §7.4)', () => {
  it('file modes — a new data directory is 0700 and every file the server writes under it is 0600', async () => {
    const parent = await newDirectory();
    const directory = join(parent, 'nested', 'data');
    // The checkpoint settings make the kernel write checkpoint files during the test.
    const child = await start(directory, { ...authOn({ username: 'root', password: rootPassword }), QUIVER__STORAGE__CHECKPOINT_OPERATIONS: '1' });
    const headers = { authorization: `Bearer ${await jwtOf(child, 'root', rootPassword)}` };
    expect((await call(child, 'PUT', '/collections/private', { vectors: { size: 3, distance: 'Cosine' } }, headers)).status).toBe(200);
    for (let batch = 0; batch < 3; batch += 1) {
      const points = [1, 2, 3].map((id) => ({ id: batch * 3 + id, vector: [id, batch + 1, 1], payload: { batch } }));
      expect((await call(child, 'PUT', '/collections/private/points?wait=true', { points }, headers)).status).toBe(200);
    }
    const token = await call(child, 'POST', '/auth/access_token', { name: 'svc', permission: 'read' }, headers);
    expect(token.status).toBe(200);
    await stop(child);

    const entries = await modesUnder(directory);
    const files = entries.filter((entry) => !entry.directory);
    // LevelDB's files, the JWT secret and the collection's files are all there to be checked.
    expect(files.some((entry) => entry.path.endsWith('jwt_secret'))).toBe(true);
    expect(files.some((entry) => /\.(ldb|log)$/.test(entry.path))).toBe(true);
    expect(files.length).toBeGreaterThan(5);
    for (const entry of entries) expect(entry.mode.toString(8), entry.path).toBe(entry.directory ? '700' : '600');
    expect(((await stat(join(parent, 'nested'))).mode & 0o777).toString(8)).toBe('700');
  }, 90_000);

  it('file modes — an existing data directory open to other users gets a warn line at start and keeps its mode; a private one none', async () => {
    const directory = await newDirectory();
    await mkdir(directory, { recursive: true });
    await chmod(directory, 0o755);
    const shared = await start(directory);
    const [warning] = await logLinesWith(shared, 'open to other users');
    expect(warning).toMatchObject({ level: warnLevel, mode: '0755', storage: directory });
    expect((await stat(directory)).mode & 0o777).toBe(0o755);
    await stop(shared);

    await chmod(directory, 0o700);
    const private_ = await start(directory);
    expect(await logLinesWith(private_, 'open to other users', 200)).toEqual([]);
  }, 90_000);
});
