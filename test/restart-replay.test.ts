// Replay: a checkpoint, more writes, then the process stops without a shutdown checkpoint (the
// data directory is copied while the server runs, which is what a crash leaves behind). The
// next start loads the checkpoint and re-applies only the logged operations after it.
import { cp } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { dataDirectoriesForFile, startServer } from './support/server.js';

const newDirectory = dataDirectoriesForFile();

describe('restart after a crash', () => {
  it('replay — operations after the checkpoint are re-applied: upserts, deletes, slot reuse, vector updates', async () => {
    const directory = await newDirectory();
    const copy = await newDirectory();
    const server = await startServer(directory, { storage: { checkpoint_operations: 1_000_000 } });
    let expected: unknown;
    let expectedNearest: unknown;
    let checkpointed: number;
    try {
      await server.client.createCollection('replayed', { vectors: { size: 2, distance: 'Euclid' } });
      await server.client.upsert('replayed', { wait: true, points: Array.from({ length: 20 }, (_, id) => ({ id, vector: [id, id], payload: { id } })) });
      const collection = server.app.collections.get('replayed');
      expect(await collection.checkpoint('test')).toBe(true);
      checkpointed = collection.checkpointedOperationId;
      // After the checkpoint: deletes (slots freed), new points (slots reused), replacements.
      await server.client.delete('replayed', { wait: true, points: [0, 1, 2] });
      await server.client.upsert('replayed', { wait: true, points: [{ id: 100, vector: [0, 0.5] }, { id: 101, vector: [1, 0.5] }, { id: 5, vector: [50, 50], payload: { moved: true } }] });
      await server.client.updateVectors('replayed', { wait: true, points: [{ id: 6, vector: [-6, -6] }] });
      expect(collection.lastOperationId).toBeGreaterThan(checkpointed);
      expected = await server.client.retrieve('replayed', { ids: [...collection.livePoints()].map((entry) => entry.id as number), with_vector: true });
      expectedNearest = (await collection.nearest('', new Float32Array([0, 0]), 25)).points.map((point) => point.id);
      await cp(directory, copy, { recursive: true });
    } finally {
      await server.close();
    }
    const restarted = await startServer(copy);
    try {
      const collection = restarted.app.collections.get('replayed');
      expect(collection.checkpointedOperationId).toBe(checkpointed);
      const ids = [...collection.livePoints()].map((entry) => entry.id as number);
      expect(await restarted.client.retrieve('replayed', { ids, with_vector: true })).toEqual(expected);
      expect((await collection.nearest('', new Float32Array([0, 0]), 25)).points.map((point) => point.id)).toEqual(expectedNearest);
      expect((await collection.nearest('', new Float32Array([0, 0]), 25, { exact: true })).points.map((point) => point.id)).toEqual(expectedNearest);
    } finally {
      await restarted.close();
    }
  });
});
