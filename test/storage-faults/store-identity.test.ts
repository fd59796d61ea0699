// A store that is not the one the directory's other files belong to (docs/durability.md): a
// missing LevelDB CURRENT file refuses the start; a checkpoint of another collection or another
// database is never loaded, whatever its file name. Real child servers, real files.
import { copyFile, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { call, logRecords, runToExit, scratchDirectories, startReady } from './fault-support.js';

const directory = scratchDirectories();

/** 12 points whose vector names their id: [id, id + 0.5]; `reversed`: id k holds 13 - k's. */
function points(reversed = false): { id: number; vector: number[] }[] {
  return Array.from({ length: 12 }, (_, position) => {
    const value = reversed ? 12 - position : position + 1;
    return { id: position + 1, vector: [value, value + 0.5] };
  });
}

async function vectorsOf(url: string, collection: string): Promise<Map<number, number[]>> {
  const answer = await call(url, 'POST', `/collections/${collection}/points/scroll`, { limit: 100, with_vector: true });
  expect(answer.status).toBe(200);
  const found = (answer.body.result as { points: { id: number; vector: number[] }[] }).points;
  return new Map(found.map((point) => [point.id, point.vector]));
}

describe('storage faults — the store and its directory', { timeout: 90_000 }, () => {
  it('missing CURRENT — the start is refused with the problem and the recovery steps, and nothing is changed', async () => {
    const data = await directory('current');
    const server = await startReady(data);
    expect((await call(server.url, 'PUT', '/collections/kept', { vectors: { size: 2, distance: 'Euclid' } })).status).toBe(200);
    expect((await call(server.url, 'PUT', '/collections/kept/points?wait=true', { points: points() })).status).toBe(200);
    await server.kill('SIGTERM');
    await rm(join(data, 'db', 'CURRENT'));
    const before = (await readdir(join(data, 'db'))).sort();

    const refused = await runToExit(data);
    expect(refused.code).not.toBe(0);
    expect(refused.output).toContain('has no CURRENT file');
    expect(refused.output).toContain('Restore the data directory from a backup');
    // No new store was created over the old files.
    expect((await readdir(join(data, 'db'))).filter((file) => file !== 'LOG' && file !== 'LOG.old' && file !== 'LOCK').sort()).toEqual(
      before.filter((file) => file !== 'LOG' && file !== 'LOG.old' && file !== 'LOCK'),
    );
  });

  it('missing store — collection directories without their store refuse the start', async () => {
    const data = await directory('nostore');
    const server = await startReady(data);
    expect((await call(server.url, 'PUT', '/collections/kept', { vectors: { size: 2, distance: 'Euclid' } })).status).toBe(200);
    await server.kill('SIGTERM');
    await rm(join(data, 'db'), { recursive: true });
    const refused = await runToExit(data);
    expect(refused.code).not.toBe(0);
    expect(refused.output).toContain('collection directories but the store');
  });

  it('foreign checkpoint — an earlier collection of the same number or another database is rebuilt from the store, never served', async () => {
    const data = await directory('foreign');
    const saved = await directory('foreign-saved');
    // An old collection with a checkpoint (saved at shutdown), kept aside.
    let server = await startReady(data);
    await call(server.url, 'PUT', '/collections/old', { vectors: { size: 2, distance: 'Euclid' } });
    await call(server.url, 'PUT', '/collections/old/points?wait=true', { points: points(true) });
    await server.kill('SIGTERM');
    const oldDirectory = join(data, 'collections', '1');
    const checkpointFile = (await readdir(oldDirectory)).find((file) => file.startsWith('vector-'))!;
    expect(checkpointFile).toBeDefined();
    await copyFile(join(oldDirectory, checkpointFile), join(saved, checkpointFile));

    // The old collection goes; a new one of the same shape gets its points, then the old
    // checkpoint is planted where the new collection's own would be, and the server is killed.
    server = await startReady(data);
    expect((await call(server.url, 'DELETE', '/collections/old')).status).toBe(200);
    await call(server.url, 'PUT', '/collections/fresh', { vectors: { size: 2, distance: 'Euclid' } });
    await call(server.url, 'PUT', '/collections/fresh/points?wait=true', { points: points() });
    const freshNumber = (await readdir(join(data, 'collections')))[0]!;
    await copyFile(join(saved, checkpointFile), join(data, 'collections', freshNumber, checkpointFile));
    await server.kill('SIGKILL');

    server = await startReady(data);
    try {
      const vectors = await vectorsOf(server.url, 'fresh');
      for (const point of points()) expect(vectors.get(point.id)).toEqual(point.vector);
      const search = await call(server.url, 'POST', '/collections/fresh/points/search', { vector: [1, 1.5], limit: 1 });
      expect((search.body.result as { id: number }[])[0]!.id).toBe(1);
      const rebuilt = logRecords(server.logLines).find((record) => String(record.msg).startsWith('no usable checkpoint'));
      expect(rebuilt?.reason).toBe('checkpoint belongs to an earlier collection that had the same internal number');
    } finally {
      await server.kill('SIGTERM');
    }

    // Another database: a whole new data directory whose collection 1 gets the planted file.
    const other = await directory('foreign-other');
    server = await startReady(other);
    await call(server.url, 'PUT', '/collections/fresh', { vectors: { size: 2, distance: 'Euclid' } });
    await call(server.url, 'PUT', '/collections/fresh/points?wait=true', { points: points() });
    await copyFile(join(saved, checkpointFile), join(other, 'collections', '1', checkpointFile));
    await server.kill('SIGKILL');
    server = await startReady(other);
    try {
      const vectors = await vectorsOf(server.url, 'fresh');
      for (const point of points()) expect(vectors.get(point.id)).toEqual(point.vector);
      const rebuilt = logRecords(server.logLines).find((record) => String(record.msg).startsWith('no usable checkpoint'));
      expect(rebuilt?.reason).toBe('checkpoint belongs to another database (the store was replaced)');
    } finally {
      await server.kill('SIGTERM');
    }
  });
});
