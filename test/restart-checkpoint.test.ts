// Checkpoints and the background graph build: a checkpoint taken while the graph was still
// being built must not be what the next start loads once the build has finished.
import { describe, expect, it } from 'vitest';
import { dataDirectoriesForFile, startServer } from './support/server.js';

const newDirectory = dataDirectoriesForFile();

describe('checkpoints', () => {
  it('checkpoint — after a mid-build checkpoint, shutdown saves the finished graph and the next start is green', async () => {
    const directory = await newDirectory();
    const server = await startServer(directory, { storage: { checkpoint_operations: 1_000_000 } });
    try {
      await server.request('PUT', '/collections/graph', { vectors: { size: 16, distance: 'Euclid' }, hnsw_config: { full_scan_threshold: 10 } });
      let seed = 7;
      const next = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648) * 2 - 1;
      for (let batch = 0; batch < 4; batch += 1) {
        const points = Array.from({ length: 1000 }, (_, position) => ({ id: batch * 1000 + position, vector: Array.from({ length: 16 }, next) }));
        await server.client.upsert('graph', { wait: true, points });
      }
      const collection = server.app.collections.get('graph');
      // Possibly mid-build: whatever the graph holds now is saved, tagged with the last operation.
      expect(await collection.checkpoint('test')).toBe(true);
      await collection.waitIndexed();
      expect(collection.info().status).toBe('green');
    } finally {
      await server.close();
    }
    const restarted = await startServer(directory);
    try {
      const collection = restarted.app.collections.get('graph');
      expect(collection.checkpointedOperationId).toBe(collection.lastOperationId);
      const index = collection.vectorIndex('');
      expect(index.stats().indexedCount).toBe(4000);
      expect(collection.info().status).toBe('green');
    } finally {
      await restarted.close();
    }
  });

  it('checkpoint — nothing new since the last one: no file is rewritten', async () => {
    const directory = await newDirectory();
    const server = await startServer(directory);
    try {
      await server.client.createCollection('quiet', { vectors: { size: 2, distance: 'Dot' } });
      await server.client.upsert('quiet', { wait: true, points: [{ id: 1, vector: [1, 2] }] });
      const collection = server.app.collections.get('quiet');
      await collection.waitIndexed();
      expect(await collection.checkpoint('first')).toBe(true);
      expect(await collection.checkpoint('second')).toBe(false);
    } finally {
      await server.close();
    }
  });
});
