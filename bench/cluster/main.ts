// bench:cluster — upsert and search throughput of one QuiverDB node (single-node mode, no NATS)
// against cluster mode with one node (one nats-server) and with three nodes (three clustered
// nats-servers), all on loopback, and the per-request cost the cluster adds (one request at a
// time). On a 2-core machine six processes share two cores: the figure is the overhead, not the
// scaling (docs/cluster.md §8 has the arithmetic for N machines).
//
//   npm run bench:cluster              20,000 x 64 points, 2,000 searches
//   npm run bench:cluster -- --quick   4,000 points, 400 searches
//   ... -- --dimension 768              another vector size (the default is 64)
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChildServer, waitUntilReady } from '../../test/support/child-server.js';
import { mulberry32 } from '../../test/support/seeded-random.js';
import { startQuiverCluster } from '../../test/cluster/support/quiver-cluster.js';

const quick = process.argv.includes('--quick');
const pointCount = quick ? 4_000 : 20_000;
const searchCount = quick ? 400 : 2_000;
const singleRequests = quick ? 100 : 300;
const dimensionArgument = process.argv.indexOf('--dimension');
const dimension = dimensionArgument >= 0 ? Number(process.argv[dimensionArgument + 1]) : 64;
if (!Number.isInteger(dimension) || dimension < 1) throw new Error('--dimension takes a positive integer');
const batchSize = 100;
const inFlight = 4;

interface Setup {
  name: string;
  urls: string[];
  stop(): Promise<void>;
}

async function call(url: string, method: string, path: string, body?: string): Promise<any> {
  const response = await fetch(`${url}${path}`, { method, headers: body === undefined ? {} : { 'content-type': 'application/json' }, body });
  const parsed = await response.json();
  if (response.status !== 200) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(parsed).slice(0, 300)}`);
  return parsed;
}

function vector(random: () => number): string {
  return `[${Array.from({ length: dimension }, () => (random() * 2 - 1).toFixed(4)).join(',')}]`;
}

/** Runs `count` requests `concurrency` at a time, round-robin over the nodes; returns seconds. */
async function run(urls: string[], count: number, concurrency: number, request: (url: string, index: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < count) {
      const index = next++;
      await request(urls[index % urls.length]!, index);
    }
  }));
  return (performance.now() - started) / 1000;
}

async function measure(setup: Setup): Promise<Record<string, number>> {
  const { urls } = setup;
  await call(urls[0]!, 'PUT', '/collections/bench', JSON.stringify({ vectors: { size: dimension, distance: 'Cosine' } }));
  const random = mulberry32(42);
  const bodies: string[] = [];
  for (let first = 0; first < pointCount; first += batchSize) {
    const points = Array.from({ length: batchSize }, (_, offset) => `{"id":${first + offset},"vector":${vector(random)},"payload":{"group":${(first + offset) % 10}}}`);
    bodies.push(`{"points":[${points.join(',')}]}`);
  }
  const acknowledged = await run(urls, bodies.length, inFlight, (url, index) => call(url, 'PUT', '/collections/bench/points', bodies[index]));
  // Applied everywhere: a count waits for each shard's replica to catch up with the log.
  const started = performance.now();
  const counted = await call(urls[0]!, 'POST', '/collections/bench/points/count', '{"exact":true}');
  if (counted.result.count !== pointCount) throw new Error(`${setup.name}: count ${counted.result.count}, expected ${pointCount}`);
  const visible = acknowledged + (performance.now() - started) / 1000;
  const queries = Array.from({ length: searchCount }, () => `{"vector":${vector(random)},"limit":10}`);
  const searchSeconds = await run(urls, searchCount, 8, (url, index) => call(url, 'POST', '/collections/bench/points/search', queries[index]));
  const oneSearch = await run(urls, singleRequests, 1, (url, index) => call(url, 'POST', '/collections/bench/points/search', queries[index]));
  const oneUpsert = await run(urls, singleRequests, 1, (url, index) => call(url, 'PUT', '/collections/bench/points?wait=true', `{"points":[{"id":${pointCount + index},"vector":${vector(random)}}]}`));
  return {
    upsertAcknowledged: pointCount / acknowledged,
    upsertVisible: pointCount / visible,
    searches: searchCount / searchSeconds,
    searchMs: (oneSearch / singleRequests) * 1000,
    upsertWaitMs: (oneUpsert / singleRequests) * 1000,
  };
}

async function singleNode(): Promise<Setup> {
  const directory = await mkdtemp(join(tmpdir(), 'quiver-bench-cluster-'));
  const server = await startChildServer(directory, { QUIVER__LOG__LEVEL: 'info' });
  await waitUntilReady(server.url);
  return {
    name: 'single node (no NATS)',
    urls: [server.url],
    async stop() {
      await server.kill('SIGTERM');
      await rm(directory, { recursive: true, force: true });
    },
  };
}

async function clusterOf(nodes: number): Promise<Setup> {
  const cluster = await startQuiverCluster({ nodes, natsServers: nodes, requestTimeoutMs: 30_000, environment: { QUIVER__LOG__LEVEL: 'info' } });
  return { name: `cluster, ${nodes} node${nodes === 1 ? '' : 's'} + ${nodes} NATS`, urls: cluster.nodes.map((node) => node.url), stop: () => cluster.stop() };
}

const results: { name: string; figures: Record<string, number> }[] = [];
for (const start of [singleNode, () => clusterOf(1), () => clusterOf(3)]) {
  const setup = await start();
  try {
    results.push({ name: setup.name, figures: await measure(setup) });
  } finally {
    await setup.stop();
  }
}

const rows: [string, string, number][] = [
  ['upsert, acknowledged (points/s)', 'upsertAcknowledged', 0],
  ['upsert, visible to reads (points/s)', 'upsertVisible', 0],
  ['search, 8 in flight (req/s)', 'searches', 0],
  ['one search at a time (ms each)', 'searchMs', 2],
  ['one upsert wait=true at a time (ms each)', 'upsertWaitMs', 2],
];
console.log(`bench:cluster — ${pointCount} x ${dimension} points in batches of ${batchSize} (${inFlight} in flight), ${searchCount} searches (limit 10), loopback, ${quick ? 'quick' : 'full'}`);
console.log(['measure', ...results.map((entry) => entry.name), '3 nodes / single'].join(' | '));
for (const [label, key, digits] of rows) {
  const values = results.map((entry) => entry.figures[key]!);
  console.log([label, ...values.map((value) => value.toFixed(digits)), (values[2]! / values[0]!).toFixed(2)].join(' | '));
}
const single = results[0]!.figures;
const three = results[2]!.figures;
console.log(`per-request cost the 3-node cluster adds: search ${(three.searchMs! - single.searchMs!).toFixed(2)} ms, upsert with wait=true ${(three.upsertWaitMs! - single.upsertWaitMs!).toFixed(2)} ms`);
