// bench:memory — what a large collection costs in RAM with its originals on disk and int8 codes
// in RAM (docs/api.md §18), against the same data held as float32 on the heap.
//
//   npm run bench:memory -- --count 200000            200k x 768 (the issue's target is 2M)
//   npm run bench:memory -- --count 20000 --dimension 128 --queries 50
//   npm run bench:memory -- --count 2000000 --only int8 --squeeze    the issue's run, under a limit
//   ... -- --ef 128,256,512                     also recall and QPS of the same queries at each hnsw_ef
//   ... -- --oversampling 2,4,8                 ... at each oversampling (default 2), for every ef
//   ... -- --ignore                             ... and with `quantization.ignore` (the walk on the
//                                               originals): the graph's own recall, without the codes
//   ... -- --embedding-like                     the data of bench:ann's embedding-like set (a
//                                               decaying spectrum and soft topics) instead of 64
//                                               Gaussian clusters
//
// --only <text> runs only the modes whose name contains <text>. --squeeze (Linux, root, cgroup v1
// memory controller) puts each child server in a memory cgroup of its own; once the collection is
// green it lowers the cgroup's limit step by step toward 0.4x the float32 size of the data (the
// issue's target), keeping the lowest limit the kernel accepts (it refuses a limit it cannot
// reclaim down to), and measures RSS, recall and QPS again under that limit: what the process
// needs when memory is really short, rather than what it holds when nothing presses on it.
//   npm run bench:memory -- --points-only --count 1000000    ids + payloads (bench/memory/points.ts)
//
// Per mode a child server (`node --import tsx src/main.ts`, fsync on, default settings) gets
// generated data over HTTP, waits until the graph and codes are complete, then reports
// the process's RSS split from /proc (anonymous vs file-backed), the kernel's own figures
// (`kernel_memory` of GET C), build time, recall@10 of the default search against the exact
// scan (`params.exact`) of the same server, and the QPS of that search, one request at a time.
// Then the server is restarted (load from the checkpoint) and RSS is read again, with the peak
// (VmHWM) of the load. Figures are printed; nothing is asserted.
import { readFile, writeFile, mkdir, mkdtemp, rm, rmdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChildServer, waitUntilReady, type ChildServer } from '../../test/support/child-server.js';
import { mulberry32 } from '../../test/support/seeded-random.js';
import { EmbeddingLikeSource } from '../ann/data.js';

function option(name: string, fallback: number): number {
  const position = process.argv.indexOf(`--${name}`);
  if (position < 0) return fallback;
  const value = Number(process.argv[position + 1]);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`--${name} needs a positive integer`);
  return value;
}

function textOption(name: string): string | undefined {
  const position = process.argv.indexOf(`--${name}`);
  return position < 0 ? undefined : process.argv[position + 1];
}

/** `--name a,b,c`: positive numbers (integers unless `fractions`), or `fallback` when absent. */
function numberList(name: string, fallback: number[], fractions = false): number[] {
  const text = textOption(name);
  if (text === undefined) return fallback;
  return text
    .split(',')
    .filter((part) => part !== '')
    .map((part) => {
      const value = Number(part);
      if (!(value > 0) || (!fractions && !Number.isInteger(value))) throw new Error(`--${name} needs positive ${fractions ? 'numbers' : 'integers'}, comma-separated: ${part}`);
      return value;
    });
}

const count = option('count', 2_000_000);
// --ef 128,256,512: after the default search, the same queries with each `hnsw_ef` (recall/QPS per value).
const efValues = numberList('ef', []);
const oversamplingValues = numberList('oversampling', [2], true);
const ignoreQuantization = process.argv.includes('--ignore');
const embeddingLike = process.argv.includes('--embedding-like');
const only = textOption('only');
const squeeze = process.argv.includes('--squeeze');
const dimension = option('dimension', 768);
const queryCount = option('queries', 100);
const batchSize = 500;
const clusters = 64;
const requestsInFlight = 2;

interface Mode {
  name: string;
  vectors: Record<string, unknown>;
  quantization?: Record<string, unknown>;
}

const allModes: Mode[] = [
  { name: 'float32 on the heap', vectors: { size: dimension, distance: 'Cosine' } },
  { name: 'on_disk originals + int8 codes', vectors: { size: dimension, distance: 'Cosine', on_disk: true }, quantization: { scalar: { type: 'int8' } } },
];

const modes = allModes.filter((mode) => only === undefined || mode.name.includes(only));

/** Where the bench's vectors come from: `Generator` (clustered) or `EmbeddingLikeGenerator`. */
interface VectorSource {
  vector(): number[];
}

/** The embedding-like model of bench:ann (EmbeddingLikeSource), a row at a time, as JSON-ready numbers. */
class EmbeddingLikeGenerator implements VectorSource {
  private readonly source: EmbeddingLikeSource;

  /** As `Generator`: the data continue the model's stream, the queries (`sampleSeed`) have their own. */
  constructor(sampleSeed?: number) {
    this.source = new EmbeddingLikeSource(dimension, 3, sampleSeed);
  }

  vector(): number[] {
    return Array.from(this.source.draw(1), (value) => Number(value.toFixed(4)));
  }
}

/** The data's source, or with `sampleSeed` the queries' (fresh draws of the same model). */
function vectorSource(sampleSeed?: number): VectorSource {
  return embeddingLike ? new EmbeddingLikeGenerator(sampleSeed) : new Generator(sampleSeed);
}

/** Clustered vectors, generated batch by batch so the bench holds none of them. */
class Generator implements VectorSource {
  private random = mulberry32(7);
  readonly centres: Float32Array;

  /**
   * The data's vectors continue the centres' random stream (`sampleSeed` absent); the queries
   * draw from a stream of their own around the same centres, so no query is a stored point (until
   * 2026-11-25 they were the first stored points, each its own nearest neighbour).
   */
  constructor(sampleSeed?: number) {
    this.centres = new Float32Array(clusters * dimension);
    for (let index = 0; index < this.centres.length; index += 1) this.centres[index] = this.gaussian() * 3;
    if (sampleSeed !== undefined) this.random = mulberry32(sampleSeed);
  }

  gaussian(): number {
    return Math.sqrt(-2 * Math.log(this.random() + 1e-12)) * Math.cos(2 * Math.PI * this.random());
  }

  vector(): number[] {
    const centre = Math.floor(this.random() * clusters) * dimension;
    const values = new Array<number>(dimension);
    for (let index = 0; index < dimension; index += 1) values[index] = Number((this.centres[centre + index]! + this.gaussian()).toFixed(4));
    return values;
  }
}

/**
 * One request; a connection reset is retried (every call here is idempotent): on a loaded machine
 * the client may write on a kept-alive socket the server is just closing after its idle timeout.
 */
async function call(url: string, method: string, path: string, body?: unknown): Promise<any> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await callOnce(url, method, path, body);
    } catch (error) {
      if (attempt >= 5 || !(error instanceof TypeError)) throw error;
      console.warn(`${method} ${path}: ${(error as Error).message} (${String((error as Error).cause)}); retrying`);
    }
  }
}

async function callOnce(url: string, method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const parsed = await response.json();
  if (response.status !== 200) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(parsed).slice(0, 300)}`);
  return parsed;
}

/** VmRSS, RssAnon, RssFile and VmHWM of `pid` in bytes, from /proc. */
async function memoryOf(pid: number): Promise<{ rss: number; anonymous: number; file: number; peak: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(/\s(\d+) kB/.exec(status.split('\n').find((line) => line.startsWith(`${name}:`)) ?? ' 0 kB')![1]) * 1024;
  return { rss: field('VmRSS'), anonymous: field('RssAnon'), file: field('RssFile'), peak: field('VmHWM') };
}

const cgroupRoot = '/sys/fs/cgroup/memory';

/**
 * Creates a memory cgroup (v1) with no limit yet and moves this process into it, so that the child
 * server spawned next is charged there from its first page (charges do not move with a process).
 */
async function enterCgroup(name: string): Promise<string> {
  const path = join(cgroupRoot, `quiver-bench-memory-${process.pid}-${name}`);
  await mkdir(path, { recursive: true });
  await writeFile(join(path, 'cgroup.procs'), String(process.pid));
  return path;
}

/** Moves this process back to the root cgroup, leaving the child in the group. */
async function leaveCgroup(): Promise<void> {
  await writeFile(join(cgroupRoot, 'cgroup.procs'), String(process.pid));
}

async function cgroupNumber(path: string, file: string): Promise<number> {
  return Number((await readFile(join(path, file), 'utf8')).trim());
}

/**
 * Lowers the limit of `path` by 5% steps of the current usage down to `floor` bytes; the kernel
 * reclaims on each step and refuses (EBUSY) a limit it cannot reach. Returns the lowest accepted.
 */
async function squeezeTo(path: string, floor: number): Promise<number> {
  let accepted = await cgroupNumber(path, 'memory.usage_in_bytes');
  for (;;) {
    const next = Math.max(floor, Math.floor(accepted * 0.95));
    try {
      await writeFile(join(path, 'memory.limit_in_bytes'), String(next));
    } catch {
      return accepted;
    }
    accepted = next;
    if (next === floor) return accepted;
  }
}

/** Removes an emptied cgroup; the kernel may take a moment to see its last process gone. */
async function dropCgroup(path: string | undefined): Promise<void> {
  if (path === undefined) return;
  for (let attempt = 0; attempt < 20; attempt += 1) {
    try {
      await rmdir(path);
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  console.warn(`could not remove the cgroup ${path}`);
}

const megabytes = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

/** Waits for green, printing the indexed count every `reportEveryMs` so a long run shows progress. */
async function waitGreen(url: string, reportEveryMs = 60_000): Promise<void> {
  let lastReport = performance.now();
  for (;;) {
    const info = await call(url, 'GET', '/collections/bench');
    if (info.result.status === 'green') return;
    if (performance.now() - lastReport >= reportEveryMs) {
      lastReport = performance.now();
      console.log(`  ${new Date().toISOString().slice(11, 19)} ${info.result.status}: ${info.result.indexed_vectors_count} of ${info.result.points_count} indexed`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function load(url: string, mode: Mode): Promise<number> {
  await call(url, 'PUT', '/collections/bench', { vectors: mode.vectors, ...(mode.quantization ? { quantization_config: mode.quantization } : {}) });
  const generator = vectorSource();
  const started = performance.now();
  const progressStep = Math.max(batchSize, Math.ceil(count / 10 / batchSize) * batchSize);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const first = next;
      next += batchSize;
      const points = [];
      for (let id = first; id < Math.min(first + batchSize, count); id += 1) points.push({ id, vector: generator.vector() });
      await call(url, 'PUT', '/collections/bench/points?wait=true', { points });
      // A long upload shows progress every 10% (the 2M run takes most of an hour here).
      if (Math.floor((first + batchSize) / progressStep) > Math.floor(first / progressStep)) {
        console.log(`  ${new Date().toISOString().slice(11, 19)} accepted ${Math.min(first + batchSize, count)} of ${count} (${((performance.now() - started) / 1000).toFixed(0)} s)`);
      }
    }
  };
  await Promise.all(Array.from({ length: requestsInFlight }, worker));
  await waitGreen(url);
  return (performance.now() - started) / 1000;
}

/** What a search sends as `params` beyond the query: `hnsw_ef` and the quantization options. */
interface SearchSettings {
  ef?: number;
  oversampling: number;
  ignore?: boolean;
}

const defaultSettings: SearchSettings = { oversampling: 2 };

function describe(settings: SearchSettings): string {
  return `hnsw_ef ${settings.ef ?? 'default'}, ${settings.ignore ? 'quantization ignored' : `oversampling ${settings.oversampling}`}`;
}

/**
 * Recall@10 of the search with `settings` against `truth` (the exact scan's ids, measured when
 * not given), and its QPS one request at a time.
 */
async function searchFigures(url: string, given?: number[][], settings = defaultSettings): Promise<{ recall: number; qps: number; truth: number[][] }> {
  const generator = vectorSource(8);
  const queries = Array.from({ length: queryCount }, () => generator.vector());
  let hits = 0;
  const started = performance.now();
  const found: number[][] = [];
  const params = {
    quantization: { oversampling: settings.oversampling, ...(settings.ignore ? { ignore: true } : {}) },
    ...(settings.ef === undefined ? {} : { hnsw_ef: settings.ef }),
  };
  for (const query of queries) {
    const result = await call(url, 'POST', '/collections/bench/points/search', { vector: query, limit: 10, params });
    found.push(result.result.map((hit: { id: number }) => hit.id));
  }
  const seconds = (performance.now() - started) / 1000;
  const truth = given ?? [];
  if (given === undefined) {
    for (const query of queries) {
      const exact = await call(url, 'POST', '/collections/bench/points/search', { vector: query, limit: 10, params: { exact: true } });
      truth.push(exact.result.map((hit: { id: number }) => hit.id) as number[]);
    }
  }
  for (const [position, ids] of found.entries()) hits += ids.filter((id) => truth[position]!.includes(id)).length;
  return { recall: hits / (queries.length * 10), qps: queries.length / seconds, truth };
}

/** Every setting the options ask for beyond the default search: each ef (default first) by each oversampling, then ignored. */
function sweep(): SearchSettings[] {
  const efs = [undefined, ...efValues];
  const settings: SearchSettings[] = [];
  for (const ef of efs) {
    for (const oversampling of oversamplingValues) settings.push({ ef, oversampling });
    if (ignoreQuantization) settings.push({ ef, oversampling: 1, ignore: true });
  }
  return settings.filter((setting) => describe(setting) !== describe(defaultSettings));
}

/** Under --squeeze: the lowest limit the cgroup accepts, then RSS, recall and QPS under it. */
async function squeezed(server: ChildServer, group: string, float32Bytes: number, truth: number[][]): Promise<void> {
  const before = await cgroupNumber(group, 'memory.usage_in_bytes');
  const limit = await squeezeTo(group, Math.floor(0.4 * float32Bytes));
  const figures = await searchFigures(server.url, truth);
  const memory = await memoryOf(server.process.pid!);
  const usage = await cgroupNumber(group, 'memory.usage_in_bytes');
  console.log(`  squeezed: cgroup usage ${megabytes(before)} before; lowest limit accepted ${megabytes(limit)} = ${(limit / float32Bytes).toFixed(2)}x float32 (target 0.40x)`);
  console.log(`    under it: RSS ${megabytes(memory.rss)} = ${(memory.rss / float32Bytes).toFixed(2)}x float32 (anonymous ${megabytes(memory.anonymous)}, file-backed ${megabytes(memory.file)}); cgroup usage ${megabytes(usage)}; recall@10 ${figures.recall.toFixed(3)} at ${figures.qps.toFixed(0)} QPS`);
}

async function run(mode: Mode): Promise<void> {
  const directory = await mkdtemp(join(tmpdir(), 'quiver-bench-memory-'));
  let server: ChildServer | undefined;
  let group: string | undefined;
  const float32Bytes = count * dimension * 4;
  try {
    if (squeeze) group = await enterCgroup('build');
    server = await startChildServer(directory);
    if (squeeze) await leaveCgroup();
    await waitUntilReady(server.url);
    const baseline = await memoryOf(server.process.pid!);
    const buildSeconds = await load(server.url, mode);
    const loaded = await memoryOf(server.process.pid!);
    const info = await call(server.url, 'GET', '/collections/bench');
    const { recall, qps, truth } = await searchFigures(server.url);
    console.log(`\n${mode.name}: ${count} x ${dimension} (float32 data ${megabytes(float32Bytes)})`);
    console.log(`  upload + graph + codes: ${buildSeconds.toFixed(1)} s; recall@10 ${recall.toFixed(3)} at ${qps.toFixed(0)} QPS (one request at a time, oversampling 2)`);
    for (const settings of sweep()) {
      const figures = await searchFigures(server.url, truth, settings);
      console.log(`  ${describe(settings)}: recall@10 ${figures.recall.toFixed(3)} at ${figures.qps.toFixed(0)} QPS`);
    }
    const growth = loaded.rss - baseline.rss;
    console.log(`  RSS ${megabytes(loaded.rss)} (empty server ${megabytes(baseline.rss)}; anonymous ${megabytes(loaded.anonymous)}, file-backed ${megabytes(loaded.file)}); growth ${megabytes(growth)} = ${(growth / count).toFixed(0)} B/vector = ${(growth / float32Bytes).toFixed(2)}x float32; peak ${megabytes(loaded.peak)}`);
    console.log(`  kernel_memory ${JSON.stringify(info.result.kernel_memory)}`);
    if (group !== undefined) await squeezed(server, group, float32Bytes, truth);
    await server.kill('SIGTERM');
    await dropCgroup(group);
    if (squeeze) group = await enterCgroup('restart');
    const restartStarted = performance.now();
    server = await startChildServer(directory);
    if (squeeze) await leaveCgroup();
    await waitUntilReady(server.url, '/collections/bench', 1_800_000);
    const readySeconds = (performance.now() - restartStarted) / 1000;
    await waitGreen(server.url);
    const greenSeconds = (performance.now() - restartStarted) / 1000;
    const restarted = await memoryOf(server.process.pid!);
    const again = await call(server.url, 'GET', '/collections/bench');
    const reloaded = await searchFigures(server.url, truth);
    console.log(`  after a restart (checkpoint load, codes rebuilt): the collection answered ${readySeconds.toFixed(1)} s after spawn, green at ${greenSeconds.toFixed(1)} s; recall@10 ${reloaded.recall.toFixed(3)} at ${reloaded.qps.toFixed(0)} QPS`);
    console.log(`    RSS ${megabytes(restarted.rss)} (anonymous ${megabytes(restarted.anonymous)}, file-backed ${megabytes(restarted.file)}) = ${((restarted.rss - baseline.rss) / float32Bytes).toFixed(2)}x float32 over the empty server; load peak ${megabytes(restarted.peak)}`);
    console.log(`  kernel_memory ${JSON.stringify(again.result.kernel_memory)}`);
    if (group !== undefined) await squeezed(server, group, float32Bytes, truth);
  } finally {
    await server?.kill('SIGKILL');
    await dropCgroup(group);
    await rm(directory, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  console.log(`bench:memory: ${count} x ${dimension} ${embeddingLike ? 'embedding-like' : 'clustered'}, batches of ${batchSize}, ${requestsInFlight} requests in flight, ${queryCount} queries`);
  if (modes.length === 0) throw new Error(`--only ${only}: no mode's name contains it (${allModes.map((mode) => mode.name).join('; ')})`);
  for (const mode of modes) await run(mode);
}

// `--points-only`: the per-point cost of ids, versions and payloads instead (bench/memory/points.ts).
if (process.argv.includes('--points-only')) {
  await import('./points.js');
} else {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
