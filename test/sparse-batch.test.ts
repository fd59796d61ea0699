// Sparse vectors through the staged-write path (docs/api.md §3.6, §4.7, §10): POST points/batch,
// update_filter, delete_vectors and the named-vector routes keep sparse vectors exactly as the
// direct writes do. Every check reads the points back (with_vector) and runs sparse queries,
// both compared with a model of the collection kept here and the slow scorer of
// test/support/sparse-reference.ts; the last tests restart the server over the same data.
import { cp } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { referenceSearch, type PlainSparse } from './support/sparse-reference.js';
import { dataDirectoriesForFile, serverForFile, startServer, type TestServer } from './support/server.js';

const sparseNames = ['text', 'title'] as const;

/** What the test expects one point to hold. */
interface ModelPoint {
  dense?: number[];
  text?: PlainSparse;
  title?: PlainSparse;
  payload: Record<string, unknown>;
}

type Model = Map<number, ModelPoint>;

const queries: PlainSparse[] = [
  { indices: [1, 2, 3], values: [1, 0.5, 2] },
  { indices: [4, 7, 9], values: [2, 1, 1] },
  { indices: [0, 5, 8, 11], values: [1, 1, 3, 0.5] },
];

function sparseOf(id: number, shift = 0): PlainSparse {
  return { indices: [(id + shift) % 6, 6 + ((id * 3 + shift) % 6)], values: [1 + ((id + shift) % 4), 0.25 * (1 + (id % 3))] };
}

/** The wire vector object of a model point (named dense + sparse names), as records show it. */
function wireVector(point: ModelPoint): Record<string, unknown> {
  const vector: Record<string, unknown> = {};
  if (point.dense) vector.dense = point.dense;
  for (const name of sparseNames) {
    const sparse = point[name];
    if (!sparse) continue;
    const order = sparse.indices.map((_, position) => position).sort((left, right) => sparse.indices[left]! - sparse.indices[right]!);
    vector[name] = { indices: order.map((position) => sparse.indices[position]), values: order.map((position) => sparse.values[position]) };
  }
  return vector;
}

async function createCollection(server: TestServer, name: string): Promise<Model> {
  const created = await server.request('PUT', `/collections/${name}`, { vectors: { dense: { size: 2, distance: 'Dot' } }, sparse_vectors: { text: {}, title: {} } });
  expect(created.status).toBe(200);
  const model: Model = new Map();
  for (let id = 1; id <= 8; id += 1) model.set(id, { dense: [id, 1], text: sparseOf(id), title: sparseOf(id, 3), payload: { group: id % 2 } });
  const written = await server.request('PUT', `/collections/${name}/points?wait=true`, {
    points: [...model].map(([id, point]) => ({ id, vector: wireVector(point), payload: point.payload })),
  });
  expect(written.status).toBe(200);
  return model;
}

/** Records (with_vector) and sparse rankings of every name, checked against the model. */
async function expectMatchesModel(server: TestServer, collection: string, model: Model): Promise<void> {
  const ids = [...model.keys()].sort((left, right) => left - right);
  const retrieved = await server.request('POST', `/collections/${collection}/points`, { ids: [...ids, 999], with_vector: true, with_payload: true });
  expect(retrieved.status).toBe(200);
  const records = [...retrieved.body.result].sort((left: { id: number }, right: { id: number }) => left.id - right.id);
  expect(records.map((record: { id: number; vector: unknown; payload: unknown }) => ({ id: record.id, vector: record.vector, payload: record.payload }))).toEqual(
    ids.map((id) => ({ id, vector: wireVector(model.get(id)!), payload: model.get(id)!.payload })),
  );
  // The official client reads the same records.
  const viaClient = await server.client.retrieve(collection, { ids, with_vector: true });
  expect(Object.fromEntries(viaClient.map((record) => [record.id, record.vector]))).toEqual(Object.fromEntries(ids.map((id) => [id, wireVector(model.get(id)!)])));
  for (const name of sparseNames) {
    const points = [...model].map(([id, point]) => ({ id, sparse: point[name] }));
    for (const query of queries) {
      const expected = referenceSearch(points, query, { limit: 20 });
      const found = await server.client.query(collection, { query, using: name, limit: 20 });
      expect(found.points.map((point) => point.id), `${name} ${JSON.stringify(query)}`).toEqual(expected.map((point) => point.id));
      found.points.forEach((point, position) => expect(point.score).toBeCloseTo(expected[position]!.score, 4));
    }
  }
}

/** The batch the matrix applies, and what it does to the model. */
function matrixOperations(): unknown[] {
  return [
    // Whole-point upserts: a new point with both names, a new sparse-only point, and point 1
    // replaced by a dense vector only, which removes its two sparse vectors.
    { upsert: { points: [{ id: 20, vector: { dense: [2, 2], text: sparseOf(20), title: sparseOf(20, 1) }, payload: { group: 0 } }, { id: 21, vector: { text: sparseOf(21) } }, { id: 1, vector: { dense: [9, 9] } }] } },
    // Only the named vectors change, including on a point the same batch created.
    { update_vectors: { points: [{ id: 2, vector: { text: { indices: [1, 2, 3], values: [5, 5, 5] } } }, { id: 21, vector: { title: { indices: [4, 7], values: [3, 3] } } }] } },
    { delete_vectors: { points: [3], vector: ['text'] } },
    { delete_vectors: { filter: { must: [{ key: 'group', match: { value: 0 } }, { has_id: [4, 6, 20] }] }, vector: ['title', 'dense'] } },
    // A later payload operation keeps every vector staged before it.
    { set_payload: { points: [2, 20, 21], payload: { tagged: true } } },
  ];
}

function applyMatrixToModel(model: Model): void {
  model.set(20, { dense: [2, 2], text: sparseOf(20), title: sparseOf(20, 1), payload: { group: 0 } });
  model.set(21, { text: sparseOf(21), payload: {} });
  model.set(1, { dense: [9, 9], payload: {} });
  model.get(2)!.text = { indices: [1, 2, 3], values: [5, 5, 5] };
  model.get(21)!.title = { indices: [4, 7], values: [3, 3] };
  delete model.get(3)!.text;
  for (const id of [4, 6, 20]) {
    delete model.get(id)!.title;
    delete model.get(id)!.dense;
  }
  for (const id of [2, 20, 21]) model.get(id)!.payload = { ...model.get(id)!.payload, tagged: true };
}

const server = serverForFile();

describe('sparse vectors — points/batch', () => {
  it('sparse batch — upsert, update_vectors, delete_vectors and a later set_payload keep sparse vectors as the direct writes do', async () => {
    const model = await createCollection(server, 'matrix');
    const response = await server.request('POST', '/collections/matrix/points/batch?wait=true', { operations: matrixOperations() });
    expect(response.status).toBe(200);
    applyMatrixToModel(model);
    await expectMatchesModel(server, 'matrix', model);
  });

  it('sparse batch — the official client batchUpdate, acknowledged without wait, is visible to the next read', async () => {
    const model = await createCollection(server, 'client_batch');
    await server.client.batchUpdate('client_batch', { wait: false, operations: matrixOperations() as never });
    applyMatrixToModel(model);
    await expectMatchesModel(server, 'client_batch', model);
    // A batch that deletes a point and re-creates it with other sparse vectors.
    await server.client.batchUpdate('client_batch', {
      wait: true,
      operations: [{ delete: { points: [5, 7] } }, { upsert: { points: [{ id: 5, vector: { title: { indices: [1], values: [7] } } }] } }],
    });
    model.delete(7);
    model.set(5, { title: { indices: [1], values: [7] }, payload: {} });
    await expectMatchesModel(server, 'client_batch', model);
  });

  it('sparse batch — a malformed sparse vector refuses the whole batch with a 400 naming the field, and writes nothing', async () => {
    const model = await createCollection(server, 'refused');
    const response = await server.request('POST', '/collections/refused/points/batch?wait=true', {
      operations: [{ delete: { points: [1] } }, { update_vectors: { points: [{ id: 2, vector: { text: { indices: [1, 2], values: [1] } } }] } }],
    });
    expect(response.status).toBe(400);
    expect(response.body.status.error).toMatch(/operations\[1\].*points\[0\]\.vector/);
    await expectMatchesModel(server, 'refused', model);
  });
});

describe('sparse vectors — update_filter and delete_vectors routes', () => {
  it('sparse update_filter — only matching points take the new sparse vectors; new points are inserted; has_vector sees sparse names', async () => {
    const model = await createCollection(server, 'conditional');
    // Point 2 loses its text vector first, so has_vector("text") no longer matches it.
    await server.client.deleteVectors('conditional', { wait: true, points: [2], vector: ['text'] });
    delete model.get(2)!.text;
    await expectMatchesModel(server, 'conditional', model);

    const upserted = await server.request('PUT', '/collections/conditional/points?wait=true', {
      points: [1, 2, 3, 30].map((id) => ({ id, vector: { text: { indices: [9, id % 6], values: [2, 1] } }, payload: { replaced: true } })),
      update_filter: { must: [{ has_vector: 'text' }, { key: 'group', match: { value: 1 } }] },
    });
    expect(upserted.status).toBe(200);
    for (const id of [1, 3, 30]) model.set(id, { text: { indices: [9, id % 6], values: [2, 1] }, payload: { replaced: true } });
    await expectMatchesModel(server, 'conditional', model);

    // Raw HTTP: the official client's updateVectors has no update_filter field.
    const updated = await server.request('PUT', '/collections/conditional/points/vectors?wait=true', {
      points: [4, 5, 6].map((id) => ({ id, vector: { title: { indices: [10, 11], values: [id, 1] } } })),
      update_filter: { must: [{ key: 'group', match: { value: 0 } }] },
    });
    expect(updated.status).toBe(200);
    for (const id of [4, 6]) model.get(id)!.title = { indices: [10, 11], values: [id, 1] };
    await expectMatchesModel(server, 'conditional', model);
  });
});

describe('sparse vectors — named vector routes', () => {
  it('sparse vector name — DELETE takes the stored vectors and the index with it; PUT {"sparse"} starts an empty index that takes writes', async () => {
    const model = await createCollection(server, 'names');
    const removed = await server.request('DELETE', '/collections/names/vectors/title?wait=true');
    expect(removed.status).toBe(200);
    expect(server.app.collections.get('names').sparse.indexes.has('title')).toBe(false);
    for (const point of model.values()) delete point.title;
    const refused = await server.request('POST', '/collections/names/points/query', { query: queries[0], using: 'title' });
    expect(refused.status).toBe(400);
    expect(refused.body.status.error).toMatch(/title/);

    await server.client.createVectorName('names', 'title', { sparse: {} });
    expect(server.app.collections.get('names').sparse.indexes.has('title')).toBe(true);
    // The re-added name starts empty: nothing of the removed vectors comes back.
    await expectMatchesModel(server, 'names', model);
    const batch = await server.request('POST', '/collections/names/points/batch?wait=true', {
      operations: [{ update_vectors: { points: [{ id: 3, vector: { title: sparseOf(3, 2) } }] } }, { upsert: { points: [{ id: 40, vector: { title: sparseOf(40) } }] } }],
    });
    expect(batch.status).toBe(200);
    model.get(3)!.title = sparseOf(3, 2);
    model.set(40, { title: sparseOf(40), payload: {} });
    await expectMatchesModel(server, 'names', model);
  });
});

const newDirectory = dataDirectoriesForFile();

describe('sparse vectors — staged writes survive a restart', () => {
  it('sparse batch restart — batches after a checkpoint replay from the log; a clean restart loads the checkpoints; a removed and re-added name stays empty', async () => {
    const directory = await newDirectory();
    const copy = await newDirectory();
    let running = await startServer(directory, { storage: { checkpoint_operations: 1_000_000 } });
    const model = await createCollection(running, 'durable');
    try {
      expect(await running.app.collections.get('durable').checkpoint('test')).toBe(true);
      const batch = await running.request('POST', '/collections/durable/points/batch?wait=true', { operations: matrixOperations() });
      expect(batch.status).toBe(200);
      applyMatrixToModel(model);
      expect((await running.request('DELETE', '/collections/durable/vectors/title?wait=true')).status).toBe(200);
      expect((await running.request('PUT', '/collections/durable/vectors/title?wait=true', { sparse: {} })).status).toBe(200);
      for (const point of model.values()) delete point.title;
      const updated = await running.request('PUT', '/collections/durable/points/vectors?wait=true', {
        points: [{ id: 8, vector: { title: { indices: [2, 3], values: [1, 4] } } }, { id: 3, vector: { title: { indices: [2], values: [1] } } }],
        update_filter: { must: [{ has_vector: 'text' }] },
      });
      expect(updated.status).toBe(200);
      model.get(8)!.title = { indices: [2, 3], values: [1, 4] };
      await expectMatchesModel(running, 'durable', model);
      // What a crash leaves behind: the directory as it is, no shutdown checkpoint.
      await cp(directory, copy, { recursive: true });
    } finally {
      await running.close();
    }
    for (const restartFrom of [copy, directory]) {
      running = await startServer(restartFrom);
      try {
        await expectMatchesModel(running, 'durable', model);
      } finally {
        await running.close();
      }
    }
  });
});
