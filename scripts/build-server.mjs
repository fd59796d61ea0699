#!/usr/bin/env node
// `npm run build:server`: bundles the compiled server (dist/main.js and every module it imports,
// dependencies included) into dist/server/server.cjs, with dist/server/main.js beside it, the
// launcher that `npm start` and the Docker image run (src/start/launch.ts). Node resolves, reads
// and compiles each of the ~1,200 files a plain start loads one by one; a bundle halves the time
// from spawn to listening, and V8's code cache of it (written by a warm-up start here) takes
// off most of what is left of compiling it (docs/architecture.md §21).
//
// The bundle is CommonJS so that V8 can cache its code (it caches scripts, not ES modules). The
// parts imported with import() only when used (the gRPC door's server, cluster mode) stay
// inside it, evaluated on first use: their external imports (grpc-js) load only then.
//
// Left outside the bundle, loaded from node_modules at run time as before: the native parts
// (the addon's loader, classic-level), pino, whose transports start worker threads from their
// own files, and grpc-js with @grpc/reflection, which read .proto files beside their modules. The
// bundle sits two directories below the project root, like every dist/ module that reads a file by
// a path relative to itself (the addon, the dashboard).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { buildInPlace } from './build-in-place.mjs';
// Compiled by `npm run build:ts`, which the build runs before this script.
import { serverNodeFlags } from '../dist/start/node-flags.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const serverBundle = join(root, 'dist', 'server', 'main.js');
const warmUpLimitMs = 60_000;

/** A port free on 127.0.0.1 right now (for the warm-up's gRPC door). */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function call(url, method, path, body) {
  const response = await fetch(`${url}${path}`, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  if (response.status !== 200) throw new Error(`warm-up ${method} ${path}: ${response.status} ${await response.text()}`);
}

/**
 * Starts the launcher in `directory` over an empty data directory, sends it the calls of a
 * first session (a collection, points, a search), and stops it with SIGTERM: its clean exit
 * writes the code cache with every function that start compiled. A bundle that cannot start
 * fails the build here, with the server's output.
 */
async function warmUp(directory) {
  const data = await mkdtemp(join(tmpdir(), 'quiver-build-warm-up-'));
  // The machine's own QUIVER__ settings (auth, a storage path) are not the warm-up's, and the
  // cache is made for the shipped command, `node <serverNodeFlags> main.js` (V8 rejects it under
  // other flags; src/start/launch.ts).
  const environment = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('QUIVER__') && name !== 'NODE_OPTIONS'));
  const child = spawn(process.execPath, [...serverNodeFlags, join(directory, 'main.js')], {
    cwd: root,
    env: {
      ...environment,
      QUIVER__STORAGE__PATH: data,
      QUIVER__SERVICE__HOST: '127.0.0.1',
      QUIVER__SERVICE__HTTP_PORT: '0',
      QUIVER__SERVICE__GRPC_PORT: String(await freePort()),
      QUIVER__LOG__LEVEL: 'info',
      QUIVER__LOG__PRETTY: 'false',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  const seen = (message) =>
    new Promise((resolve, reject) => {
      const check = () => {
        const line = output.split('\n').find((candidate) => candidate.includes(`"msg":"${message}"`));
        if (line !== undefined) resolve(JSON.parse(line));
      };
      child.stdout.on('data', check);
      exited.then((code) => reject(new Error(`the warm-up server exited (${code}) before "${message}"`)));
      check();
    });
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), warmUpLimitMs);
  try {
    const listening = await seen('quiverdb listening');
    await seen('engine ready');
    await seen('quiverdb gRPC listening');
    const url = listening.address.replace('0.0.0.0', '127.0.0.1');
    await call(url, 'PUT', '/collections/warm-up', { vectors: { size: 4, distance: 'Cosine' } });
    await call(url, 'PUT', '/collections/warm-up/points?wait=true', { points: [{ id: 1, vector: [1, 0, 0, 0], payload: { tag: 'a' } }, { id: 2, vector: [0, 1, 0, 0] }] });
    await call(url, 'POST', '/collections/warm-up/points/query', { query: [1, 0, 0, 0], limit: 1, filter: { must: [{ key: 'tag', match: { value: 'a' } }] }, with_payload: true });
    child.kill('SIGTERM');
    const code = await exited;
    if (code !== 0) throw new Error(`the warm-up server's clean stop exited with ${code}`);
    if (!existsSync(join(directory, 'server.cjs.cache'))) throw new Error('the warm-up start wrote no code cache');
  } catch (error) {
    child.kill('SIGKILL');
    throw new Error(`${error.message}\n--- the warm-up server's output ---\n${output}`);
  } finally {
    clearTimeout(timer);
    await rm(data, { recursive: true, force: true });
  }
}

/** Bundles into dist/server through a scratch directory (build-in-place.mjs), warm-up included. */
export async function buildServer() {
  await buildInPlace(dirname(serverBundle), 'server', async (scratch) => {
    const common = { bundle: true, platform: 'node', target: ['node20'], sourcemap: 'linked', legalComments: 'eof', logLevel: 'warning' };
    await build({
      ...common,
      entryPoints: [join(root, 'dist', 'main.js')],
      outfile: join(scratch, 'server.cjs'),
      format: 'cjs',
      // import() stays a lazy, in-bundle evaluation (the launcher runs the bundle as a script,
      // which has no loader for ES modules).
      supported: { 'dynamic-import': false },
      // The modules find files by their own location (createRequire, the dashboard, package.json).
      define: { 'import.meta.url': 'bundleUrl' },
      banner: { js: "const bundleUrl = require('node:url').pathToFileURL(__filename).href;" },
      external: ['classic-level', 'pino', 'pino-pretty', '@grpc/reflection', '*.node', '../../native/index.cjs'],
    });
    await build({ ...common, entryPoints: [join(root, 'dist', 'start', 'launch.js')], outfile: join(scratch, 'main.js'), format: 'esm' });
    await warmUp(scratch);
  });
  return serverBundle;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const written = await buildServer();
  console.log(`server bundled into ${written}`);
}
