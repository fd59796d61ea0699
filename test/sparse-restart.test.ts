// Durability of sparse vectors (docs/architecture.md §4, §5): the stored sparse vectors are in
// the point's one store batch and the sparse index is derived state — loaded from its
// checkpoint (sparse-<hex name>.qsi) plus the logged operations after it, or rebuilt from the
// store. A clean restart, a restart without the checkpoint, a replay after a checkpoint and a
// SIGKILLed child server lose no acknowledged sparse write.
import { cp, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startChildServer, waitUntilReady, type ChildServer } from './support/child-server.js';
import { dataDirectoriesForFile, startServer, type TestServer } from './support/server.js';
import { call } from './support/http-call.js';

const newDirectory = dataDirectoriesForFile();
const query = { indices: [1, 2, 3], values: [1, 0.5, 2] };

function sparseOf(id: number) {
  return { indices: [id % 5, 10 + (id % 7)], values: [1 + (id % 3), 0.5] };
}

async function populate(server: TestServer): Promise<void> {
  await server.request('PUT', '/collections/kept', {
    vectors: { dense: { size: 2, distance: 'Dot' } },
    sparse_vectors: { text: {}, weighted: { modifier: 'idf' } },
  });
  await server.client.upsert('kept', {
    wait: true,
    points: Array.from({ length: 60 }, (_, id) => ({ id, vector: { dense: [id, 1], text: sparseOf(id), weighted: sparseOf(id + 1) }, payload: { id } })),
  });
}

/** Later writes of every kind: deletes, sparse-only points, a vector update, a whole-point upsert dropping a sparse vector. */
async function writeMore(server: TestServer): Promise<void> {
  await server.client.delete('kept', { wait: true, points: [0, 1, 2, 3] });
  await server.client.upsert('kept', { wait: true, points: [{ id: 100, vector: { text: { indices: [2, 3], values: [4, 4] } } }, { id: 5, vector: { dense: [5, 5] } }] });
  await server.request('PUT', '/collections/kept/points/vectors?wait=true', { points: [{ id: 6, vector: { weighted: { indices: [1, 3], values: [9, 9] } } }] });
}

async function observe(server: TestServer): Promise<unknown> {
  const collection = server.app.collections.get('kept');
  const ids = [...collection.livePoints()].map((entry) => entry.id as number).sort((left, right) => left - right);
  return {
    count: (await server.client.getCollection('kept')).points_count,
    records: await server.client.retrieve('kept', { ids, with_vector: true, with_payload: true }),
    text: (await server.client.query('kept', { query, using: 'text', limit: 20 })).points,
    weighted: (await server.client.query('kept', { query, using: 'weighted', limit: 20 })).points,
    exact: (await server.client.query('kept', { query, using: 'text', limit: 20, params: { exact: true } })).points,
  };
}

describe('sparse vectors — restart', () => {
  it('restart — a clean restart loads the sparse checkpoints and answers as before; without them the index is rebuilt from the store', async () => {
    const directory = await newDirectory();
    let server = await startServer(directory);
    let before: unknown;
    let collectionDirectory: string;
    try {
      await populate(server);
      await writeMore(server);
      before = await observe(server);
      collectionDirectory = server.app.collections.get('kept').directory;
    } finally {
      await server.close();
    }
    const files = await readdir(collectionDirectory);
    const sparseFiles = files.filter((file) => file.startsWith('sparse-'));
    expect(sparseFiles.sort()).toEqual([`sparse-${Buffer.from('text').toString('hex')}.qsi`, `sparse-${Buffer.from('weighted').toString('hex')}.qsi`]);

    server = await startServer(directory);
    try {
      expect(await observe(server)).toEqual(before);
    } finally {
      await server.close();
    }
    for (const file of sparseFiles) await rm(join(collectionDirectory, file));
    server = await startServer(directory);
    try {
      expect(await observe(server)).toEqual(before);
    } finally {
      await server.close();
    }
  });

  it('replay — sparse writes after the checkpoint are re-applied from the log at start', async () => {
    const directory = await newDirectory();
    const copy = await newDirectory();
    const server = await startServer(directory, { storage: { checkpoint_operations: 1_000_000 } });
    let expected: unknown;
    let checkpointed: number;
    try {
      await populate(server);
      const collection = server.app.collections.get('kept');
      expect(await collection.checkpoint('test')).toBe(true);
      checkpointed = collection.checkpointedOperationId;
      await writeMore(server);
      expected = await observe(server);
      // What a crash leaves behind: the directory as it is, no shutdown checkpoint.
      await cp(directory, copy, { recursive: true });
    } finally {
      await server.close();
    }
    const restarted = await startServer(copy);
    try {
      expect(restarted.app.collections.get('kept').checkpointedOperationId).toBe(checkpointed);
      expect(await observe(restarted)).toEqual(expected);
    } finally {
      await restarted.close();
    }
  });
});

let child: ChildServer | undefined;
afterAll(async () => {
  await child?.kill('SIGKILL');
});


describe('sparse vectors — crash', () => {
  it('crash — a SIGKILLed server loses no acknowledged sparse write; the sparse index finds every one after restart', async () => {
    const directory = await newDirectory();
    const environment = { QUIVER__STORAGE__CHECKPOINT_OPERATIONS: '4', QUIVER__STORAGE__FSYNC: 'true' };
    const acknowledged: number[] = [];
    let nextId = 1;
    for (const [round, batches] of [3, 7, 5].entries()) {
      child = await startChildServer(directory, environment);
      await waitUntilReady(child.url);
      if (round === 0) expect((await call(child.url, 'PUT', '/collections/crashy', { sparse_vectors: { text: {} } })).status).toBe(200);
      for (let batch = 0; batch < batches; batch += 1) {
        const ids = Array.from({ length: 20 }, () => nextId++);
        const wait = batch % 3 !== 2;
        const response = await call(child.url, 'PUT', `/collections/crashy/points?wait=${wait}`, {
          points: ids.map((id) => ({ id, vector: { text: { indices: [id], values: [1] } }, payload: { id } })),
        });
        expect(response.status).toBe(200);
        acknowledged.push(...ids);
      }
      const inFlightIds = Array.from({ length: 20 }, () => nextId++);
      void call(child.url, 'PUT', '/collections/crashy/points?wait=true', { points: inFlightIds.map((id) => ({ id, vector: { text: { indices: [id], values: [1] } } })) }).catch(() => undefined);
      await child.kill('SIGKILL');
    }
    child = await startChildServer(directory, environment);
    await waitUntilReady(child.url);
    const records = await call(child.url, 'POST', '/collections/crashy/points', { ids: acknowledged, with_vector: true });
    expect(records.body.result.length).toBe(acknowledged.length);
    for (const record of records.body.result) expect(record.vector).toEqual({ text: { indices: [record.id], values: [1] } });
    // Every acknowledged point is found by the sparse index itself (recovered, not only stored).
    for (const id of [acknowledged[0]!, acknowledged[acknowledged.length - 1]!, ...acknowledged.filter((_, position) => position % 37 === 0)]) {
      const found = await call(child.url, 'POST', '/collections/crashy/points/query', { query: { indices: [id], values: [2] }, using: 'text' });
      expect(found.body.result.points.map((point: { id: number }) => point.id)).toEqual([id]);
    }
    await child.kill('SIGTERM');
    child = undefined;
  }, 120_000);
});
