// bench:ann's peers outside Node: faiss (HNSWFlat, and HNSWSQ 8-bit / binary HNSW for
// --quantized) and qdrant-edge through a Python worker (bench/ann/python/worker.py, in a pinned
// venv .cache/bench-venv made on first use), and hnswlib compiled with -O3 -march=native from
// the header bundled in hnswlib-node (bench/ann/native/hnswlib_bench.cpp, into .cache/). Each
// index lives in its own worker process spoken to through bench/ann/external-protocol.ts; the
// worker times its own builds and search loops, so the process hop is never counted. When
// python3, pip, the network or g++ is missing, those peers are skipped with the reason.
import { spawn, spawnSync, type ChildProcessByStdio } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { EF_CONSTRUCT, K, M, type Contender } from './contenders.js';
import type { Dataset } from './data.js';
import { commandLine, foundIds, parseReply, type WorkerCommand, type WorkerReply } from './external-protocol.js';

const root = new URL('../..', import.meta.url).pathname;
const venv = join('.cache', 'bench-venv');
const requirements = join('bench', 'ann', 'python', 'requirements.txt');
const workerScript = join(root, 'bench', 'ann', 'python', 'worker.py');
const nativeSource = join(root, 'bench', 'ann', 'native', 'hnswlib_bench.cpp');
const nativeBinary = join(root, '.cache', 'bench-native', 'hnswlib_bench');

export type PeerLibrary = 'faiss' | 'faiss-sq8' | 'faiss-binary' | 'qdrant-edge' | 'hnswlib-c++';

export const peerNames: Record<PeerLibrary, string> = {
  faiss: 'faiss HNSWFlat',
  'faiss-sq8': 'faiss HNSWSQ 8-bit (no rescoring)',
  'faiss-binary': 'faiss binary HNSW (no rescoring)',
  'qdrant-edge': 'qdrant-edge',
  'hnswlib-c++': 'hnswlib C++ -march=native',
};

export interface PeerLaunchers {
  /** The venv's python, when faiss and qdrant-edge import. */
  python: string | undefined;
  /** The compiled hnswlib program. */
  native: string | undefined;
  /** Why a launcher is missing, one line each. */
  skipped: string[];
}

function preparePython(skipped: string[]): string | undefined {
  const made = spawnSync(process.execPath, [join(root, 'scripts', 'python-env.mjs'), venv, requirements], { stdio: ['ignore', 2, 2] });
  const python = join(root, venv, 'bin', 'python');
  if (made.status !== 0) {
    skipped.push(`faiss and qdrant-edge skipped: could not make ${venv} from ${requirements} (python3, pip or the network is missing)`);
    return undefined;
  }
  const imports = spawnSync(python, ['-c', 'import faiss, qdrant_edge, numpy'], { encoding: 'utf8' });
  if (imports.status !== 0) {
    skipped.push(`faiss and qdrant-edge skipped: they do not import in ${venv}: ${(imports.stderr ?? '').trim().split('\n').pop() ?? ''}`);
    return undefined;
  }
  return python;
}

function prepareNative(skipped: string[]): string | undefined {
  const compiler = spawnSync('g++', ['--version'], { encoding: 'utf8' });
  if (compiler.status !== 0) {
    skipped.push('hnswlib C++ skipped: g++ is not installed');
    return undefined;
  }
  if (existsSync(nativeBinary) && statSync(nativeBinary).mtimeMs >= statSync(nativeSource).mtimeMs) return nativeBinary;
  const header = join(dirname(createRequire(import.meta.url).resolve('hnswlib-node/package.json')), 'src', 'hnswlib');
  mkdirSync(dirname(nativeBinary), { recursive: true });
  console.error('  compiling bench/ann/native/hnswlib_bench.cpp (g++ -O3 -march=native)...');
  const compiled = spawnSync('g++', ['-O3', '-march=native', '-std=c++17', '-pthread', `-I${header}`, '-o', nativeBinary, nativeSource], {
    stdio: ['ignore', 2, 2],
  });
  if (compiled.status !== 0) {
    skipped.push('hnswlib C++ skipped: compiling bench/ann/native/hnswlib_bench.cpp failed');
    return undefined;
  }
  return nativeBinary;
}

/** Makes the venv and the native program when needed; never throws. */
export function preparePeers(): PeerLaunchers {
  const skipped: string[] = [];
  return { python: preparePython(skipped), native: prepareNative(skipped), skipped };
}

const datasetDirectories = new WeakMap<Dataset, string>();
const madeDirectories: string[] = [];
process.on('exit', () => madeDirectories.forEach((directory) => rmSync(directory, { recursive: true, force: true })));

/** base.f32 / queries.f32 of `dataset` in a temp dir, written once per dataset. */
export function datasetDirectory(dataset: Dataset): string {
  const known = datasetDirectories.get(dataset);
  if (known) return known;
  const directory = mkdtempSync(join(tmpdir(), 'quiver-bench-peers-'));
  madeDirectories.push(directory);
  const bytes = (rows: Float32Array) => new Uint8Array(rows.buffer, rows.byteOffset, rows.byteLength);
  writeFileSync(join(directory, 'base.f32'), bytes(dataset.vectors));
  writeFileSync(join(directory, 'queries.f32'), bytes(dataset.queries));
  datasetDirectories.set(dataset, directory);
  return directory;
}

/** One worker process: commands go in one at a time, each awaited answer is one line. */
class WorkerProcess {
  private readonly child: ChildProcessByStdio<Writable, Readable, null>;
  private readonly lines: string[] = [];
  private waiting: { resolve: (line: string) => void; reject: (error: Error) => void } | undefined;
  private exited: Error | undefined;

  constructor(command: string, args: string[]) {
    // Passive OpenMP waits: on a shared machine, faiss's spinning idle threads would take the
    // core away from the build's own other thread and from every other contender.
    this.child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, OMP_WAIT_POLICY: 'PASSIVE' } });
    createInterface({ input: this.child.stdout }).on('line', (line) => {
      if (this.waiting) {
        const { resolve } = this.waiting;
        this.waiting = undefined;
        resolve(line);
      } else this.lines.push(line);
    });
    this.child.on('exit', (code, signal) => {
      this.exited = new Error(`peer worker ${command} exited (${code ?? signal})`);
      this.waiting?.reject(this.exited);
      this.waiting = undefined;
    });
  }

  private nextLine(): Promise<string> {
    const line = this.lines.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (this.exited) return Promise.reject(this.exited);
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
    });
  }

  async ready(): Promise<WorkerReply> {
    return parseReply(await this.nextLine(), 'ready');
  }

  async send(command: WorkerCommand): Promise<WorkerReply> {
    this.child.stdin.write(commandLine(command));
    return parseReply(await this.nextLine(), command.op);
  }

  close(): void {
    if (this.exited) return;
    this.child.stdin.end(commandLine({ op: 'close' }));
    setTimeout(() => this.child.kill(), 10_000).unref();
  }
}

let contenderNumber = 0;

/** A filtered run's worker (bench/ann/filtered.ts): fewer queries, and the filters file. */
export interface FilteredWorkerOptions {
  /** Only the first `queryCount` queries of the dataset. */
  queryCount: number;
  /** `columns` columns of `dataset.count` bytes each (1 = allowed), column after column. */
  filtersPath: string;
  columns: number;
}

/** One peer index in its own worker; a Contender like the in-process ones. */
export class ExternalContender implements Contender {
  readonly name: string;
  lastBuildMs: number | undefined;
  lastSearchMs: number | undefined;
  buildRssBytes: number | undefined;
  private indexBytes: number | undefined;
  private worker: WorkerProcess | undefined;
  private ef = 64;
  private readonly number = (contenderNumber += 1);

  constructor(
    readonly library: PeerLibrary,
    private readonly launchers: PeerLaunchers,
    private readonly filtered?: FilteredWorkerOptions,
  ) {
    this.name = peerNames[library];
  }

  private queryCount(dataset: Dataset): number {
    return this.filtered?.queryCount ?? dataset.queryCount;
  }

  private async start(dataset: Dataset): Promise<WorkerProcess> {
    if (this.worker) return this.worker;
    const args = [
      '--library', this.library, '--directory', datasetDirectory(dataset), '--dimension', String(dataset.dimension),
      '--count', String(dataset.count), '--query-count', String(this.queryCount(dataset)), '--distance', dataset.distance,
      '--m', String(M), '--ef-construct', String(EF_CONSTRUCT), '--k', String(K),
      ...(this.filtered ? ['--filters', this.filtered.filtersPath, '--filter-columns', String(this.filtered.columns)] : []),
    ];
    const worker =
      this.library === 'hnswlib-c++' ? new WorkerProcess(this.launchers.native!, args) : new WorkerProcess(this.launchers.python!, [workerScript, ...args]);
    await worker.ready();
    this.worker = worker;
    return worker;
  }

  async build(dataset: Dataset, threads: number): Promise<void> {
    const reply = await (await this.start(dataset)).send({ op: 'build', threads });
    if (reply.kind !== 'build') throw new Error('unexpected worker reply');
    this.lastBuildMs = reply.buildMs;
    this.buildRssBytes = reply.rssGrowthBytes;
    this.indexBytes = reply.indexBytes;
  }

  setEf(ef: number): void {
    this.ef = ef;
  }

  async searchAll(dataset: Dataset): Promise<Int32Array> {
    const output = join(datasetDirectory(dataset), `found-${process.pid}-${this.number}.i32`);
    const reply = await (await this.start(dataset)).send({ op: 'search', ef: this.ef, output });
    if (reply.kind !== 'search') throw new Error('unexpected worker reply');
    this.lastSearchMs = reply.searchMs;
    const found = foundIds(readFileSync(output), this.queryCount(dataset), K);
    rmSync(output, { force: true });
    return found;
  }

  /** Makes column `column` of the filters file (or none) the filter of every later search; returns how many points it allows. */
  async setFilter(dataset: Dataset, column: number | undefined): Promise<number> {
    const reply = await (await this.start(dataset)).send({ op: 'filter', column });
    if (reply.kind !== 'filter') throw new Error('unexpected worker reply');
    return reply.allowed;
  }

  /** Milliseconds the worker's search loop spends with a call that does nothing (0 for C++). */
  async emptyLoopMs(dataset: Dataset): Promise<number> {
    const reply = await (await this.start(dataset)).send({ op: 'overhead' });
    return reply.kind === 'overhead' ? reply.emptyLoopMs : 0;
  }

  reportedBytes(): number | undefined {
    return this.indexBytes;
  }

  close(): void {
    this.worker?.close();
    this.worker = undefined;
  }
}

/** The float32 peers available with these launchers, in table order. */
export function floatPeers(launchers: PeerLaunchers): PeerLibrary[] {
  return [
    ...(launchers.native ? (['hnswlib-c++'] as const) : []),
    ...(launchers.python ? (['faiss', 'qdrant-edge'] as const) : []),
  ];
}
