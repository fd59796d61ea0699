// bench:memory — what a large collection costs in RAM with its originals on disk and int8 codes
// in RAM (docs/api.md §18), against the same data held as float32 on the heap.
//
//   npm run bench:memory -- --count 200000            200k x 768 (the target is 2M)
//   npm run bench:memory -- --count 20000 --dimension 128 --queries 50
//   npm run bench:memory -- --points-only --count 1000000    ids + payloads (bench/memory/points.ts)
//
// Per mode a child server (`node --import tsx src/main.ts`, fsync on, default settings) gets
// generated clustered data over HTTP, waits until the graph and codes are complete, then reports
// the process's RSS split from /proc (anonymous vs file-backed), the kernel's own figures
// (`kernel_memory` of GET C), build time, recall@10 of the default search against the exact
// scan (`params.exact`) of the same server, and the QPS of that search, one request at a time.
// Then the server is restarted (load from the checkpoint) and RSS is read again, with the peak
// (VmHWM) of the load. Figures are printed; nothing is asserted.
import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChildServer, waitUntilReady, type ChildServer } from '../../test/support/child-server.js';
import { mulberry32 } from '../../test/support/seeded-random.js';

function option(name: string, fallback: number): number {
  const position = process.argv.indexOf(`--${name}`);
  if (position < 0) return fallback;
  const value = Number(process.argv[position + 1]);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`--${name} needs a positive integer`);
  return value;
}

const count = option('count', 2_000_000);
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

const modes: Mode[] = [
  { name: 'float32 on the heap', vectors: { size: dimension, distance: 'Cosine' } },
  { name: 'on_disk originals + int8 codes', vectors: { size: dimension, distance: 'Cosine', on_disk: true }, quantization: { scalar: { type: 'int8' } } },
];

/** Clustered vectors (embedding-like), generated batch by batch so the bench holds none of them. */
class Generator {
  private readonly random = mulberry32(7);
  readonly centres: Float32Array;

  constructor() {
    this.centres = new Float32Array(clusters * dimension);
    for (let index = 0; index < this.centres.length; index += 1) this.centres[index] = this.gaussian() * 3;
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

async function call(url: string, method: string, path: string, body?: unknown): Promise<any> {
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

const megabytes = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

async function waitGreen(url: string): Promise<void> {
  for (;;) {
    const info = await call(url, 'GET', '/collections/bench');
    if (info.result.status === 'green') return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function load(url: string, mode: Mode): Promise<number> {
  await call(url, 'PUT', '/collections/bench', { vectors: mode.vectors, ...(mode.quantization ? { quantization_config: mode.quantization } : {}) });
  const generator = new Generator();
  const started = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const first = next;
      next += batchSize;
      const points = [];
      for (let id = first; id < Math.min(first + batchSize, count); id += 1) points.push({ id, vector: generator.vector() });
      await call(url, 'PUT', '/collections/bench/points?wait=true', { points });
    }
  };
  await Promise.all(Array.from({ length: requestsInFlight }, worker));
  await waitGreen(url);
  return (performance.now() - started) / 1000;
}

async function searchFigures(url: string): Promise<{ recall: number; qps: number }> {
  const generator = new Generator();
  const queries = Array.from({ length: queryCount }, () => generator.vector());
  let hits = 0;
  const started = performance.now();
  const found: number[][] = [];
  for (const query of queries) {
    const result = await call(url, 'POST', '/collections/bench/points/search', { vector: query, limit: 10, params: { quantization: { oversampling: 2 } } });
    found.push(result.result.map((hit: { id: number }) => hit.id));
  }
  const seconds = (performance.now() - started) / 1000;
  for (const [position, query] of queries.entries()) {
    const exact = await call(url, 'POST', '/collections/bench/points/search', { vector: query, limit: 10, params: { exact: true } });
    const truth = exact.result.map((hit: { id: number }) => hit.id) as number[];
    hits += found[position]!.filter((id) => truth.includes(id)).length;
  }
  return { recall: hits / (queries.length * 10), qps: queries.length / seconds };
}

async function run(mode: Mode): Promise<void> {
  const directory = await mkdtemp(join(tmpdir(), 'quiver-bench-memory-'));
  let server: ChildServer | undefined;
  const float32Bytes = count * dimension * 4;
  try {
    server = await startChildServer(directory);
    await waitUntilReady(server.url);
    const baseline = await memoryOf(server.process.pid!);
    const buildSeconds = await load(server.url, mode);
    const loaded = await memoryOf(server.process.pid!);
    const info = await call(server.url, 'GET', '/collections/bench');
    const { recall, qps } = await searchFigures(server.url);
    console.log(`\n${mode.name}: ${count} x ${dimension} (float32 data ${megabytes(float32Bytes)})`);
    console.log(`  upload + graph + codes: ${buildSeconds.toFixed(1)} s; recall@10 ${recall.toFixed(3)} at ${qps.toFixed(0)} QPS (one request at a time, oversampling 2)`);
    const growth = loaded.rss - baseline.rss;
    console.log(`  RSS ${megabytes(loaded.rss)} (empty server ${megabytes(baseline.rss)}; anonymous ${megabytes(loaded.anonymous)}, file-backed ${megabytes(loaded.file)}); growth ${megabytes(growth)} = ${(growth / count).toFixed(0)} B/vector = ${(growth / float32Bytes).toFixed(2)}x float32; peak ${megabytes(loaded.peak)}`);
    console.log(`  kernel_memory ${JSON.stringify(info.result.kernel_memory)}`);
    await server.kill('SIGTERM');
    server = await startChildServer(directory);
    await waitUntilReady(server.url, '/collections/bench', 1_800_000);
    await waitGreen(server.url);
    const restarted = await memoryOf(server.process.pid!);
    const again = await call(server.url, 'GET', '/collections/bench');
    console.log(`  after a restart (checkpoint load, codes rebuilt): RSS ${megabytes(restarted.rss)} (anonymous ${megabytes(restarted.anonymous)}, file-backed ${megabytes(restarted.file)}) = ${((restarted.rss - baseline.rss) / float32Bytes).toFixed(2)}x float32 over the empty server; load peak ${megabytes(restarted.peak)}`);
    console.log(`  kernel_memory ${JSON.stringify(again.result.kernel_memory)}`);
  } finally {
    await server?.kill('SIGKILL');
    await rm(directory, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  console.log(`bench:memory: ${count} x ${dimension}, batches of ${batchSize}, ${requestsInFlight} requests in flight, ${queryCount} queries`);
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
