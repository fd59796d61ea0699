// bench:memory --points-only — what a point costs the server when its vector is tiny: the id map,
// versions and a ~100-byte JSON payload (docs/architecture.md §16). A child server gets N points
// (4-d vectors) over HTTP in batches; then the bench reads the JS heap in use (the nodejs heap
// gauge of GET /metrics), RSS from /proc, heap and RSS per point, the upload rate, the QPS of
// `with_payload: true` searches and of payload-reading scrolls, and the restart (load) time.
//
//   npm run bench:memory -- --points-only --count 1000000
//   npm run bench:memory -- --points-only --count 1000000 --root /work/main     main's code
//   options: --heap-limit 512 (MiB, the child's --max-old-space-size; 0 = Node's default)
//            --on-disk-payload false (the collection's on_disk_payload; default true)
//
// If the child dies (heap out of memory), the figures reached so far are printed with its exit.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChildServer, waitUntilReady, type ChildServer } from '../../test/support/child-server.js';
import { mulberry32 } from '../../test/support/seeded-random.js';

function argument(name: string): string | undefined {
  const position = process.argv.indexOf(`--${name}`);
  return position < 0 ? undefined : process.argv[position + 1];
}

const count = Number(argument('count') ?? 1_000_000);
const root = argument('root');
const heapLimit = Number(argument('heap-limit') ?? 512);
const onDiskPayload = argument('on-disk-payload') !== 'false';
const batchSize = 1000;
const requestsInFlight = 2;
const readSeconds = 5;

const megabytes = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

/** One request; a connection reset (a loaded machine racing keep-alive) is retried: every call here is idempotent. */
async function call(url: string, method: string, path: string, body?: unknown): Promise<any> {
  const text = body === undefined ? undefined : JSON.stringify(body);
  let response: Response | undefined;
  for (let attempt = 0; response === undefined; attempt += 1) {
    try {
      response = await fetch(`${url}${path}`, { method, headers: text === undefined ? {} : { 'content-type': 'application/json' }, body: text });
    } catch (error) {
      if (attempt >= 3) throw error;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  const parsed = await response.json();
  if (response.status !== 200) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(parsed).slice(0, 300)}`);
  return parsed;
}

async function memoryOf(pid: number): Promise<{ rss: number; peak: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(/\s(\d+) kB/.exec(status.split('\n').find((line) => line.startsWith(`${name}:`)) ?? ' 0 kB')![1]) * 1024;
  return { rss: field('VmRSS'), peak: field('VmHWM') };
}

/** nodejs_heap_size_used_bytes from the child's /metrics (prom-client's default gauges). */
async function heapUsed(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((candidate) => candidate.startsWith('nodejs_heap_size_used_bytes'));
  return line ? Number(line.split(' ').pop()) : Number.NaN;
}

/** A ~100-byte JSON payload of the usual kinds of field. */
function payloadOf(id: number): Record<string, unknown> {
  return { category: `c${id % 97}`, title: `item number ${id} of the catalogue`, price: (id % 10_000) / 100, tags: ['new', id % 2 === 0 ? 'even' : 'odd'], in_stock: id % 3 !== 0 };
}

async function upload(url: string): Promise<number> {
  await call(url, 'PUT', '/collections/bench', { vectors: { size: 4, distance: 'Dot' }, hnsw_config: { m: 8, ef_construct: 32 }, on_disk_payload: onDiskPayload });
  const random = mulberry32(3);
  const started = performance.now();
  let next = 0;
  let reported = 0;
  const worker = async () => {
    while (next < count) {
      const first = next;
      next += batchSize;
      const points = [];
      for (let id = first; id < Math.min(first + batchSize, count); id += 1) points.push({ id, vector: [random(), random(), random(), random()], payload: payloadOf(id) });
      await call(url, 'PUT', '/collections/bench/points?wait=false', { points });
      if (next - reported >= count / 10) {
        reported = next;
        process.stdout.write(`  ${next} points uploaded (${((performance.now() - started) / 1000).toFixed(0)} s)\n`);
      }
    }
  };
  await Promise.all(Array.from({ length: requestsInFlight }, worker));
  return (performance.now() - started) / 1000;
}

/** Requests per second of `request`, one at a time, for `readSeconds`. */
async function rate(request: (round: number) => Promise<void>): Promise<number> {
  const started = performance.now();
  let rounds = 0;
  while (performance.now() - started < readSeconds * 1000) {
    await request(rounds);
    rounds += 1;
  }
  return rounds / ((performance.now() - started) / 1000);
}

async function readRates(url: string): Promise<string> {
  const random = mulberry32(5);
  const search = await rate(async () => {
    const found = await call(url, 'POST', '/collections/bench/points/search', { vector: [random(), random(), random(), random()], limit: 10, with_payload: true });
    if (found.result.length !== 10 || found.result[0].payload.title === undefined) throw new Error('search without payloads');
  });
  const scroll = await rate(async () => {
    const offset = Math.floor(random() * Math.max(1, count - 100));
    const page = await call(url, 'POST', '/collections/bench/points/scroll', { offset, limit: 100, with_payload: true });
    if (page.result.points.length === 0 || page.result.points[0].payload.title === undefined) throw new Error('scroll without payloads');
  });
  const retrieve = await rate(async () => {
    const ids = Array.from({ length: 10 }, () => Math.floor(random() * count));
    await call(url, 'POST', '/collections/bench/points', { ids, with_payload: true });
  });
  return `search(limit 10, with_payload) ${search.toFixed(0)} QPS; scroll(100, with_payload) ${scroll.toFixed(0)} QPS; retrieve(10 random ids) ${retrieve.toFixed(0)} QPS`;
}

async function main(): Promise<void> {
  const directory = await mkdtemp(join(tmpdir(), 'quiver-bench-points-'));
  const environment: Record<string, string> = heapLimit > 0 ? { NODE_OPTIONS: `--max-old-space-size=${heapLimit}` } : {};
  console.log(`bench:memory --points-only: ${count} points (4-d, ~100-byte payload), on_disk_payload ${onDiskPayload}, server code ${root ?? 'this checkout'}, heap limit ${heapLimit > 0 ? `${heapLimit} MiB` : 'default'}`);
  let server: ChildServer | undefined;
  try {
    server = await startChildServer(directory, environment, root);
    await waitUntilReady(server.url);
    const pid = server.process.pid!;
    const baseline = { ...(await memoryOf(pid)), heap: await heapUsed(server.url) };
    let uploadSeconds: number;
    try {
      uploadSeconds = await upload(server.url);
    } catch (error) {
      const exit = await Promise.race([server.exited, new Promise((resolve) => setTimeout(() => resolve('still running'), 2000))]);
      console.log(`  upload failed: ${(error as Error).message}; child exit: ${String(exit)}`);
      console.log(`  last stderr: ${server.logLines.slice(-3).join('\n')}`);
      return;
    }
    const info = await call(server.url, 'GET', '/collections/bench');
    const loaded = { ...(await memoryOf(pid)), heap: await heapUsed(server.url) };
    console.log(`  upload: ${uploadSeconds.toFixed(1)} s = ${(count / uploadSeconds).toFixed(0)} points/s (wait=false, ${requestsInFlight} requests in flight, batches of ${batchSize}); points_count ${info.result.points_count}`);
    const perPoint = (bytes: number) => `${(bytes / count).toFixed(1)} B/point`;
    console.log(`  JS heap used ${megabytes(loaded.heap)} (empty server ${megabytes(baseline.heap)}) = ${perPoint(loaded.heap - baseline.heap)}`);
    console.log(`  RSS ${megabytes(loaded.rss)} (empty server ${megabytes(baseline.rss)}) = ${perPoint(loaded.rss - baseline.rss)}; peak ${megabytes(loaded.peak)}; kernel_memory ${JSON.stringify(info.result.kernel_memory ?? null)}`);
    console.log(`  reads: ${await readRates(server.url)}`);
    await server.kill('SIGTERM');
    const restartStarted = performance.now();
    server = await startChildServer(directory, environment, root);
    await waitUntilReady(server.url, '/collections/bench', 3_600_000);
    const restartSeconds = (performance.now() - restartStarted) / 1000;
    const restarted = { ...(await memoryOf(server.process.pid!)), heap: await heapUsed(server.url) };
    console.log(`  restart: ready after ${restartSeconds.toFixed(1)} s; JS heap used ${megabytes(restarted.heap)} = ${perPoint(restarted.heap - baseline.heap)}; RSS ${megabytes(restarted.rss)} = ${perPoint(restarted.rss - baseline.rss)}; load peak ${megabytes(restarted.peak)}`);
    console.log(`  reads after restart: ${await readRates(server.url)}`);
  } finally {
    await server?.kill('SIGKILL');
    await rm(directory, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
