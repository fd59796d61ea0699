import { execFileSync } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { codeCacheFormat, codeCacheLimitBytes, codeCacheStatus, runWithCodeCache, type CodeCacheStatus } from './code-cache.js';

const moduleUrl = new URL('./code-cache.ts', import.meta.url).href;
const projectRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * A small CommonJS bundle in a directory of its own, with a module beside it for `require`. Each
 * source is new (a unique comment): V8 keeps what this process compiled in a cache of its own,
 * and a source compiled before would never reach the code cache under test.
 */
function bundleDirectory(change: (source: string) => string = (source) => source): { bundle: string; cache: string; directory: string } {
  const directory = mkdtempSync(join(tmpdir(), 'quiver-code-cache-'));
  writeFileSync(join(directory, 'beside.cjs'), 'module.exports = 41;\n');
  const bundle = join(directory, 'bundle.cjs');
  writeFileSync(bundle, `// ${randomUUID()}\n${change(source)}`);
  return { bundle, cache: `${bundle}.cache`, directory };
}

// Functions enough that V8's cache of them is worth checking (each compiled at the call below).
const source = [
  "const beside = require('./beside.cjs');",
  ...Array.from({ length: 50 }, (_, index) => `function step${index}(value) { return value + ${index}; }`),
  `module.exports = { answer: beside + 1, file: __filename, directory: __dirname, sum: ${Array.from({ length: 50 }, (_, index) => `step${index}(0)`).join(' + ')}, self: this === exports };`,
].join('\n');

/** Runs the bundle in a new process (an empty V8 of its own), writing the cache after if `write`. */
function runInNewProcess(bundle: string, cache: string, write: boolean): { status: CodeCacheStatus; sum: number; written: boolean } {
  const script = [
    `import { runWithCodeCache } from ${JSON.stringify(moduleUrl)};`,
    `const run = runWithCodeCache(${JSON.stringify(bundle)}, ${JSON.stringify(cache)});`,
    `const written = ${write} ? run.writeCache() : false;`,
    'console.log(JSON.stringify({ status: run.status, sum: run.exports.sum, written }));',
  ].join('\n');
  const output = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: projectRoot, encoding: 'utf8', timeout: 60_000 });
  return JSON.parse(output) as { status: CodeCacheStatus; sum: number; written: boolean };
}

describe('the code cache of the server bundle', () => {
  it('runs a bundle the way Node runs a CommonJS file: require from its directory, __filename, __dirname, this, module.exports', () => {
    const { bundle, cache, directory } = bundleDirectory();
    const run = runWithCodeCache(bundle, cache);
    expect(run.exports).toEqual({ answer: 42, file: bundle, directory, sum: 1225, self: true });
  });

  it('a missing cache: the bundle is compiled without one, and the cache it writes is used by the next process', () => {
    const { bundle, cache } = bundleDirectory();
    expect(runInNewProcess(bundle, cache, true)).toEqual({ status: 'missing', sum: 1225, written: true });
    expect(statSync(cache).size).toBeGreaterThan(40);
    expect(runInNewProcess(bundle, cache, false)).toEqual({ status: 'used', sum: 1225, written: false });

    // This process reports its own status to the server's start-up line.
    const here = bundleDirectory();
    runWithCodeCache(here.bundle, here.cache);
    expect(codeCacheStatus()).toBe('missing');
  }, 60_000);

  it('V8’s own checks still apply behind a header that matches the bundle: garbage is rejected and the bundle runs without it', () => {
    const { bundle, cache } = bundleDirectory();
    // Format 1: "QVCC", the format (u32 LE), the bundle's SHA-256, then V8's bytes.
    const header = Buffer.alloc(40);
    header.write('QVCC', 0, 'latin1');
    header.writeUInt32LE(codeCacheFormat, 4);
    createHash('sha256').update(readFileSync(bundle)).digest().copy(header, 8);
    writeFileSync(cache, Buffer.concat([header, Buffer.alloc(4096, 7)]));
    expect(runInNewProcess(bundle, cache, true)).toEqual({ status: 'rejected', sum: 1225, written: true });
    expect(runInNewProcess(bundle, cache, false).status).toBe('used');
  }, 60_000);

  it('a cache of another build of the bundle is rejected, even at the same length (V8 itself checks only the length)', () => {
    const { bundle, cache } = bundleDirectory();
    const other = bundleDirectory((text) => text.replace('beside + 1', 'beside + 2'));
    expect(readFileSync(other.bundle).length).toBe(readFileSync(bundle).length);
    expect(runWithCodeCache(other.bundle, other.cache).writeCache()).toBe(true);
    writeFileSync(cache, readFileSync(other.cache));

    const stale = runWithCodeCache(bundle, cache);
    expect(stale.status).toBe('rejected');
    expect((stale.exports as { answer: number }).answer).toBe(42);

    writeFileSync(cache, Buffer.alloc(4096, 7));
    expect(runWithCodeCache(bundle, cache).status).toBe('rejected');
  });

  it('a cache file over the size limit is not read (a start never reads an unbounded file whole)', () => {
    const { bundle, cache } = bundleDirectory();
    writeFileSync(cache, '');
    truncateSync(cache, codeCacheLimitBytes + 1);
    expect(runWithCodeCache(bundle, cache).status).toBe('missing');
  });

  it('the cache is written readable by all (an image built by root runs as another user), and a failed write leaves nothing behind', () => {
    const { bundle, cache, directory } = bundleDirectory();
    const previous = process.umask(0o077);
    try {
      expect(runWithCodeCache(bundle, cache).writeCache()).toBe(true);
    } finally {
      process.umask(previous);
    }
    expect(statSync(cache).mode & 0o777).toBe(0o644);

    const nowhere = join(directory, 'no-such-directory', 'bundle.cjs.cache');
    expect(runWithCodeCache(bundle, nowhere).writeCache()).toBe(false);
    expect(existsSync(nowhere)).toBe(false);
    expect(readdirSync(directory).sort()).toEqual(['beside.cjs', 'bundle.cjs', 'bundle.cjs.cache']);
  });
});
