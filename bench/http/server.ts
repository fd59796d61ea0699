// The server under test as a child process (`node --import tsx src/main.ts`), on a free port
// over a temporary data directory, and its CPU use read from /proc (user + system time).
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { serverNodeFlags } from '../../src/start/node-flags.js';
import { freePort } from '../../test/grpc/free-port.js';

export interface ServerProcess {
  url: string;
  /** The gRPC door's port (docs/api.md §14), for the REST/gRPC comparison. */
  grpcPort: number;
  /** Resolves once the server logs that the gRPC door listens (it opens after REST: docs/architecture.md §21). */
  grpcListening: Promise<void>;
  pid: number;
  /** Seconds of CPU the process has used so far (all its threads). */
  cpuSeconds(): number;
  /**
   * Seconds of CPU its main thread (the JS event loop, with the searches it runs inline) has used
   * so far: near one second per second, the event loop is the bound, whatever the kernel's
   * threads could still do.
   */
  jsThreadCpuSeconds(): number;
  stop(): Promise<void>;
}

const ticksPerSecond = 100; // USER_HZ on Linux

/** `path`: a process's or a thread's `stat` file under /proc. */
function cpuSecondsOf(path: string): number {
  const stat = readFileSync(path, 'utf8');
  // Fields after the command name (which may hold spaces) start after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
}

export interface StartOptions {
  /** Node flags placed before the entry (bench:profile passes `--cpu-prof`). */
  nodeArguments?: string[];
  /** The entry: the TypeScript source through tsx unless given (bench:profile runs dist/main.js). */
  entry?: string[];
  /** A data directory to reuse; it is then left in place at stop (the caller removes it). */
  directory?: string;
  /** The `msg` of the log line that says the process answers; "quiverdb listening" unless given (floor-server.ts). */
  listeningMessage?: string;
}

export async function startServer(root: string, options: StartOptions = {}): Promise<ServerProcess> {
  const directory = options.directory ?? (await mkdtemp(join(tmpdir(), 'quiver-bench-http-')));
  const grpcPort = await freePort();
  const entry = options.entry ?? ['--import', 'tsx', join(root, 'src/main.ts')];
  // Under the V8 flags the shipped server runs with (src/start/node-flags.ts), so that the
  // benchmark measures what `npm start` serves.
  const child: ChildProcess = spawn(process.execPath, [...serverNodeFlags, ...(options.nodeArguments ?? []), ...entry], {
    cwd: root,
    env: {
      ...process.env,
      QUIVER__SERVICE__HOST: '127.0.0.1',
      QUIVER__SERVICE__HTTP_PORT: '0',
      QUIVER__SERVICE__GRPC_PORT: String(grpcPort),
      QUIVER__STORAGE__PATH: directory,
      // Benchmark data is regenerated each run: durability would only measure the disk.
      QUIVER__STORAGE__FSYNC: 'false',
      QUIVER__LOG__LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  let grpcOpened!: () => void;
  const grpcListening = new Promise<void>((resolve) => (grpcOpened = resolve));
  lines.on('line', (line) => {
    if (line.includes('"msg":"quiverdb gRPC listening"')) grpcOpened();
  });
  const listeningMessage = options.listeningMessage ?? 'quiverdb listening';
  const url = await new Promise<string>((resolve, reject) => {
    // A floor (floor-server.ts) builds its index before it listens: 5–9 s for bench:http's sets on
    // a quiet host, so the wait leaves room for a busy one.
    const timer = setTimeout(() => reject(new Error('server did not start within 120 s')), 120_000);
    child.once('exit', (code) => reject(new Error(`server exited with ${code} before listening`)));
    lines.on('line', (line) => {
      try {
        const entry = JSON.parse(line) as { address?: string; msg?: string };
        if (entry.msg === listeningMessage && entry.address) {
          clearTimeout(timer);
          resolve(entry.address);
        }
      } catch {
        // not a log line
      }
    });
  });
  const pid = child.pid!;
  return {
    url,
    grpcPort,
    grpcListening,
    pid,
    cpuSeconds: () => cpuSecondsOf(`/proc/${pid}/stat`),
    // The main thread's id is the process id.
    jsThreadCpuSeconds: () => cpuSecondsOf(`/proc/${pid}/task/${pid}/stat`),
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      if (options.directory === undefined) await rm(directory, { recursive: true, force: true });
    },
  };
}

/** Waits until the engine answers (GET /collections is 412 while loading). */
export async function waitReady(url: string): Promise<void> {
  for (let attempt = 0; attempt < 600; attempt++) {
    const response = await fetch(`${url}/collections`).catch(() => undefined);
    if (response?.status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('server never became ready');
}
