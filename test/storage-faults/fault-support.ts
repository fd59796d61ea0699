// Shared by the storage fault tests (docs/durability.md): a real server child process
// (test/support/child-server.ts) over real files, a small tmpfs for disk-full and read-only
// cases, and a run-to-exit helper for starts that must be refused.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll } from 'vitest';
import { fileURLToPath } from 'node:url';
import { startChildServer, waitUntilReady, type ChildServer } from '../support/child-server.js';

const projectRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Quiet, checkpoints only when asked (SIGTERM), so a test decides what is on disk. */
export const faultServerEnvironment: Record<string, string> = {
  QUIVER__STORAGE__CHECKPOINT_INTERVAL_SECONDS: '3600',
  QUIVER__STORAGE__CHECKPOINT_OPERATIONS: '1000000',
};

export async function newDirectory(label: string): Promise<string> {
  return mkdtemp(join(tmpdir(), `quiver-fault-${label}-`));
}

export async function removeDirectory(directory: string): Promise<void> {
  await rm(directory, { recursive: true, force: true });
}

/** A maker of scratch data directories for one test file, each removed after the file's tests. */
export function scratchDirectories(): (label: string) => Promise<string> {
  const created: string[] = [];
  afterAll(async () => {
    for (const directory of created) await removeDirectory(directory);
  });
  return async (label) => {
    const directory = await newDirectory(label);
    created.push(directory);
    return directory;
  };
}

/** Starts a server and waits until its engine is ready. */
export async function startReady(directory: string, environment: Record<string, string> = {}): Promise<ChildServer> {
  const server = await startChildServer(directory, { ...faultServerEnvironment, ...environment });
  await waitUntilReady(server.url, '/collections', 60_000);
  return server;
}

export interface HttpAnswer {
  status: number;
  body: { result?: unknown; status?: unknown } & Record<string, unknown>;
}

export async function call(url: string, method: string, path: string, body?: unknown): Promise<HttpAnswer> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as HttpAnswer['body'] };
}

/** Runs the server until it exits by itself (a refused start); everything it printed. */
export async function runToExit(directory: string, environment: Record<string, string> = {}, timeout_ms = 30_000): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(projectRoot, 'src', 'main.ts')], {
    cwd: projectRoot,
    env: {
      ...process.env,
      ...faultServerEnvironment,
      QUIVER__STORAGE__PATH: directory,
      QUIVER__SERVICE__HTTP_PORT: '0',
      QUIVER__SERVICE__HOST: '127.0.0.1',
      QUIVER__LOG__PRETTY: 'false',
      QUIVER__LOG__LEVEL: 'info',
      ...environment,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeout_ms);
  const code = await new Promise<number | null>((resolve) => child.once('exit', (exitCode) => resolve(exitCode)));
  clearTimeout(timer);
  return { code, output };
}

/** Parsed pino lines of a child server. */
export function logRecords(lines: string[]): Record<string, unknown>[] {
  return lines.flatMap((line) => {
    try {
      return [JSON.parse(line) as Record<string, unknown>];
    } catch {
      return [];
    }
  });
}

/**
 * Why tmpfs-based tests cannot run here, or undefined when they can. With
 * QUIVER_REQUIRE_FAULT_TESTS=1 a reason is a failure (the caller throws), not a skip.
 */
export function mountUnavailableReason(): string | undefined {
  if (process.platform !== 'linux') return `not Linux (${process.platform})`;
  if (process.getuid?.() !== 0) return 'not running as root (mount needs it)';
  // Root is not enough in some containers: try it once.
  const probe = mkdtempSync(join(tmpdir(), 'quiver-mount-probe-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe], { stdio: 'pipe' });
    execFileSync('umount', [probe], { stdio: 'pipe' });
    return undefined;
  } catch (error) {
    return `mount -t tmpfs failed: ${(error as Error).message.split('\n')[0]}`;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
}

export const faultTestsRequired = process.env.QUIVER_REQUIRE_FAULT_TESTS === '1';

/** Prints the skip reason, or throws when the fault tests are required (.ci/run). */
export function skipReason(): string | undefined {
  const reason = mountUnavailableReason();
  if (reason === undefined) return undefined;
  if (faultTestsRequired) throw new Error(`QUIVER_REQUIRE_FAULT_TESTS=1 but the mount-based fault tests cannot run: ${reason}`);
  process.stdout.write(`storage fault tests skipped: ${reason}\n`);
  return reason;
}

export interface Tmpfs {
  directory: string;
  remount(options: string): void;
  unmount(): Promise<void>;
}

/** A real tmpfs of `sizeBytes` at a new directory (root only). */
export async function mountTmpfs(label: string, sizeBytes: number): Promise<Tmpfs> {
  const directory = await newDirectory(label);
  await mkdir(directory, { recursive: true });
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeBytes},mode=0700`, 'tmpfs', directory]);
  return {
    directory,
    remount(options) {
      execFileSync('mount', ['-o', `remount,${options}`, directory]);
    },
    async unmount() {
      try {
        execFileSync('umount', ['-l', directory]);
      } finally {
        await removeDirectory(directory);
      }
    },
  };
}

/**
 * A real ext4 file system in a loop-mounted image at a new directory (root only), for faults
 * tmpfs cannot show: `abort()` makes it read-only at once even with files open for writing (ext4's
 * `abort` mount option, as after a disk error with errors=remount-ro), which `remount,ro` refuses.
 */
export async function mountExt4(label: string, sizeBytes: number): Promise<Tmpfs & { abort(): void }> {
  const directory = await newDirectory(label);
  const image = `${directory}.img`;
  execFileSync('truncate', ['-s', String(sizeBytes), image]);
  execFileSync('mkfs.ext4', ['-q', '-F', image], { stdio: 'pipe' });
  execFileSync('mount', ['-o', 'loop,errors=remount-ro', image, directory]);
  execFileSync('chmod', ['700', directory]);
  return {
    directory,
    remount(options) {
      execFileSync('mount', ['-o', `remount,${options}`, directory]);
    },
    abort() {
      execFileSync('mount', ['-o', 'remount,abort', directory]);
    },
    async unmount() {
      try {
        execFileSync('umount', ['-l', directory]);
      } finally {
        await removeDirectory(directory);
        await rm(image, { force: true });
      }
    },
  };
}

/** Why loop-mounted ext4 tests cannot run here (beyond `skipReason`), or undefined. */
export function ext4SkipReason(): string | undefined {
  const base = skipReason();
  if (base !== undefined) return base;
  let reason: string | undefined;
  try {
    execFileSync('sh', ['-c', 'command -v mkfs.ext4 && command -v losetup && test -e /dev/loop-control'], { stdio: 'pipe' });
  } catch {
    reason = 'mkfs.ext4, losetup or /dev/loop-control is missing';
  }
  if (reason === undefined) return undefined;
  if (faultTestsRequired) throw new Error(`QUIVER_REQUIRE_FAULT_TESTS=1 but the ext4 fault tests cannot run: ${reason}`);
  process.stdout.write(`ext4 fault tests skipped: ${reason}\n`);
  return reason;
}
