// bench:profile — where the server's time goes (issue 20: "the next regression is found in
// minutes"). Runs the built server (dist/main.js) under `node --cpu-prof` three times over one data
// directory: once while points are uploaded in batches of 1,000 until the collection is green,
// once while 64 connections search (plain, then with a keyword filter), once while 64 gRPC
// connections search through the gRPC door. Each run's profile is
// summarised as self time by place (our files, packages, Node, the addon, the garbage collector)
// and by function; the .cpuprofile files stay in bench/results/profile/ for Chrome DevTools.
// `--quick` shrinks the data and the load so it runs in seconds; `--root <checkout>` runs another
// checkout's built server; `--dimension N` profiles N-d Cosine vectors instead of 128-d Euclid
// (768 is where the search itself outweighs the request's JS work); `--phases a,b` runs only the
// named phases after the upload (search, grpc-search, and query: the query API on the same
// vectors, unfiltered, run only when named).
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load, waitGreen } from '../http/client.js';
import { makeDataSet, type DataSet } from '../http/data.js';
import { grpcRate, restRate } from '../http/doors.js';
import { drive } from '../http/load.js';
import { startServer, waitReady, type ServerProcess } from '../http/server.js';
import { formatSummary, summarizeProfile, type CpuProfile } from './summary.js';

const quick = process.argv.includes('--quick');
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
// `--root <checkout>` profiles another checkout's built server (a before/after on one machine).
const rootArgument = process.argv.indexOf('--root');
const serverRoot = rootArgument >= 0 ? process.argv[rootArgument + 1]! : root;
const entry = join(serverRoot, 'dist', 'main.js');
const output = join(root, 'bench', 'results', 'profile');
const loadSeconds = quick ? 2 : 10;
const dimensionArgument = process.argv.indexOf('--dimension');
const dimension = dimensionArgument >= 0 ? Number(process.argv[dimensionArgument + 1]) : 128;
const phasesArgument = process.argv.indexOf('--phases');
const phases = new Set(phasesArgument >= 0 ? process.argv[phasesArgument + 1]!.split(',') : ['search', 'grpc-search']);

async function profiled(phase: string, directory: string, work: (server: ServerProcess) => Promise<void>): Promise<void> {
  const profileDirectory = join(output, phase);
  await rm(profileDirectory, { recursive: true, force: true });
  await mkdir(profileDirectory, { recursive: true });
  const server = await startServer(serverRoot, { entry: [entry], nodeArguments: ['--cpu-prof', `--cpu-prof-dir=${profileDirectory}`], directory });
  try {
    await waitReady(server.url);
    await work(server);
  } finally {
    // The profile is written when the process exits (a clean SIGTERM shutdown).
    await server.stop();
  }
  const files = (await readdir(profileDirectory)).filter((name) => name.endsWith('.cpuprofile'));
  if (files.length !== 1) throw new Error(`expected one profile in ${profileDirectory}, found ${files.length}`);
  const profile = JSON.parse(await readFile(join(profileDirectory, files[0]!), 'utf8')) as CpuProfile;
  console.log(`\n${formatSummary(`${phase} (${join('bench/results/profile', phase, files[0]!)})`, summarizeProfile(profile, serverRoot, quick ? 12 : 25))}`);
}

async function main(): Promise<void> {
  if (!existsSync(entry)) {
    console.error('bench:profile runs the built server: run `npm run build` first');
    process.exit(1);
  }
  if (!Number.isInteger(dimension) || dimension < 1) throw new Error('--dimension takes a whole number of dimensions');
  const data: DataSet =
    dimension === 128
      ? makeDataSet({ name: 'profile_euclid_128', distance: 'Euclid', dimension: 128, count: quick ? 5_000 : 50_000, queryCount: 200, seed: 7 })
      : makeDataSet({ name: `profile_cosine_${dimension}`, distance: 'Cosine', dimension, count: quick ? 2_000 : 20_000, queryCount: 200, seed: 7 });
  const directory = await mkdtemp(join(tmpdir(), 'quiver-bench-profile-'));
  console.log(`# bench:profile — ${data.count} x ${data.dimension} ${data.distance}, dist/main.js under --cpu-prof`);
  try {
    await profiled('upload', directory, async (server) => {
      const upload_s = await load(server.url, data, 1000);
      const green_s = await waitGreen(server.url, data.name);
      console.log(`upload: ${(data.count / upload_s).toFixed(0)} points/s in batches of 1000, green ${green_s.toFixed(1)} s later`);
    });
    if (phases.has('search')) await profiled('search', directory, async (server) => {
      await waitGreen(server.url, data.name);
      for (const filtered of [false, true]) {
        const run = await drive(server, data, 64, loadSeconds, filtered);
        if (run.errors > 0 || run.non2xx > 0) throw new Error(`search load had ${run.errors} errors and ${run.non2xx} non-2xx answers`);
        console.log(
          `search${filtered ? ' (keyword filter)' : ''}: ${run.requests_per_s.toFixed(0)} requests/s at 64 connections, p50 ${run.p50_ms} ms, p99 ${run.p99_ms} ms, server CPU ${run.server_cpu_cores.toFixed(2)} cores`,
        );
      }
    });
    // The query API (`POST points/query`, what the Python client's query_points sends) on the same vectors.
    if (phases.has('query')) await profiled('query', directory, async (server) => {
      await waitGreen(server.url, data.name);
      const run = await restRate(server, data, 'query', 64, loadSeconds, false);
      console.log(`query: ${run.perSecond.toFixed(0)} requests/s at 64 connections, p50 ${run.p50} ms`);
    });
    // The gRPC door on the same searches (docs/api.md §14): what a call costs beyond REST's.
    if (phases.has('grpc-search')) await profiled('grpc-search', directory, async (server) => {
      await waitGreen(server.url, data.name);
      await server.grpcListening;
      const run = await grpcRate(server.grpcPort, data, 'search', 64, loadSeconds, false);
      if (run.errors > 0) throw new Error(`gRPC search load had ${run.errors} failed calls`);
      console.log(`gRPC search: ${run.perSecond.toFixed(0)} calls/s at 64 connections, p50 ${run.p50} ms`);
    });
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

await main();
