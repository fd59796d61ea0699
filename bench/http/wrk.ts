// Load from wrk (a C load generator, Debian's `wrk` package) instead of autocannon: on two cores
// the load generator takes CPU from the server it measures, and wrk needs a fraction of what
// autocannon (JavaScript, in the bench process) does for the same requests (bench/README.md,
// "A lighter load generator"). wrk runs in its own process under bash, whose `times` then
// reports wrk's CPU; the request bodies go through a file to bench/http/cycle-bodies.lua.
import { execFile, spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const script = join(dirname(fileURLToPath(import.meta.url)), 'cycle-bodies.lua');

export interface WrkResult {
  requests_per_s: number;
  p50_ms: number;
  p99_ms: number;
  errors: number;
  non2xx: number;
  /** CPU seconds wrk used (user + system). */
  cpu_s: number;
}

let available: boolean | undefined;

/** Whether `wrk` is on the PATH (`.ci/run` installs it). */
export function wrkAvailable(): boolean {
  available ??= spawnSync('wrk', ['--version'], { stdio: 'ignore' }).error === undefined;
  return available;
}

function milliseconds(text: string, label: string): number {
  const match = new RegExp(`^\\s*${label}\\s+([\\d.]+)(us|ms|s)\\s*$`, 'm').exec(text);
  if (!match) throw new Error(`wrk printed no ${label} latency:\n${text}`);
  const scale = { us: 0.001, ms: 1, s: 1000 }[match[2] as 'us' | 'ms' | 's'];
  return Number(match[1]) * scale;
}

/** `wrk -t1 -c<connections> -d<duration>s` POSTing `bodies` in turn to `url`. */
export async function wrkLoad(url: string, bodies: string[], connections: number, duration_s: number): Promise<WrkResult> {
  const directory = await mkdtemp(join(tmpdir(), 'quiver-bench-wrk-'));
  try {
    const bodiesFile = join(directory, 'bodies.txt');
    await writeFile(bodiesFile, bodies.join('\n') + '\n');
    // One thread: the lightest load wrk can make, and one event loop keeps 64 connections busy.
    const command = 'wrk "$@" && times';
    const { stdout } = await run('bash', ['-c', command, 'wrk', '-t1', `-c${connections}`, `-d${duration_s}s`, '--latency', '-s', script, url], {
      env: { ...process.env, BODIES_FILE: bodiesFile },
      maxBuffer: 1 << 20,
    });
    const requests = /^Requests\/sec:\s+([\d.]+)/m.exec(stdout);
    if (!requests) throw new Error(`wrk printed no request rate:\n${stdout}`);
    const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(stdout);
    const errors = socket ? socket.slice(1).reduce((sum, count) => sum + Number(count), 0) : 0;
    const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(stdout)?.[1] ?? 0);
    // `times` prints the shell's own user/system times, then its children's: wrk's.
    const children = [...stdout.matchAll(/^(\d+)m([\d.]+)s (\d+)m([\d.]+)s$/gm)].at(-1);
    const cpu_s = children ? 60 * Number(children[1]) + Number(children[2]) + 60 * Number(children[3]) + Number(children[4]) : NaN;
    return { requests_per_s: Number(requests[1]), p50_ms: milliseconds(stdout, '50%'), p99_ms: milliseconds(stdout, '99%'), errors, non2xx, cpu_s };
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}
