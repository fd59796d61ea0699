// storage.huge_pages (docs/architecture.md §24): the kernel's large row segments ask Linux for
// transparent huge pages, so a collection whose vectors fill a 4 MiB segment is backed by them
// where the system hands them out on request; with the setting off, by none.
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startChildServer, waitUntilReady } from './support/child-server.js';
import { call } from './support/http-call.js';

const modeFile = '/sys/kernel/mm/transparent_hugepage/enabled';
/** The system's mode, e.g. "madvise" (the bracketed word), or undefined where there is none. */
const mode = existsSync(modeFile) ? /\[(\w+)\]/.exec(readFileSync(modeFile, 'utf8'))?.[1] : undefined;
// 1,024-d float32 rows are 4 KiB: the first segment of 1,024 rows is 4 MiB, large enough.
const dimension = 1024;
const count = 1100;

function anonymousHugeKilobytes(pid: number): number {
  const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  return Number(/AnonHugePages:\s+(\d+) kB/.exec(rollup)?.[1] ?? 0);
}

async function hugeKilobytesWith(setting: 'true' | 'false'): Promise<number> {
  const directory = await mkdtemp(join(tmpdir(), 'quiver-huge-pages-'));
  const child = await startChildServer(directory, { QUIVER__STORAGE__HUGE_PAGES: setting });
  try {
    await waitUntilReady(child.url);
    expect((await call(child.url, 'PUT', '/collections/large', { vectors: { size: dimension, distance: 'Euclid' } })).status).toBe(200);
    let state = 7;
    const value = () => ((state = (state * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648) * 2 - 1;
    for (let start = 0; start < count; start += 100) {
      const points = Array.from({ length: Math.min(100, count - start) }, (_, offset) => ({ id: start + offset, vector: Array.from({ length: dimension }, value) }));
      expect((await call(child.url, 'PUT', '/collections/large/points?wait=true', { points })).status).toBe(200);
    }
    return anonymousHugeKilobytes(child.process.pid!);
  } finally {
    await child.kill('SIGTERM');
    await rm(directory, { recursive: true, force: true });
  }
}

describe('huge pages', () => {
  it.skipIf(mode !== 'madvise' && mode !== 'always')('a collection filling a 4 MiB row segment is backed by huge pages by default', async () => {
    expect(await hugeKilobytesWith('true')).toBeGreaterThanOrEqual(2048);
  }, 120_000);

  // Only where huge pages come on request: with "always" the system hands them out whatever
  // the server asks.
  it.skipIf(mode !== 'madvise')('with storage.huge_pages false the server asks for none', async () => {
    expect(await hugeKilobytesWith('false')).toBe(0);
  }, 120_000);
});
