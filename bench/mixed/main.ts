// bench:mixed — do writes starve reads? (issue 18 item 6). Starts the server as a child process
// (fsync off, fresh data directory), loads a 128-d Euclid collection over HTTP and waits until it
// is green, then runs two phases with the same number of keep-alive connections:
//   1. search only (the baseline a search's latency is compared with);
//   2. mixed: each connection picks search / upsert (wait=true, 10 points) / scroll (50 points)
//      with weights 6 / 2 / 2, for a bounded time.
// Prints p50 / p99 per operation and phase, requests per second, and the 503 count (writes
// refused by a full write queue, docs/api.md §8). Any other error fails the run.
//
//   npm run bench:mixed                                 30k points, 64 connections, 20 s + 90 s
//   npm run bench:mixed -- --quick                      3k points, 64 connections, 2 s + 4 s (CI)
//   npm run bench:mixed -- --max-queued-writes 8        a small queue, to see the back-pressure
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChildServer, waitUntilReady } from '../../test/support/child-server.js';
import { load, waitGreen } from '../http/client.js';
import { makeDataSet } from '../http/data.js';
import { percentile, runWorkload, type OperationName, type OperationStats } from './workload.js';

const argumentsList = process.argv.slice(2);
const quick = argumentsList.includes('--quick');

function numberArgument(name: string): number | undefined {
  const position = argumentsList.indexOf(name);
  if (position < 0) return undefined;
  const value = Number(argumentsList[position + 1]);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} needs a positive number`);
  return value;
}

const connections = numberArgument('--connections') ?? 64;
const maxQueuedWrites = numberArgument('--max-queued-writes');
const baseline_s = quick ? 2 : 20;
const mixed_s = numberArgument('--seconds') ?? (quick ? 4 : 90);
const data = makeDataSet({ name: 'bench_mixed', distance: 'Euclid', dimension: 128, count: quick ? 3_000 : 30_000, queryCount: 200, seed: 18 });

function row(phase: string, operation: OperationName, stats: OperationStats, seconds: number): string {
  const fixed = (value: number) => (Number.isNaN(value) ? '-' : value.toFixed(1));
  return `| ${phase} | ${operation} | ${stats.ok} | ${(stats.ok / seconds).toFixed(0)} | ${fixed(percentile(stats.latencies_ms, 0.5))} | ${fixed(percentile(stats.latencies_ms, 0.99))} | ${stats.unavailable} | ${stats.failed} |`;
}

async function main(): Promise<void> {
  const directory = await mkdtemp(join(tmpdir(), 'quiver-bench-mixed-'));
  const environment: Record<string, string> = { QUIVER__STORAGE__FSYNC: 'false' };
  if (maxQueuedWrites !== undefined) environment.QUIVER__LIMITS__MAX_QUEUED_WRITES = String(maxQueuedWrites);
  const server = await startChildServer(directory, environment);
  let failures = 0;
  try {
    await waitUntilReady(server.url);
    const upload_s = await load(server.url, data, 1000);
    const green_s = await waitGreen(server.url, data.name);
    console.log(`loaded ${data.count} x ${data.dimension} ${data.distance} in ${upload_s.toFixed(1)} s, green ${green_s.toFixed(1)} s later`);
    console.log(`${connections} connections; write queue bound: ${maxQueuedWrites ?? 'default (256)'}`);

    const common = { url: server.url, data, connections, upsertBatch: 10, seed: 18 };
    const baseline = await runWorkload({ ...common, duration_ms: baseline_s * 1000, weights: { search: 1, upsert: 0, scroll: 0 } });
    const mixed = await runWorkload({ ...common, duration_ms: mixed_s * 1000, weights: { search: 6, upsert: 2, scroll: 2 } });

    console.log('\n| phase | operation | ok | per s | p50 ms | p99 ms | 503 | errors |');
    console.log('|---|---|---|---|---|---|---|---|');
    console.log(row(`search only, ${baseline_s} s`, 'search', baseline.search, baseline_s));
    for (const operation of ['search', 'upsert', 'scroll'] as const) console.log(row(`mixed, ${mixed_s} s`, operation, mixed[operation], mixed_s));
    const unavailable = mixed.search.unavailable + mixed.upsert.unavailable + mixed.scroll.unavailable;
    console.log(`\n503 (write queue full): ${unavailable}`);

    for (const [phase, stats] of [['search only', baseline], ['mixed', mixed]] as const) {
      for (const [operation, record] of Object.entries(stats)) {
        if (record.failed > 0) {
          failures += 1;
          console.error(`${phase} ${operation}: ${record.failed} errors, first: ${record.firstFailure}`);
        }
        // Reads are never refused by the write queue; a 503 on one is a failure.
        if (operation !== 'upsert' && record.unavailable > 0) {
          failures += 1;
          console.error(`${phase} ${operation}: ${record.unavailable} reads answered 503`);
        }
      }
    }
    for (const operation of ['search', 'upsert', 'scroll'] as const) {
      if (mixed[operation].ok === 0) {
        failures += 1;
        console.error(`mixed ${operation}: no request succeeded`);
      }
    }
  } finally {
    await server.kill('SIGTERM');
    await rm(directory, { recursive: true, force: true });
  }
  if (failures > 0) {
    console.error(`bench:mixed failed (${failures} problems)`);
    process.exit(1);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
