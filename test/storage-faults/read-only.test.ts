// The data volume turns read-only under a running server, for real (docs/durability.md): an
// ext4 image aborted as after a disk error. Reads keep serving; writes are refused with a clear
// 500 naming the operation; the store stays open. Root, loop devices and mkfs.ext4 needed.
import { describe, expect, it } from 'vitest';
import { call, ext4SkipReason, mountExt4, startReady } from './fault-support.js';

const skipped = ext4SkipReason();
const errorOf = (body: { status?: unknown }) => (body.status as { error: string }).error;

describe.skipIf(skipped !== undefined)('storage faults — read-only file system (ext4)', { timeout: 90_000 }, () => {
  it('read-only — reads keep serving, every write is a 500 saying the storage is read-only, without a path', async () => {
    const volume = await mountExt4('readonly', 64 * 1024 * 1024);
    const server = await startReady(volume.directory, { QUIVER__STORAGE__FREE_SPACE_RESERVE_BYTES: String(1024 * 1024) });
    try {
      await call(server.url, 'PUT', '/collections/c', { vectors: { size: 4, distance: 'Euclid' } });
      const points = Array.from({ length: 20 }, (_, position) => ({ id: position + 1, vector: [position, 1, 2, 3] }));
      expect((await call(server.url, 'PUT', '/collections/c/points?wait=true', { points })).status).toBe(200);
      volume.abort();

      for (let attempt = 0; attempt < 3; attempt += 1) {
        const upsert = await call(server.url, 'PUT', '/collections/c/points?wait=true', { points: [{ id: 100 + attempt, vector: [9, 9, 9, 9] }] });
        expect(upsert.status).toBe(500);
        expect(errorOf(upsert.body)).toBe('Upsert failed: the storage is read-only: writes are refused, reads go on');
      }
      const create = await call(server.url, 'PUT', '/collections/other', { vectors: { size: 4, distance: 'Euclid' } });
      expect(create.status).toBe(500);
      expect(errorOf(create.body)).toMatch(/^Collection operation failed: the storage is read-only/);
      expect(errorOf(create.body)).not.toContain(volume.directory);

      const scroll = await call(server.url, 'POST', '/collections/c/points/scroll', { limit: 100, with_vector: true });
      expect(scroll.status).toBe(200);
      expect((scroll.body.result as { points: unknown[] }).points).toHaveLength(20);
      const search = await call(server.url, 'POST', '/collections/c/points/search', { vector: [5, 1, 2, 3], limit: 1 });
      expect((search.body.result as { id: number }[])[0]!.id).toBe(6);
      expect(((await call(server.url, 'GET', '/')).body.storage as { state: string }).state).toBe('degraded');
    } finally {
      await server.kill('SIGKILL');
      await volume.unmount();
    }
  });
});
