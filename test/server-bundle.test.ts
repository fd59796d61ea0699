// The server bundle that `npm start` and the Docker image run (scripts/build-server.mjs):
// the same server as the sources, with the parts kept outside the bundle (the addon, classic-level,
// pino, grpc-js) still found at run time, and V8's code cache of it in use. `npm test` builds it
// first (`pretest`).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { QdrantClient } from '@qdrant/js-client-grpc';
import { serverNodeFlags } from '../src/start/node-flags.js';
import { startChildServer, waitUntilReady, type ChildServer } from './support/child-server.js';
import { dataDirectoriesForFile } from './support/server.js';
import { freePort } from './grpc/free-port.js';
import { askReflection } from './grpc/reflection-client.js';

const projectRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const bundle = join(projectRoot, 'dist', 'server', 'main.js');
const newDirectory = dataDirectoriesForFile();

async function call(server: ChildServer, method: string, path: string, body?: unknown): Promise<{ status: number; json: any; headers: Headers }> {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, json: await response.json(), headers: response.headers };
}

describe('the bundled server (npm start)', () => {
  let server: ChildServer | undefined;
  // After each test: a test that ends with its server running must not leave it behind when the
  // next one starts its own.
  afterEach(async () => {
    await server?.kill('SIGKILL');
    server = undefined;
  });

  it('bundle — serves REST, gRPC and the dashboard like the sources, and keeps its points across a restart', async () => {
    expect(existsSync(bundle), `${bundle} is missing: run npm run build`).toBe(true);
    const directory = await newDirectory();
    const grpcPort = await freePort();
    const environment = { QUIVER__SERVICE__GRPC_PORT: String(grpcPort) };
    server = await startChildServer(directory, environment, projectRoot, bundle);
    await waitUntilReady(server.url);
    // The build's warm-up start wrote V8's code cache of the bundle, and this start compiled from it.
    const listening = server.logLines.map((line) => JSON.parse(line) as { msg: string; code_cache?: string }).find((line) => line.msg === 'quiverdb listening');
    expect(listening?.code_cache).toBe('used');

    // GET / reads the version from package.json, found by walking up from the bundle.
    const root = await call(server, 'GET', '/');
    const manifest = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { version: string };
    expect(root.status).toBe(200);
    expect(root.headers.get('x-quiverdb-version')).toBe(manifest.version);

    expect((await call(server, 'PUT', '/collections/bundled', { vectors: { size: 4, distance: 'Cosine' } })).status).toBe(200);
    // The text index uses a stemmer the bundle loads from node_modules at run time.
    expect((await call(server, 'PUT', '/collections/bundled/index?wait=true', { field_name: 'text', field_schema: { type: 'text', stemmer: { type: 'snowball', language: 'english' } } })).status).toBe(200);
    const points = [
      { id: 1, vector: [1, 0, 0, 0], payload: { text: 'foxes running' } },
      { id: 2, vector: [0, 1, 0, 0], payload: { text: 'a quiet lake' } },
    ];
    expect((await call(server, 'PUT', '/collections/bundled/points?wait=true', { points })).status).toBe(200);
    const filtered = await call(server, 'POST', '/collections/bundled/points/query', { query: [1, 0.1, 0, 0], filter: { must: [{ key: 'text', match: { text: 'run' } }] }, with_payload: true });
    expect(filtered.json.result.points.map((point: { id: number }) => point.id)).toEqual([1]);

    const dashboard = await fetch(`${server.url}/dashboard/`);
    expect(dashboard.status).toBe(200);
    expect(await dashboard.text()).toContain('<html');

    for (let attempt = 0; attempt < 200 && !server.logLines.some((line) => line.includes('quiverdb gRPC listening')); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const client = new QdrantClient({ host: '127.0.0.1', port: grpcPort, https: false, checkCompatibility: false });
    const found = await client.api('points').search({ collectionName: 'bundled', vector: [0, 1, 0, 0], limit: 1n });
    expect(found.result.map((point) => point.id?.pointIdOptions.value)).toEqual([2n]);
    // Reflection's package loads from node_modules with its own grpc-js beside the bundled one.
    const reflection = await askReflection(grpcPort, { listServices: '' });
    expect((reflection.listServicesResponse?.service ?? []).map((service) => service.name)).toContain('qdrant.Points');

    server.process.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    server = await startChildServer(directory, environment, projectRoot, bundle);
    await waitUntilReady(server.url, '/collections/bundled');
    const count = await call(server, 'POST', '/collections/bundled/points/count', { exact: true });
    expect(count.json.result.count).toBe(2);
  }, 120_000);

  it('bundle — reads a YAML config file (its parser loads from node_modules on demand) and reports the checkout’s commit', async () => {
    const directory = await newDirectory();
    const configFile = join(directory, 'quiver.yaml');
    writeFileSync(configFile, 'service:\n  # a body over 1 MiB is refused\n  max_request_size_mb: 1\n');
    server = await startChildServer(join(directory, 'storage'), { QUIVER_COMMIT: '' }, projectRoot, bundle, ['--config', configFile]);
    await waitUntilReady(server.url);

    expect((await call(server, 'PUT', '/collections/small', { vectors: { size: 4, distance: 'Dot' } })).status).toBe(200);
    const points = Array.from({ length: 1_000 }, (_, id) => ({ id, vector: [0.5, 0.25, 0.125, 0.0625], payload: { note: 'x'.repeat(1_200) } }));
    const refused = await call(server, 'PUT', '/collections/small/points', { points });
    expect(refused.status).toBe(400);
    expect(refused.json.status.error).toContain('limit of 1048576 bytes');

    // The commit is read from the checkout's .git files (src/git-commit.ts), as git names it.
    const root = await call(server, 'GET', '/');
    if (existsSync(join(projectRoot, '.git'))) {
      const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: projectRoot }).toString().trim();
      expect(root.json.commit).toBe(head);
    } else {
      expect(root.json.commit).toBeUndefined();
    }
    await server.kill('SIGTERM');
    server = undefined;
  }, 60_000);

  it('bundle — npm start, npm run serve and the Docker image run it under the V8 flags its code cache was made with', () => {
    const manifest = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    const shipped = ['node', ...serverNodeFlags, 'dist/server/main.js'];
    expect(manifest.scripts.start).toBe(shipped.join(' '));
    expect(manifest.scripts.serve).toBe(shipped.join(' '));
    const command = /^CMD (.+)$/m.exec(readFileSync(join(projectRoot, 'Dockerfile'), 'utf8'))?.[1];
    expect(JSON.parse(command ?? 'null')).toEqual(shipped);
    expect(serverNodeFlags).toContain('--max-semi-space-size=64');
    expect(serverNodeFlags).toContain('--initial-old-space-size=128');
  });

  it('bundle — a start under other V8 flags compiles without the code cache and leaves it as the build wrote it', async () => {
    const cache = join(projectRoot, 'dist', 'server', 'server.cjs.cache');
    const written = readFileSync(cache);
    const directory = await newDirectory();
    server = await startChildServer(directory, { NODE_OPTIONS: '--max-old-space-size=3000' }, projectRoot, bundle);
    await waitUntilReady(server.url);
    const listening = server.logLines.map((line) => JSON.parse(line) as { msg: string; code_cache?: string }).find((line) => line.msg === 'quiverdb listening');
    expect(listening?.code_cache).toBe('rejected');
    server.process.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    server = undefined;
    // A plain start after it still finds the build's cache, unchanged.
    expect(readFileSync(cache).equals(written)).toBe(true);
  }, 60_000);
});
