// A full disk, for real: a small tmpfs (docs/durability.md). Writes are refused early below the
// free-space reserve with the spec's 500 naming the operation; with the reserve off, LevelDB's
// own I/O error is answered without a path, and once space is freed the server heals without a
// restart, keeping every acknowledged write. Root and mount needed (fault-support.ts).
import { open, rm, statfs, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { call, mountTmpfs, skipReason, startReady } from './fault-support.js';

const skipped = skipReason();
const mebibyte = 1024 * 1024;

async function freeBytes(directory: string): Promise<number> {
  const stats = await statfs(directory);
  return stats.bavail * stats.bsize;
}

/** Fills the file system until at most `leave` bytes are free (0: until ENOSPC). */
async function fill(directory: string, leave: number): Promise<string> {
  const path = join(directory, 'filler');
  const handle = await open(path, 'w');
  const chunk = Buffer.alloc(64 * 1024, 1);
  try {
    for (;;) {
      const free = await freeBytes(directory);
      if (free <= leave) break;
      const size = Math.min(chunk.length, free - leave);
      try {
        await handle.write(chunk, 0, Math.max(size, 1));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOSPC') break;
        throw error;
      }
    }
  } finally {
    await handle.close();
  }
  return path;
}

function points(from: number, count: number, dimension: number): { id: number; vector: number[] }[] {
  return Array.from({ length: count }, (_, position) => ({
    id: from + position,
    // Incompressible values: the store's tables are as big as the vectors.
    vector: Array.from({ length: dimension }, (_, axis) => Math.sin((from + position) * 7919 + axis * 104_729)),
  }));
}

const errorOf = (body: { status?: unknown }) => (body.status as { error: string }).error;

describe.skipIf(skipped !== undefined)('storage faults — disk full (tmpfs)', { timeout: 90_000 }, () => {
  it('disk full — below the reserve, upserts and collection creation are refused early with a 500 naming the operation; reads serve; freeing space resumes writes', async () => {
    const volume = await mountTmpfs('reserve', 24 * mebibyte);
    const server = await startReady(volume.directory, { QUIVER__STORAGE__FREE_SPACE_RESERVE_BYTES: String(4 * mebibyte) });
    try {
      expect((await call(server.url, 'PUT', '/collections/c', { vectors: { size: 8, distance: 'Euclid' } })).status).toBe(200);
      expect((await call(server.url, 'PUT', '/collections/c/points?wait=true', { points: points(1, 50, 8) })).status).toBe(200);
      const filler = await fill(volume.directory, 2 * mebibyte);
      await new Promise((resolve) => setTimeout(resolve, 1100)); // past the free-space cache

      const upsert = await call(server.url, 'PUT', '/collections/c/points?wait=true', { points: points(100, 5, 8) });
      expect(upsert.status).toBe(500);
      expect(errorOf(upsert.body)).toMatch(/^Upsert failed: insufficient storage: \d+ bytes free on the data volume, below the reserve of 4194304 bytes/);
      expect(errorOf(upsert.body)).not.toContain(volume.directory);
      const create = await call(server.url, 'PUT', '/collections/other', { vectors: { size: 8, distance: 'Euclid' } });
      expect(create.status).toBe(500);
      expect(errorOf(create.body)).toMatch(/^Collection operation failed: insufficient storage/);
      const health = await call(server.url, 'GET', '/');
      expect(health.body.storage).toMatchObject({ state: 'degraded', free_space_reserve_bytes: 4 * mebibyte });
      expect((health.body.storage as { writes_refused_low_space: number }).writes_refused_low_space).toBeGreaterThanOrEqual(2);
      const scroll = await call(server.url, 'POST', '/collections/c/points/scroll', { limit: 100 });
      expect(scroll.status).toBe(200);
      expect((scroll.body.result as { points: unknown[] }).points).toHaveLength(50);

      await rm(filler);
      expect((await call(server.url, 'PUT', '/collections/c/points?wait=true', { points: points(100, 5, 8) })).status).toBe(200);
      expect((await call(server.url, 'PUT', '/collections/other', { vectors: { size: 8, distance: 'Euclid' } })).status).toBe(200);
      expect(((await call(server.url, 'GET', '/')).body.storage as { state: string }).state).toBe('ok');
    } finally {
      await server.kill('SIGKILL');
      await volume.unmount();
    }
  });

  it('disk full — with the reserve off, the store I/O error is a 500 without a path; once space is freed writes heal without a restart and nothing acknowledged is lost', async () => {
    const volume = await mountTmpfs('sticky', 32 * mebibyte);
    let server = await startReady(volume.directory, { QUIVER__STORAGE__FREE_SPACE_RESERVE_BYTES: '0' });
    const acknowledged = new Set<number>();
    try {
      await call(server.url, 'PUT', '/collections/c', { vectors: { size: 256, distance: 'Euclid' } });
      for (let batch = 0; batch < 5; batch += 1) {
        const written = points(batch * 100, 100, 256);
        expect((await call(server.url, 'PUT', '/collections/c/points?wait=true', { points: written })).status).toBe(200);
        for (const point of written) acknowledged.add(point.id);
      }
      // Room for the log but not for the table a memtable flush writes: the flush fails in the
      // background and LevelDB's error is sticky — every later write fails, even with space back.
      const filler = await fill(volume.directory, 6 * mebibyte);
      let failures = 0;
      for (let batch = 5; batch < 200 && failures < 3; batch += 1) {
        const written = points(batch * 100, 100, 256);
        const answer = await call(server.url, 'PUT', '/collections/c/points?wait=true', { points: written });
        if (answer.status === 200) {
          for (const point of written) acknowledged.add(point.id);
          continue;
        }
        // Every answer is either an acknowledged write or a clean 500 without a path.
        failures += 1;
        expect(answer.status).toBe(500);
        expect(errorOf(answer.body)).toMatch(/^Upsert failed: /);
        expect(errorOf(answer.body)).not.toContain(volume.directory);
        expect(errorOf(answer.body)).not.toMatch(/\/[^ ]+\.(log|ldb)/);
      }
      expect(failures).toBeGreaterThan(0);
      const degraded = (await call(server.url, 'GET', '/')).body.storage as { write_io_errors: number; last_error: string };
      expect(degraded.write_io_errors).toBeGreaterThan(0);
      // GET / is public: the cause by class, never the path.
      expect(degraded.last_error).toMatch(/^insufficient storage/);
      expect(degraded.last_error).not.toContain(volume.directory);
      expect((await call(server.url, 'POST', '/collections/c/points/count', { exact: true })).status).toBe(200);

      await rm(filler);
      // Healed without a restart: the store is reopened before the next write.
      const healed = points(50_000, 100, 256);
      const answer = await call(server.url, 'PUT', '/collections/c/points?wait=true', { points: healed });
      expect(answer.status).toBe(200);
      for (const point of healed) acknowledged.add(point.id);
      expect((await call(server.url, 'PUT', '/collections/d', { vectors: { size: 4, distance: 'Dot' } })).status).toBe(200);
      const storage = (await call(server.url, 'GET', '/')).body.storage as { reopens: number; state: string };
      expect(storage.reopens).toBeGreaterThanOrEqual(1);
      expect(storage.state).toBe('ok');
      await writeFile(join(volume.directory, 'marker'), 'x');
      await rm(join(volume.directory, 'marker'));

      // A crash now: every acknowledged point is there after the restart.
      await server.kill('SIGKILL');
      server = await startReady(volume.directory, { QUIVER__STORAGE__FREE_SPACE_RESERVE_BYTES: '0' });
      const scroll = await call(server.url, 'POST', '/collections/c/points/scroll', { limit: 30_000 });
      const ids = new Set((scroll.body.result as { points: { id: number }[] }).points.map((point) => point.id));
      for (const id of acknowledged) expect(ids.has(id)).toBe(true);
    } finally {
      await server.kill('SIGKILL');
      await volume.unmount();
    }
  });
});
