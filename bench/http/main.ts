// bench:http — search over HTTP against the kernel alone, on the same data (issue 6).
// Starts the server as a child process, loads 100k x 128 (Euclid) and 50k x 768 (Cosine) points
// over HTTP, waits until each collection is green, then drives `points/search` (k = 10) with
// autocannon at 1, 4 and 64 connections, each starting at its own query (staggered-clients.ts),
// with and without a keyword filter. Prints requests/s, p50/p99, recall@10 and the server's CPU
// use, next to the kernel's own 1- and 2-in-flight QPS.
// The 64-connection runs and the kernel's 2-in-flight runs alternate, round by round, and the
// ratio is the median of the rounds' ratios: on a shared host the speed drifts by a quarter within
// minutes, and two figures measured minutes apart compared the drift, not the server. Each round
// also drives the two floors (floor-server.ts: a bare fastify route and a bare Node http server,
// each over its own copy of the kernel index) at 64 connections, so QuiverDB's own cost reads as
// QuiverDB ÷ floor, apart from what the stack and the load generator leave of the kernel's rate
// (floor ÷ kernel).
// Then the same searches and queries through REST and through the gRPC door at 1 and 64
// connections, printing gRPC/REST (bench/http/doors.ts).
// `--quick` shrinks everything to run in CI in under two minutes; it fails only when the server's
// or a floor's recall falls below 0.95 (a correctness bar), never on speed.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load, searchIds, waitGreen } from './client.js';
import { compareDoors, type DoorResult } from './doors.js';
import { makeDataSet, type DataSet } from './data.js';
import { buildKernel, exactAnswers, kernelAnswers, kernelQps, recallAt10 } from './kernel.js';
import { floorKinds, type FloorKind } from './floor-server.js';
import { drive, type LoadResult } from './load.js';
import { startServer, waitReady, type ServerProcess } from './server.js';
import { median, medianBy } from '../statistics.js';

const quick = process.argv.includes('--quick');
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const duration_s = quick ? 2 : 10;
/** The kernel's QPS settles faster than an HTTP run: shorter in quick mode keeps CI short. */
const kernelDuration_s = quick ? 1 : 10;
/** Rounds of a 64-connection HTTP run, a kernel run with 2 in flight and a run of each floor, taking turns. */
const pairedRounds = quick ? 1 : 3;
const pairedDuration_s = quick ? duration_s : 6;
const minimumRecall = 0.95;

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

interface FloorFigures {
  requests_per_s: number;
  ofKernel: number;
  serverOfFloor: number;
  recall: number;
  /** The floor's JS thread and the load generator, cores, in its run of median rate. */
  js_thread_cores: number;
  client_cpu_cores: number;
}

interface SetReport {
  data: DataSet;
  upload_s: number;
  green_s: number;
  httpRecall: { plain: number; filtered: number };
  kernelRecall: { plain: number; filtered: number };
  kernel: { plain1: number; plain2: number; filtered1: number; filtered2: number };
  /** Median over the alternating rounds of HTTP(64) ÷ kernel(2). */
  ratio: { plain: number; filtered: number };
  /** Each floor (floor-server.ts) at 64 connections: its median rate, and the medians over the rounds of floor ÷ kernel(2) and HTTP ÷ floor. */
  floors: Record<'plain' | 'filtered', Record<FloorKind, FloorFigures>>;
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
  const floors = {} as SetReport['floors'];
  // Started here, stopped in `finally` whatever happens: a floor is a child process, and would
  // outlive a failed run.
  const floorServers: Partial<Record<FloorKind, ServerProcess>> = {};
  try {
    const floorRecall = { plain: {}, filtered: {} } as Record<'plain' | 'filtered', Record<FloorKind, number>>;
    for (const kind of floorKinds) {
      const floor = (floorServers[kind] = await startFloor(kind, data));
      floorRecall.plain[kind] = recallAt10(await searchIds(floor.url, data, false), truth);
      floorRecall.filtered[kind] = recallAt10(await searchIds(floor.url, data, true), filteredTruth);
    }

    for (const filtered of [false, true]) {
      const mode = filtered ? 'filtered' : 'plain';
      // 4: a few clients at once, where the inline gate decides whether both cores search
      // (src/native/inline-search.ts).
      for (const connections of [1, 4]) printRun(runs, await drive(server, data, connections, duration_s, filtered));
      // 64: saturation, against the kernel's two searches in flight and the floors, taking turns
      // (which goes first rotates each round).
      const rounds: { http: LoadResult; kernel: number; floors: Record<FloorKind, LoadResult> }[] = [];
      const turns = 2 + floorKinds.length;
      for (let round = 0; round < pairedRounds; round++) {
        let http: LoadResult | undefined;
        let kernelRate = 0;
        const floorRuns = {} as Record<FloorKind, LoadResult>;
        for (let turn = 0; turn < turns; turn++) {
          const which = (round + turn) % turns;
          if (which === 0) kernelRate = await kernelQps(kernel, data, 2, pairedDuration_s, filtered);
          else if (which === 1) http = await drive(server, data, 64, pairedDuration_s, filtered);
          else floorRuns[floorKinds[which - 2]!] = await drive(floorServers[floorKinds[which - 2]!]!, data, 64, pairedDuration_s, filtered);
        }
        rounds.push({ http: http!, kernel: kernelRate, floors: floorRuns });
        const floorText = floorKinds.map((kind) => `${kind} floor ${fixed(floorRuns[kind].requests_per_s, 0)} (${fixed((100 * floorRuns[kind].requests_per_s) / kernelRate, 0)}%)`).join(', ');
        console.log(`round ${round + 1} ${mode}: kernel(2) ${fixed(kernelRate, 0)} searches/s, HTTP(64) ${fixed(http!.requests_per_s, 0)} req/s (${fixed((100 * http!.requests_per_s) / kernelRate, 0)}%), ${floorText}`);
      }
      // The HTTP run of median rate stands for the 64-connection row (its latencies and CPU).
      printRun(runs, medianBy(rounds, (entry) => entry.http.requests_per_s).http);
      kernelTwo[mode] = medianBy(rounds, (entry) => entry.kernel).kernel;
      ratio[mode] = median(rounds.map((entry) => entry.http.requests_per_s / entry.kernel));
      floors[mode] = {} as Record<FloorKind, FloorFigures>;
      for (const kind of floorKinds) {
        const medianRun = medianBy(rounds, (entry) => entry.floors[kind].requests_per_s).floors[kind];
        floors[mode][kind] = {
          requests_per_s: medianRun.requests_per_s,
          ofKernel: median(rounds.map((entry) => entry.floors[kind].requests_per_s / entry.kernel)),
          serverOfFloor: median(rounds.map((entry) => entry.http.requests_per_s / entry.floors[kind].requests_per_s)),
          recall: floorRecall[mode][kind],
          js_thread_cores: medianRun.server_js_thread_cores,
          client_cpu_cores: medianRun.client_cpu_cores,
        };
      }
    }
  } finally {
    for (const floor of Object.values(floorServers)) await floor.stop();
  }
  kernel.index.close();
  const kernelRates = { plain1: kernelOne.plain, plain2: kernelTwo.plain, filtered1: kernelOne.filtered, filtered2: kernelTwo.filtered };
  console.log('REST and gRPC, same calls and concurrency:');
  // Quick mode compares unfiltered calls only, to stay short in CI.
  const doors = await compareDoors(server, server.grpcPort, data, duration_s, quick ? [false] : [false, true]);
  await fetch(`${server.url}/collections/${data.name}`, { method: 'DELETE' });
  return { data, upload_s, green_s, httpRecall, kernelRecall, kernel: kernelRates, ratio, floors, runs, doors };
}

/** A floor server (floor-server.ts) over `data`, listening once its own index is built. */
async function startFloor(kind: FloorKind, data: DataSet): Promise<ServerProcess> {
  const { vectors: _vectors, queries: _queries, categories: _categories, ...options } = data;
  const started = performance.now();
  const floor = await startServer(root, { entry: ['--import', 'tsx', join(root, 'bench/http/floor-server.ts'), kind, JSON.stringify(options)], listeningMessage: 'floor listening' });
  console.log(`${kind} floor server (over its own kernel index) listening ${fixed((performance.now() - started) / 1000)} s after start`);
  return floor;
}

function printSummary(reports: SetReport[]): void {
  console.log('\n| set | filter | HTTP req/s (1 conn) | HTTP req/s (4 conn) | HTTP req/s (64 conn) | p50 / p99 ms (64 conn) | server CPU (64 conn), of it JS thread | HTTP recall@10 | kernel QPS 1 / 2 in flight | kernel recall@10 | HTTP(64) / kernel(2), median of rounds |');
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

function printFloors(reports: SetReport[]): void {
  console.log('\n| set | filter | floor | floor req/s (64 conn) | its JS thread / load generator, cores | floor recall@10 | floor / kernel(2) | HTTP(64) / floor(64) |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const report of reports) {
    for (const mode of ['plain', 'filtered'] as const) {
      for (const kind of floorKinds) {
        const floor = report.floors[mode][kind];
        console.log(
          `| ${report.data.count / 1000}k x ${report.data.dimension} ${report.data.distance} | ${mode === 'filtered' ? 'keyword 10%' : 'none'} | ${kind} | ${fixed(floor.requests_per_s, 0)} | ${fixed(floor.js_thread_cores, 2)} / ${fixed(floor.client_cpu_cores, 2)} | ${fixed(floor.recall, 3)} | ${fixed(100 * floor.ofKernel, 0)}% | ${fixed(100 * floor.serverOfFloor, 0)}% |`,
        );
      }
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
    `bench:http${quick ? ' --quick' : ''}: ${duration_s} s per HTTP load run, ${kernelDuration_s} s per kernel run, ${pairedRounds} rounds of ${pairedDuration_s} s runs taking turns: HTTP and the floors at 64 connections, the kernel at 2 in flight`,
  );
  const server = await startServer(root);
  let failed = false;
  try {
    await waitReady(server.url);
    const reports: SetReport[] = [];
    for (const options of sets) reports.push(await benchmarkSet(server, makeDataSet(options)));
    printSummary(reports);
    printFloors(reports);
    printDoors(reports);
    for (const report of reports) {
      // Every gRPC call must succeed: an error there is a broken door, not a slow one.
      const grpcErrors = report.doors.reduce((sum, door) => sum + door.grpc_errors, 0);
      if (grpcErrors > 0) {
        console.error(`gRPC: ${grpcErrors} calls failed on ${report.data.name}`);
        failed = true;
      }
      // A floor that answers worse than the kernel is a broken floor, not a fast one.
      for (const mode of ['plain', 'filtered'] as const) {
        for (const kind of floorKinds) {
          if (report.floors[mode][kind].recall < minimumRecall) {
            console.error(`recall below the minimum: ${report.data.name} ${mode} ${kind} floor recall@10 ${fixed(report.floors[mode][kind].recall, 3)} < ${minimumRecall}`);
            failed = true;
          }
        }
      }
      for (const [name, recall] of Object.entries(report.httpRecall)) {
        if (recall < minimumRecall) {
          console.error(`recall below the minimum: ${report.data.name} ${name} HTTP recall@10 ${fixed(recall, 3)} < ${minimumRecall}`);
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
