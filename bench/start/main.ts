// bench:start — upsert throughput over HTTP and the time from process start to ready for a
// large collection, with a kernel checkpoint and without one (rebuild from stored vectors).
//
//   npm run bench:start              200k x 128 (batches of 1,000) + 20k x 768, twice: 4-decimal
//                                    literals, then numpy's 17-digit ones (what Python clients send)
//   npm run bench:start -- --quick   20k x 128 + 4k x 768, well under a minute
//   npm run bench:start -- --upload  only the two uploads and the wait for green (no restarts)
//   ... -- --root /work/main          runs another checkout's server (a before/after on one machine)
//   ... -- --no-green                 with --upload: stop after the uploads, without waiting for green
//   npm run bench:start -- --restart  the issue's restart set (100k x 128 + 50k x 768), then five
//                                     clean restarts and one after a SIGKILL of the bundled server
//                                     (dist/server/main.js, what npm start runs; build it first)
//
// The server runs as a child process (`node --import tsx src/main.ts`) over a temporary data
// directory with default settings (fsync on). Figures are printed; nothing is asserted.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startChildServer, waitUntilReady, type ChildServer } from '../../test/support/child-server.js';
import { freePort } from '../../test/grpc/free-port.js';
import { mulberry32 } from '../../test/support/seeded-random.js';
import { median } from '../statistics.js';

const quick = process.argv.includes('--quick');
const uploadOnly = process.argv.includes('--upload');
const restartOnly = process.argv.includes('--restart');
const skipGreen = process.argv.includes('--no-green');
const rootArgument = process.argv.indexOf('--root');
const serverRoot = rootArgument >= 0 ? process.argv[rootArgument + 1] : undefined;
const batchSize = 1_000;
const smallCount = restartOnly ? 100_000 : quick ? 20_000 : 200_000;
const wideCount = restartOnly ? 50_000 : quick ? 4_000 : 20_000;
const requestsInFlight = 2;
// Bodies are generated between calls; on a loaded machine that can outlast the default 5 s
// keep-alive, and a request written into a socket the server just closed fails with EPIPE.
const serverEnvironment = { QUIVER__LOG__LEVEL: 'info', QUIVER__SERVICE__KEEP_ALIVE_TIMEOUT_SECONDS: '300' };

/**
 * How vector values are written: `short` as 4-decimal literals (a compact body), `numpy` as a
 * Python client sends float32 embeddings, the double numpy widens each to (16–17 digits).
 */
type Literals = 'short' | 'numpy';

/** One upsert body as JSON text: ids from `firstId`, values written as `literals` says. */
function batchBody(random: () => number, firstId: number, count: number, dimension: number, literals: Literals): string {
  const points: string[] = [];
  for (let position = 0; position < count; position += 1) {
    const values = new Array<string>(dimension);
    for (let index = 0; index < dimension; index += 1) {
      const value = random() * 2 - 1;
      values[index] = literals === 'short' ? value.toFixed(4) : String(Math.fround(value));
    }
    points.push(`{"id":${firstId + position},"vector":[${values.join(',')}],"payload":{"group":${(firstId + position) % 100}}}`);
  }
  return `{"points":[${points.join(',')}]}`;
}

async function call(url: string, method: string, path: string, body?: string): Promise<any> {
  const response = await fetch(`${url}${path}`, { method, headers: body === undefined ? {} : { 'content-type': 'application/json' }, body });
  const parsed = await response.json();
  if (response.status !== 200) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(parsed).slice(0, 300)}`);
  return parsed;
}

/** Upsert bodies of `count` points in batches of 1,000, generated before any timing. */
function makeBodies(count: number, dimension: number, seed: number, literals: Literals = 'short'): string[] {
  const random = mulberry32(seed);
  const bodies: string[] = [];
  for (let first = 0; first < count; first += batchSize) bodies.push(batchBody(random, first + 1, Math.min(batchSize, count - first), dimension, literals));
  return bodies;
}

/** CPU milliseconds of one /proc stat file (USER_HZ 100): utime + stime. */
function statCpuMs(path: string): number {
  const text = readFileSync(path, 'utf8');
  // After "pid (name) ", fields[0] is the state (field 3): utime is field 14, stime field 15.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * CPU milliseconds the server has used so far (Linux /proc), in total and by thread name (the
 * JS thread is "main"; libuv's pool runs LevelDB writes and the addon's async calls; LevelDB
 * compacts on its own thread; the kernel builds the graph on its own). Threads that ended are
 * in the total only. On a shared machine the rate depends on the load; CPU per point much less.
 */
function cpuSnapshot(pid: number): { total: number; byThread: Map<string, number> } {
  const byThread = new Map<string, number>();
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      const name = task === String(pid) ? 'main' : readFileSync(`/proc/${pid}/task/${task}/comm`, 'utf8').trim().replace(/\d+$/, '#');
      byThread.set(name, (byThread.get(name) ?? 0) + statCpuMs(`/proc/${pid}/task/${task}/stat`));
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return { total: statCpuMs(`/proc/${pid}/stat`), byThread };
}

function cpuReport(before: ReturnType<typeof cpuSnapshot>, after: ReturnType<typeof cpuSnapshot>, count: number): string {
  const perThousand = (ms: number) => ((ms * 1000) / count).toFixed(0);
  const threads = [...after.byThread]
    .map(([name, ms]) => [name, ms - (before.byThread.get(name) ?? 0)] as const)
    .filter(([, ms]) => ms > 0)
    .sort((left, right) => right[1] - left[1])
    .map(([name, ms]) => `${name} ${perThousand(ms)}`);
  return `server CPU ${perThousand(after.total - before.total)} ms per 1,000 points (by thread: ${threads.join(', ')})`;
}

/** Loads `bodies` (batches of 1,000), two requests in flight; returns points/s and server CPU per 1,000 points. */
async function load(server: ChildServer, collection: string, count: number, dimension: number, bodies: readonly string[]): Promise<{ rate: number; cpu: string }> {
  const url = server.url;
  const pid = server.process.pid!;
  // The bodies of both loads are generated before the server's first request: generating them
  // can outlast its 5 s keep-alive, and a request sent on a connection it has just closed fails.
  await call(url, 'PUT', `/collections/${collection}`, JSON.stringify({ vectors: { size: dimension, distance: 'Cosine' } }));
  const started = performance.now();
  const cpuBefore = cpuSnapshot(pid);
  let next = 0;
  const worker = async () => {
    while (next < bodies.length) {
      const body = bodies[next++]!;
      await call(url, 'PUT', `/collections/${collection}/points?wait=true`, body);
    }
  };
  await Promise.all(Array.from({ length: requestsInFlight }, worker));
  const seconds = (performance.now() - started) / 1000;
  return { rate: count / seconds, cpu: cpuReport(cpuBefore, cpuSnapshot(pid), count) };
}

async function waitGreen(url: string, collection: string): Promise<number> {
  const started = performance.now();
  for (;;) {
    const info = await call(url, 'GET', `/collections/${collection}`);
    if (info.result.status === 'green') return performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Spawns the server and measures spawn -> a collection route stops answering 412. */
async function timeToReady(directory: string, collection: string): Promise<{ server: ChildServer; total_ms: number }> {
  const started = performance.now();
  const server = await startChildServer(directory, serverEnvironment, serverRoot);
  await waitUntilReady(server.url, `/collections/${collection}`, 600_000);
  return { server, total_ms: performance.now() - started };
}

async function removeCheckpoints(directory: string): Promise<number> {
  let removed = 0;
  const root = join(directory, 'collections');
  for (const collection of await readdir(root)) {
    for (const file of await readdir(join(root, collection))) {
      if (file.endsWith('.qvi')) {
        await rm(join(root, collection, file));
        removed += 1;
      }
    }
  }
  return removed;
}

/**
 * Spawn -> ready of the bundled server (gRPC on, as by default) over `directory`, and the
 * engine's own open -> ready from its log; stopped with `stop` (SIGTERM writes the shutdown
 * checkpoint and the point hand-off file, SIGKILL leaves neither).
 */
async function bundledStart(directory: string, stop: NodeJS.Signals): Promise<{ total_ms: number; engine_ms: number }> {
  const root = serverRoot ?? join(dirname(fileURLToPath(import.meta.url)), '..', '..');
  const environment = { ...serverEnvironment, QUIVER__SERVICE__GRPC_PORT: String(await freePort()) };
  // A checkout from before the bundle (a --root before/after) runs its plain build instead.
  const bundle = join(root, 'dist', 'server', 'main.js');
  const started = performance.now();
  const server = await startChildServer(directory, environment, root, existsSync(bundle) ? bundle : join(root, 'dist', 'main.js'));
  try {
    await waitUntilReady(server.url, '/collections/small', 600_000);
    await waitUntilReady(server.url, '/collections/wide', 600_000);
    const total_ms = performance.now() - started;
    const readyLine = server.logLines.find((line) => line.includes('"engine ready"'));
    return { total_ms, engine_ms: readyLine ? (JSON.parse(readyLine) as { elapsed_ms: number }).elapsed_ms : Number.NaN };
  } finally {
    await server.kill(stop);
  }
}

/** The issue's restart set, then clean restarts and a start after a crash, each timed. */
async function restartRounds(directory: string, smallBodies: readonly string[], wideBodies: readonly string[]): Promise<void> {
  const empty = await mkdtemp(join(tmpdir(), 'quiver-bench-start-empty-'));
  try {
    let server: ChildServer | undefined = await startChildServer(directory, serverEnvironment, serverRoot);
    await waitUntilReady(server.url);
    await load(server, 'small', smallCount, 128, smallBodies);
    await load(server, 'wide', wideCount, 768, wideBodies);
    await waitGreen(server.url, 'small');
    await waitGreen(server.url, 'wide');
    await server.kill('SIGTERM');
    server = undefined;
    const baseline: number[] = [];
    for (let round = 0; round < 3; round += 1) baseline.push((await bundledStart(empty, 'SIGTERM')).total_ms);
    const clean: { total_ms: number; engine_ms: number }[] = [];
    for (let round = 0; round < 5; round += 1) clean.push(await bundledStart(directory, 'SIGTERM'));
    // A crash leaves no hand-off file: the start after it reads every point from the store.
    await bundledStart(directory, 'SIGKILL');
    const crashed = await bundledStart(directory, 'SIGTERM');
    const rounds = (values: readonly number[]) => `median ${Math.round(median(values))} ms (${values.map((value) => Math.round(value)).join(' / ')})`;
    const root = serverRoot ?? join(dirname(fileURLToPath(import.meta.url)), '..', '..');
    console.log(`server: ${existsSync(join(root, 'dist', 'server', 'main.js')) ? 'dist/server/main.js (the bundle)' : 'dist/main.js (no bundle in this checkout)'}, gRPC on`);
    console.log(`empty data directory, spawn -> ready: ${rounds(baseline)}`);
    console.log(`clean restart, spawn -> ready: ${rounds(clean.map((start) => start.total_ms))}; engine open -> ready ${rounds(clean.map((start) => start.engine_ms))}`);
    console.log(`start after a SIGKILL (no hand-off file), spawn -> ready: ${Math.round(crashed.total_ms)} ms; engine ${crashed.engine_ms} ms`);
  } finally {
    await rm(empty, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const directory = await mkdtemp(join(tmpdir(), 'quiver-bench-start-'));
  let server: ChildServer | undefined;
  try {
    console.log(`bench:start${quick ? ' (quick)' : ''}${serverRoot ? ` (server from ${serverRoot})` : ''}: ${smallCount} x 128 and ${wideCount} x 768, batches of ${batchSize}, ${requestsInFlight} requests in flight, fsync on`);
    const smallBodies = makeBodies(smallCount, 128, 1);
    const wideBodies = makeBodies(wideCount, 768, 2);
    if (restartOnly) {
      await restartRounds(directory, smallBodies, wideBodies);
      return;
    }
    // Baseline: node + tsx + an empty data directory, so the figures below can be read net of it.
    const emptyStarted = performance.now();
    server = await startChildServer(directory, serverEnvironment, serverRoot);
    await waitUntilReady(server.url);
    console.log(`start -> ready, empty data directory (process + tsx baseline): ${Math.round(performance.now() - emptyStarted)} ms`);

    const small = await load(server, 'small', smallCount, 128, smallBodies);
    console.log(`upsert 128-d: ${Math.round(small.rate)} points/s, ${small.cpu}`);
    const wide = await load(server, 'wide', wideCount, 768, wideBodies);
    console.log(`upsert 768-d: ${Math.round(wide.rate)} points/s, ${wide.cpu}`);
    // The same count again with the literals Python clients send (generated here, after the
    // other loads, so that their bodies are not all held at once).
    const numpyBodies = makeBodies(wideCount, 768, 3, 'numpy');
    const numpy = await load(server, 'wide_numpy', wideCount, 768, numpyBodies);
    console.log(`upsert 768-d, numpy's 17-digit literals (${(numpyBodies[0]!.length / 1e6).toFixed(1)} MB a batch): ${Math.round(numpy.rate)} points/s, ${numpy.cpu}`);
    if (uploadOnly && skipGreen) return;
    const indexing_ms = await waitGreen(server.url, 'small');
    await waitGreen(server.url, 'wide');
    console.log(`graph caught up ${Math.round(indexing_ms)} ms after the last 128-d write`);
    if (uploadOnly) return;

    // A clean stop takes the shutdown checkpoint.
    await server.kill('SIGTERM');
    server = undefined;

    const withCheckpoint = await timeToReady(directory, 'small');
    server = withCheckpoint.server;
    const info = await call(server.url, 'GET', '/collections/small');
    console.log(`start -> ready with a checkpoint: ${Math.round(withCheckpoint.total_ms)} ms (${info.result.points_count} + ${wideCount} points, status ${info.result.status})`);
    await server.kill('SIGTERM');
    server = undefined;

    const removed = await removeCheckpoints(directory);
    const withoutCheckpoint = await timeToReady(directory, 'small');
    server = withoutCheckpoint.server;
    const rebuilt = await call(server.url, 'GET', '/collections/small');
    console.log(`start -> ready without a checkpoint (${removed} files removed, rebuilt from stored vectors): ${Math.round(withoutCheckpoint.total_ms)} ms (status ${rebuilt.result.status}, graph builds in the background)`);
    const rebuildGreen_ms = await waitGreen(server.url, 'small');
    console.log(`  ... and the rebuilt 128-d graph was complete ${Math.round(rebuildGreen_ms)} ms later`);
    await server.kill('SIGTERM');
    server = undefined;
  } finally {
    await server?.kill('SIGKILL');
    await rm(directory, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
