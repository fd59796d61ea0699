// The real server as a child process (`node --import tsx src/main.ts`, or a built entry point) over a data directory,
// configured by environment; its port is read from the "quiverdb listening" log line. Used by
// the crash tests (SIGKILL) and benchmarks.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { serverNodeFlags } from '../../src/start/node-flags.js';

const projectRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface ChildServer {
  process: ChildProcess;
  url: string;
  /** Resolves when the process has exited (after a kill or a clean stop). */
  exited: Promise<number | null>;
  /** Every stdout line so far (pino JSON), kept while the process runs. */
  logLines: string[];
  kill(signal: NodeJS.Signals): Promise<void>;
}

/**
 * Starts the server; resolves once it listens (the engine may still be loading: 412s). The
 * port comes from the info-level "quiverdb listening" line, so the log level must be info or lower.
 */
export function startChildServer(
  directory: string,
  environment: Record<string, string> = {},
  root = projectRoot,
  builtScript?: string,
  serverArguments: string[] = [],
): Promise<ChildServer> {
  // `root`: another checkout's code (bench:memory --points-only measures main's against this one).
  // `builtScript`: a built entry point run by node under the shipped V8 flags (the bundle as `npm start` serves it) instead of the sources.
  // `serverArguments`: the server's own, after the script (e.g. `--config file`).
  const commandArguments = [...(builtScript === undefined ? ['--import', 'tsx', join(root, 'src', 'main.ts')] : [...serverNodeFlags, builtScript]), ...serverArguments];
  const child = spawn(process.execPath, commandArguments, {
    cwd: root,
    env: {
      ...process.env,
      QUIVER__STORAGE__PATH: directory,
      QUIVER__SERVICE__HTTP_PORT: '0',
      QUIVER__SERVICE__HOST: '127.0.0.1',
      // Children run side by side: the gRPC door (fixed port 6574 by default) stays off unless a
      // test asks for it with a port of its own.
      QUIVER__SERVICE__GRPC_PORT: '0',
      QUIVER__LOG__PRETTY: 'false',
      QUIVER__LOG__LEVEL: 'info',
      ...environment,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const logLines: string[] = [];
  return new Promise((resolve, reject) => {
    let output = '';
    let errorOutput = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      let newline: number;
      while ((newline = output.indexOf('\n')) >= 0) {
        const line = output.slice(0, newline);
        output = output.slice(newline + 1);
        logLines.push(line);
        if (!line.includes('quiverdb listening')) continue;
        try {
          const address = (JSON.parse(line) as { address: string }).address;
          resolve({
            process: child,
            url: address,
            exited,
            logLines,
            async kill(signal) {
              if (child.exitCode === null && child.signalCode === null) child.kill(signal);
              await exited;
            },
          });
        } catch (error) {
          reject(error as Error);
        }
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => {
      errorOutput += chunk.toString('utf8');
    });
    void exited.then((code) => reject(new Error(`server exited (${code}) before listening: ${errorOutput.slice(-2000)}`)));
  });
}

/** Polls `path` until it stops answering 412 (engine loading); returns the elapsed milliseconds. */
export async function waitUntilReady(url: string, path = '/collections', timeout_ms = 120_000): Promise<number> {
  const started = performance.now();
  for (;;) {
    try {
      const response = await fetch(`${url}${path}`);
      await response.arrayBuffer();
      if (response.status !== 412) return performance.now() - started;
    } catch {
      // not listening yet
    }
    if (performance.now() - started > timeout_ms) throw new Error(`server not ready after ${timeout_ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
