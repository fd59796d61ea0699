// bench:http — search over HTTP against the kernel alone, on the same data (issue 6).
// Starts the server as a child process, loads 100k x 128 (Euclid) and 50k x 768 (Cosine) points
// over HTTP, waits until each collection is green, then drives `points/search` (k = 10) with
// autocannon at 1, 4 and 64 connections, each starting at its own query (staggered-clients.ts),
// with and without a keyword filter. Prints requests/s, p50/p99, recall@10 and the server's CPU
// use, next to the kernel's own 1- and 2-in-flight QPS.
// The 64-connection runs and the kernel's 2-in-flight runs alternate, pair by pair, and the
// ratio is the median of the pairs' ratios: on a shared host the speed drifts by a quarter within
// minutes, and two figures measured minutes apart compared the drift, not the server.
// Then the same searches and queries through REST and through the gRPC door at 1 and 64
// connections, printing gRPC/REST (bench/http/doors.ts).
// `--quick` shrinks everything to run in CI in well under a minute; it fails only when recall
// falls below 0.95 (a correctness floor), never on speed.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load, searchIds, waitGreen } from './client.js';
import { compareDoors, type DoorResult } from './doors.js';
import { makeDataSet, type DataSet } from './data.js';
import { buildKernel, exactAnswers, kernelAnswers, kernelQps, recallAt10 } from './kernel.js';
import { drive, type LoadResult } from './load.js';
import { startServer, waitReady } from './server.js';
import { median, medianBy } from '../statistics.js';

const quick = process.argv.includes('--quick');
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const duration_s = quick ? 2 : 10;
/** The kernel's QPS settles faster than an HTTP run: shorter in quick mode keeps CI well under a minute. */
const kernelDuration_s = quick ? 1 : 10;
/** Pairs of a 64-connection HTTP run and a kernel run with 2 in flight, alternating. */
const pairedRounds = quick ? 1 : 3;
const pairedDuration_s = quick ? duration_s : 6;
const recallFloor = 0.95;

const sets = quick
  ? [
      { name: 'bench_euclid_128', distance: 'Euclid' as const, dimension: 128, count: 10_000, queryCount: 50, seed: 1 },
      { name: 'bench_cosine_768', distance: 'Cosine' as const, dimension: 768, count: 5_000, queryCount: 50, seed: 2 },
    ]
  : [
      { name: 'bench_euclid_128', distance: 'Euclid' as const, dimension: 128, count: 100_000, queryCount: 200, seed: 1 },
      { name: 'bench_cosine_768', distance: 'Cosine' as const, dimension: 768, count: 50_000, queryCount: 200, seed: 2 },
    ];

function fixed(value: number, digits = 1): string {
  return value.toFixed(digits);
}

interface SetReport {
  data: DataSet;
  upload_s: number;
  green_s: number;
  httpRecall: { plain: number; filtered: number };
  kernelRecall: { plain: number; filtered: number };
  kernel: { plain1: number; plain2: number; filtered1: number; filtered2: number };
  /** Median over the alternating pairs of HTTP(64) ÷ kernel(2). */
  ratio: { plain: number; filtered: number };
  runs: LoadResult[];
  doors: DoorResult[];
}

function printRun(runs: LoadResult[], run: LoadResult): void {
  runs.push(run);
  console.log(
    `http ${run.filtered ? 'filtered' : 'plain   '} ${String(run.connections).padStart(2)} conn: ${fixed(run.requests_per_s, 0)} req/s, p50 ${run.p50_ms} ms, p99 ${run.p99_ms} ms, server CPU ${fixed(run.server_cpu_cores, 2)} cores (JS thread ${fixed(run.server_js_thread_cores, 2)}), load generator ${fixed(run.client_cpu_cores, 2)} cores${run.errors + run.non2xx > 0 ? `, ${run.errors} errors, ${run.non2xx} non-2xx` : ''}`,
  );
}

async function benchmarkSet(server: Awaited<ReturnType<typeof startServer>>, data: DataSet): Promise<SetReport> {
  console.log(`\n## ${data.name}: ${data.count} x ${data.dimension} ${data.distance}`);
  const upload_s = await load(server.url, data, data.dimension > 256 ? 250 : 1000);
  const green_s = await waitGreen(server.url, data.name);
  console.log(`uploaded in ${fixed(upload_s)} s (${fixed(data.count / upload_s, 0)} points/s), green ${fixed(green_s)} s later`);

  const kernel = await buildKernel(data);
  console.log(`kernel index built in-process in ${fixed(kernel.build_s)} s`);
  const truth = await exactAnswers(kernel, data, false);
  const filteredTruth = await exactAnswers(kernel, data, true);
  const httpRecall = {
    plain: recallAt10(await searchIds(server.url, data, false), truth),
    filtered: recallAt10(await searchIds(server.url, data, true), filteredTruth),
  };
  const kernelRecall = {
    plain: recallAt10(await kernelAnswers(kernel, data, false), truth),
    filtered: recallAt10(await kernelAnswers(kernel, data, true), filteredTruth),
  };
  const kernelOne = {
    plain: await kernelQps(kernel, data, 1, kernelDuration_s, false),
    filtered: await kernelQps(kernel, data, 1, kernelDuration_s, true),
  };

  const runs: LoadResult[] = [];
  const kernelTwo = { plain: 0, filtered: 0 };
  const ratio = { plain: 0, filtered: 0 };
  for (const filtered of [false, true]) {
    const mode = filtered ? 'filtered' : 'plain';
    // 4: a few clients at once, where the inline gate decides whether both cores search
    // (src/native/inline-search.ts).
    for (const connections of [1, 4]) printRun(runs, await drive(server, data, connections, duration_s, filtered));
    // 64: saturation, against the kernel's two searches in flight, taking turns (which goes
    // first flips each round).
    const pairs: { http: LoadResult; kernel: number }[] = [];
    for (let round = 0; round < pairedRounds; round++) {
      const kernelFirst = round % 2 === 0;
      const first = kernelFirst ? await kernelQps(kernel, data, 2, pairedDuration_s, filtered) : undefined;
      const http = await drive(server, data, 64, pairedDuration_s, filtered);
      const kernelRate = first ?? (await kernelQps(kernel, data, 2, pairedDuration_s, filtered));
      pairs.push({ http, kernel: kernelRate });
      console.log(`pair ${round + 1} ${mode}: kernel(2) ${fixed(kernelRate, 0)} searches/s, HTTP(64) ${fixed(http.requests_per_s, 0)} req/s, ${fixed((100 * http.requests_per_s) / kernelRate, 0)}%`);
    }
    // The HTTP run of median rate stands for the 64-connection row (its latencies and CPU).
    printRun(runs, medianBy(pairs, (pair) => pair.http.requests_per_s).http);
    kernelTwo[mode] = medianBy(pairs, (pair) => pair.kernel).kernel;
    ratio[mode] = median(pairs.map((pair) => pair.http.requests_per_s / pair.kernel));
  }
  kernel.index.close();
  const kernelRates = { plain1: kernelOne.plain, plain2: kernelTwo.plain, filtered1: kernelOne.filtered, filtered2: kernelTwo.filtered };
  console.log('REST and gRPC, same calls and concurrency:');
  // Quick mode compares unfiltered calls only, to stay short in CI.
  const doors = await compareDoors(server, server.grpcPort, data, duration_s, quick ? [false] : [false, true]);
  await fetch(`${server.url}/collections/${data.name}`, { method: 'DELETE' });
  return { data, upload_s, green_s, httpRecall, kernelRecall, kernel: kernelRates, ratio, runs, doors };
}

function printSummary(reports: SetReport[]): void {
  console.log('\n| set | filter | HTTP req/s (1 conn) | HTTP req/s (4 conn) | HTTP req/s (64 conn) | p50 / p99 ms (64 conn) | server CPU (64 conn), of it JS thread | HTTP recall@10 | kernel QPS 1 / 2 in flight | kernel recall@10 | HTTP(64) / kernel(2), median of pairs |');
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const report of reports) {
    for (const filtered of [false, true]) {
      const one = report.runs.find((run) => run.filtered === filtered && run.connections === 1)!;
      const few = report.runs.find((run) => run.filtered === filtered && run.connections === 4)!;
      const many = report.runs.find((run) => run.filtered === filtered && run.connections === 64)!;
      const kernelOne = filtered ? report.kernel.filtered1 : report.kernel.plain1;
      const kernelTwo = filtered ? report.kernel.filtered2 : report.kernel.plain2;
      const httpRecall = filtered ? report.httpRecall.filtered : report.httpRecall.plain;
      const kernelRecall = filtered ? report.kernelRecall.filtered : report.kernelRecall.plain;
      console.log(
        `| ${report.data.count / 1000}k x ${report.data.dimension} ${report.data.distance} | ${filtered ? 'keyword 10%' : 'none'} | ${fixed(one.requests_per_s, 0)} | ${fixed(few.requests_per_s, 0)} | ${fixed(many.requests_per_s, 0)} | ${many.p50_ms} / ${many.p99_ms} | ${fixed(many.server_cpu_cores, 2)} cores, ${fixed(many.server_js_thread_cores, 2)} | ${fixed(httpRecall, 3)} | ${fixed(kernelOne, 0)} / ${fixed(kernelTwo, 0)} | ${fixed(kernelRecall, 3)} | ${fixed(100 * (filtered ? report.ratio.filtered : report.ratio.plain), 0)}% |`,
      );
    }
  }
}

function printDoors(reports: SetReport[]): void {
  console.log('\n| set | call | filter | conn | REST req/s | gRPC calls/s | p50 ms REST / gRPC | gRPC / REST |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const report of reports) {
    for (const door of report.doors) {
      console.log(
        `| ${report.data.count / 1000}k x ${report.data.dimension} ${report.data.distance} | ${door.call} | ${door.filtered ? 'keyword 10%' : 'none'} | ${door.connections} | ${fixed(door.rest_per_s, 0)} | ${fixed(door.grpc_per_s, 0)} | ${door.rest_p50_ms} / ${door.grpc_p50_ms} | ${fixed((100 * door.grpc_per_s) / door.rest_per_s, 0)}% |`,
      );
    }
  }
}

async function main(): Promise<void> {
  const started = performance.now();
  console.log(
    `bench:http${quick ? ' --quick' : ''}: ${duration_s} s per HTTP load run, ${kernelDuration_s} s per kernel run, ${pairedRounds} alternating pairs of ${pairedDuration_s} s runs at 64 connections and 2 in flight`,
  );
  const server = await startServer(root);
  let failed = false;
  try {
    await waitReady(server.url);
    const reports: SetReport[] = [];
    for (const options of sets) reports.push(await benchmarkSet(server, makeDataSet(options)));
    printSummary(reports);
    printDoors(reports);
    for (const report of reports) {
      // Every gRPC call must succeed: an error there is a broken door, not a slow one.
      const grpcErrors = report.doors.reduce((sum, door) => sum + door.grpc_errors, 0);
      if (grpcErrors > 0) {
        console.error(`gRPC: ${grpcErrors} calls failed on ${report.data.name}`);
        failed = true;
      }
      for (const [name, recall] of Object.entries(report.httpRecall)) {
        if (recall < recallFloor) {
          console.error(`recall floor: ${report.data.name} ${name} HTTP recall@10 ${fixed(recall, 3)} < ${recallFloor}`);
          failed = true;
        }
      }
    }
  } finally {
    await server.stop();
  }
  console.log(`\ntotal ${fixed((performance.now() - started) / 1000)} s`);
  if (failed) process.exit(1);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
