// Runs the server bundle (a CommonJS file) through V8's code cache: the bytecode of the functions a
// start compiled, kept in a file beside the bundle, so the next start deserializes them instead of
// parsing and compiling ~3.5 MB of JavaScript again (docs/architecture.md §21). Node 20 has no
// compile cache of its own (module.enableCompileCache came in Node 22), and V8 caches scripts
// only, not ES modules: hence a CommonJS bundle and node:vm.
//
// The file is V8's cache behind a header of ours (format 1): "QVCC", the format as a u32 LE, and
// the SHA-256 of the bundle's bytes. V8 checks its own version, its flags and the source's
// *length* only (a rebuilt bundle of the same length would run the old bytecode), so the header
// ties the cache to the exact bundle; V8 then checks the rest. A cache that fails either check is
// reported rejected and the bundle compiled as without one; a rejected or missing cache is
// written again at the next clean exit, never in place (a reader never sees a torn file).
import { chmodSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { Script } from 'node:vm';

/** What became of the cache at this start: deserialized, refused by V8's checks, or absent. */
export type CodeCacheStatus = 'used' | 'rejected' | 'missing';

/** The launcher leaves the status here for the server's start-up log line (one process, two bundles). */
const statusKey = Symbol.for('quiverdb.code-cache');

/**
 * A cache larger than this is not read: V8's caches of this bundle are ~2 MB, and a file of any
 * size could otherwise be read whole into memory at every start.
 */
export const codeCacheLimitBytes = 64 * 1024 * 1024;

export interface CachedRun {
  status: CodeCacheStatus;
  /** The bundle's `module.exports`. */
  exports: unknown;
  /** Writes the bytecode compiled so far (this start's functions included) as the cache; false if it could not. */
  writeCache(): boolean;
}

const cacheMagic = Buffer.from('QVCC', 'latin1');
export const codeCacheFormat = 1;
const headerBytes = cacheMagic.length + 4 + 32;

/** The header that ties a cache to the bundle whose SHA-256 is `digest`. */
function cacheHeader(digest: Buffer): Buffer {
  const header = Buffer.alloc(headerBytes);
  cacheMagic.copy(header, 0);
  header.writeUInt32LE(codeCacheFormat, cacheMagic.length);
  digest.copy(header, cacheMagic.length + 4);
  return header;
}

/** The cache file's bytes, or undefined when there is none (or one too large to be this bundle's). */
function readCache(cachePath: string): Buffer | undefined {
  try {
    if (statSync(cachePath).size > codeCacheLimitBytes) return undefined;
    return readFileSync(cachePath);
  } catch {
    return undefined;
  }
}

/** Writes beside the target, then renames over it: a reader sees the old cache or the new one. */
function writeAtomically(path: string, bytes: Buffer): boolean {
  const scratch = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(scratch, bytes);
    // Readable by all, like the bundle it belongs to, whatever the server's private umask: an
    // image built by root runs as another user. It holds the bundle's public code, no data.
    chmodSync(scratch, 0o644);
    renameSync(scratch, path);
    return true;
  } catch {
    // A read-only install (e.g. an image whose files belong to another user): the server runs
    // as it would without a cache.
    rmSync(scratch, { force: true });
    return false;
  }
}

/**
 * Compiles and runs the CommonJS file at `bundlePath` the way Node's own loader would (the same
 * wrapper and arguments), with the code cache at `cachePath` when V8 accepts it.
 */
export function runWithCodeCache(bundlePath: string, cachePath: string): CachedRun {
  const bytes = readFileSync(bundlePath);
  const header = cacheHeader(createHash('sha256').update(bytes).digest());
  const file = readCache(cachePath);
  const matches = file !== undefined && file.length > headerBytes && file.subarray(0, headerBytes).equals(header);
  // Node's CommonJS wrapper, opened on the bundle's first line so its line numbers stay the
  // bundle's own (stack traces and the source map still point at the right lines).
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${bytes.toString('utf8')}\n})`, {
    filename: bundlePath,
    cachedData: matches ? file.subarray(headerBytes) : undefined,
  });
  const status: CodeCacheStatus = file === undefined ? 'missing' : !matches || script.cachedDataRejected === true ? 'rejected' : 'used';
  (globalThis as Record<symbol, unknown>)[statusKey] = status;
  const module = { exports: {} as unknown };
  const wrapper = script.runInThisContext() as (exports: unknown, require: NodeJS.Require, module: { exports: unknown }, filename: string, directory: string) => void;
  wrapper.call(module.exports, module.exports, createRequire(bundlePath), module, bundlePath, dirname(bundlePath));
  return { status, exports: module.exports, writeCache: () => writeAtomically(cachePath, Buffer.concat([header, script.createCachedData()])) };
}

/** This process's code cache status, or undefined when the server runs from its modules (tsx, dist/main.js). */
export function codeCacheStatus(): CodeCacheStatus | undefined {
  return (globalThis as Record<symbol, unknown>)[statusKey] as CodeCacheStatus | undefined;
}
