// Staged writes over HTTP (docs/api.md §10): POST .../points/batch as one atomic write, delete
// vectors, update_filter; raw requests and the official client, each result compared with the
// slow reference in support/write-reference.ts.
import { describe, expect, it } from 'vitest';
import { serverForFile } from './support/server.js';
import { WriteReference, type Vectors } from './support/write-reference.js';

const server = serverForFile({ overrides: { limits: { max_points_per_upsert: 50 } } });
let counter = 0;

/** A collection with two named vectors (Dot and Euclid keep vectors exactly as sent). */
async function newCollection(points: { id: number; vector: Vectors; payload?: Record<string, unknown> }[] = []): Promise<{ name: string; reference: WriteReference }> {
  counter += 1;
  const name = `batch-${counter}`;
  const created = await server.request('PUT', `/collections/${name}`, { vectors: { text: { size: 3, distance: 'Dot' }, image: { size: 2, distance: 'Euclid' } } });
  expect(created.status).toBe(200);
  const reference = new WriteReference();
  if (points.length > 0) {
    const upserted = await server.request('PUT', `/collections/${name}/points?wait=true`, { points });
    expect(upserted.status).toBe(200);
    reference.upsert(points);
  }
  return { name, reference };
}

const base: { id: number; vector: Vectors; payload: Record<string, unknown> }[] = [
  { id: 1, vector: { text: [1, 0, 0], image: [1, 1] }, payload: { color: 'red', n: 1 } },
  { id: 2, vector: { text: [0, 1, 0], image: [2, 2] }, payload: { color: 'blue', n: 2 } },
  { id: 3, vector: { text: [0, 0, 1] }, payload: { color: 'red', n: 3 } },
];

async function stored(name: string, ids = Array.from({ length: 20 }, (_, id) => id)): Promise<unknown[]> {
  const response = await server.request('POST', `/collections/${name}/points`, { ids, with_payload: true, with_vector: true });
  expect(response.status).toBe(200);
  return (response.body.result as { id: number; payload: unknown; vector: unknown }[])
    .map((record) => ({ id: record.id, payload: record.payload, vector: record.vector }))
    .sort((a, b) => a.id - b.id);
}

const redFilter = { must: [{ key: 'color', match: { value: 'red' } }] };

describe('points/batch — one atomic write', () => {
  it('batch — every operation kind applies in order, later ones see earlier ones, one result per operation', async () => {
    const { name, reference } = await newCollection(base);
    const operations = [
      { upsert: { points: [{ id: 4, vector: { text: [1, 1, 1], image: [0, 1] }, payload: { color: 'green' } }] } },
      { set_payload: { points: [4], payload: { tagged: true } } },
      { overwrite_payload: { points: [2], payload: { color: 'red', replaced: 1 } } },
      { delete_payload: { points: [1], keys: ['n'] } },
      { update_vectors: { points: [{ id: 4, vector: { image: [5, 5] } }] } },
      { delete_vectors: { points: [1], vector: ['image'] } },
      { clear_payload: { points: [3] } },
      { delete: { filter: { must: [{ key: 'replaced', match: { value: 1 } }] } } },
      { upsert: { batch: { ids: [5, 6], vectors: { text: [[2, 0, 0], [0, 2, 0]] }, payloads: [{ color: 'red' }, null] } } },
      { set_payload: { filter: redFilter, payload: { warm: true } } },
    ];
    const response = await server.request('POST', `/collections/${name}/points/batch?wait=true&ordering=strong`, { operations });
    expect(response.status).toBe(200);
    expect(response.body.result).toHaveLength(operations.length);
    for (const result of response.body.result) expect(result).toEqual({ operation_id: response.body.result[0].operation_id, status: 'completed' });

    reference.upsert([{ id: 4, vector: { text: [1, 1, 1], image: [0, 1] }, payload: { color: 'green' } }]);
    reference.setPayload({ ids: [4] }, { tagged: true });
    reference.overwritePayload({ ids: [2] }, { color: 'red', replaced: 1 });
    reference.deletePayloadKeys([1], ['n']);
    reference.updateVectors([{ id: 4, vector: { image: [5, 5] } }]);
    reference.deleteVectors({ ids: [1] }, ['image']);
    reference.clearPayload({ ids: [3] });
    reference.delete({ where: (_id, point) => point.payload.replaced === 1 });
    reference.upsert([{ id: 5, vector: { text: [2, 0, 0] }, payload: { color: 'red' } }, { id: 6, vector: { text: [0, 2, 0] } }]);
    reference.setPayload({ where: (_id, point) => point.payload.color === 'red' }, { warm: true });
    expect(await stored(name)).toEqual(reference.records());

    // The new points are searchable under their vectors, the deleted one is not.
    const search = await server.request('POST', `/collections/${name}/points/search`, { vector: { name: 'image', vector: [5, 5] }, limit: 10 });
    expect(search.body.result.map((point: { id: number }) => point.id)).toEqual([4]);
  });

  it('batch — a refused last operation leaves the earlier ones unapplied (404 naming operations[2])', async () => {
    const { name, reference } = await newCollection(base);
    const before = await stored(name);
    const response = await server.request('POST', `/collections/${name}/points/batch?wait=true`, {
      operations: [
        { upsert: { points: [{ id: 7, vector: { text: [1, 2, 3] } }] } },
        { delete: { points: [1, 2] } },
        { update_vectors: { points: [{ id: 99, vector: { text: [1, 1, 1] } }] } },
      ],
    });
    expect(response.status).toBe(404);
    expect(response.body.status.error).toMatch(/^operations\[2\]: .*99/);
    expect(await stored(name)).toEqual(before);
    expect(await stored(name)).toEqual(reference.records());
    // The collection keeps working, and the slot the refused upsert took is reused cleanly.
    const next = await server.request('POST', `/collections/${name}/points/batch?wait=true`, { operations: [{ upsert: { points: [{ id: 7, vector: { text: [1, 2, 3] } }] } }] });
    expect(next.status).toBe(200);
    reference.upsert([{ id: 7, vector: { text: [1, 2, 3] } }]);
    expect(await stored(name)).toEqual(reference.records());
  });

  it('batch — a validation error is a 400 naming the operation and field, and writes nothing', async () => {
    const { name, reference } = await newCollection(base);
    const cases: [unknown, RegExp][] = [
      [[{ delete: { points: [1] } }, { upsert: { points: [{ id: 8, vector: { text: [1, 2] } }] } }], /operations\[1\]: .*dimension.*points\[0\]\.vector/],
      [[{ delete: { points: [1] } }, { delete_payload: { filter: redFilter, keys: ['a'] } }], /operations\[1\]: delete_payload\.filter/],
      [[{ delete_vectors: { points: [1], vector: ['nope'] } }], /operations\[0\]: vector\[0\]/],
      [[{ delete: { points: [1] } }, { delete: { filter: { must: [{ key: 'n', range: { gt: 'x' } }] } } }], /operations\[1\]: delete\.filter/],
      [[{ upsert: { points: [] } }, { frobnicate: {} }], /operations\[1\]/],
      [[{ set_payload: { payload: {}, points: [1], filter: redFilter } }], /operations\[0\]: .*either "points" or "filter"/],
    ];
    for (const [operations, message] of cases) {
      const response = await server.request('POST', `/collections/${name}/points/batch?wait=true`, { operations });
      expect(response.status, JSON.stringify(operations)).toBe(400);
      expect(response.body.status.error).toMatch(message);
    }
    expect(await stored(name)).toEqual(reference.records());
  });

  it('batch — bounded: operations and their points together stay within limits.max_points_per_upsert', async () => {
    const { name } = await newCollection();
    const many = Array.from({ length: 51 }, () => ({ delete: { points: [1] } }));
    const tooMany = await server.request('POST', `/collections/${name}/points/batch`, { operations: many });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.status.error).toMatch(/^operations: at most 50/);
    const points = Array.from({ length: 30 }, (_, id) => ({ id, vector: { text: [1, 0, 0] } }));
    const tooBig = await server.request('POST', `/collections/${name}/points/batch`, { operations: [{ upsert: { points } }, { upsert: { points } }] });
    expect(tooBig.status).toBe(400);
    expect(tooBig.body.status.error).toMatch(/^operations\[1\]: at most 50 points/);
  });

  it('batch — an empty list of operations is an empty result', async () => {
    const { name } = await newCollection();
    const response = await server.request('POST', `/collections/${name}/points/batch`, { operations: [] });
    expect(response.status).toBe(200);
    expect(response.body.result).toEqual([]);
  });

  it('batch — update_mode inside an upsert operation: insert_only keeps existing points, update_only skips new ones', async () => {
    const { name, reference } = await newCollection(base);
    const response = await server.request('POST', `/collections/${name}/points/batch?wait=true`, {
      operations: [
        { upsert: { points: [{ id: 1, vector: { text: [9, 9, 9] } }, { id: 8, vector: { text: [8, 8, 8] } }], update_mode: 'insert_only' } },
        { upsert: { points: [{ id: 2, vector: { text: [7, 7, 7] } }, { id: 9, vector: { text: [9, 9, 9] } }], update_mode: 'update_only' } },
      ],
    });
    expect(response.status).toBe(200);
    reference.upsert([{ id: 1, vector: { text: [9, 9, 9] } }, { id: 8, vector: { text: [8, 8, 8] } }], { mode: 'insert_only' });
    reference.upsert([{ id: 2, vector: { text: [7, 7, 7] } }, { id: 9, vector: { text: [9, 9, 9] } }], { mode: 'update_only' });
    expect(await stored(name)).toEqual(reference.records());
  });

  it('batch — a point created and deleted within one batch leaves nothing behind', async () => {
    const { name, reference } = await newCollection(base);
    const response = await server.request('POST', `/collections/${name}/points/batch?wait=true`, {
      operations: [
        { upsert: { points: [{ id: 10, vector: { text: [1, 0, 0] }, payload: { color: 'red' } }] } },
        { delete: { filter: redFilter } },
        { upsert: { points: [{ id: 1, vector: { image: [3, 3] } }] } },
      ],
    });
    expect(response.status).toBe(200);
    reference.upsert([{ id: 10, vector: { text: [1, 0, 0] }, payload: { color: 'red' } }]);
    reference.delete({ where: (_id, point) => point.payload.color === 'red' });
    reference.upsert([{ id: 1, vector: { image: [3, 3] } }]);
    expect(await stored(name)).toEqual(reference.records());
    const count = await server.request('POST', `/collections/${name}/points/count`, { exact: true });
    expect(count.body.result.count).toBe(reference.points.size);
    const search = await server.request('POST', `/collections/${name}/points/search`, { vector: { name: 'text', vector: [1, 0, 0] }, limit: 10 });
    expect(search.body.result.map((point: { id: number }) => point.id).sort()).toEqual([2]);
  });

  it('batch — wait=false answers acknowledged once durable; the writes are visible right after', async () => {
    const { name, reference } = await newCollection();
    const response = await server.request('POST', `/collections/${name}/points/batch`, {
      operations: [{ upsert: { points: [{ id: 1, vector: { text: [1, 2, 3] }, payload: { a: 1 } }] } }, { set_payload: { points: [1], payload: { b: 2 } } }],
    });
    expect(response.status).toBe(200);
    expect(response.body.result.map((result: { status: string }) => result.status)).toEqual(['acknowledged', 'acknowledged']);
    reference.upsert([{ id: 1, vector: { text: [1, 2, 3] }, payload: { a: 1, b: 2 } }]);
    expect(await stored(name)).toEqual(reference.records());
  });

  it('batch — the official client: batchUpdate applies the operations and returns one result each', async () => {
    const { name, reference } = await newCollection(base);
    const results = await server.client.batchUpdate(name, {
      wait: true,
      operations: [
        { upsert: { points: [{ id: 11, vector: { text: [0.5, 0.5, 0], image: [0.5, 0.25] }, payload: { color: 'red' } }] } },
        { overwrite_payload: { filter: redFilter, payload: { color: 'pink' } } },
        { delete_vectors: { filter: { must: [{ key: 'color', match: { value: 'pink' } }] }, vector: ['text'] } },
        { clear_payload: { points: [2] } },
      ],
    });
    expect(results).toHaveLength(4);
    expect(results.every((result) => result.status === 'completed')).toBe(true);
    reference.upsert([{ id: 11, vector: { text: [0.5, 0.5, 0], image: [0.5, 0.25] }, payload: { color: 'red' } }]);
    reference.overwritePayload({ where: (_id, point) => point.payload.color === 'red' }, { color: 'pink' });
    reference.deleteVectors({ where: (_id, point) => point.payload.color === 'pink' }, ['text']);
    reference.clearPayload({ ids: [2] });
    expect(await stored(name)).toEqual(reference.records());
    await expect(server.client.batchUpdate(name, { operations: [{ delete: { points: [1] } }, { set_payload: { points: [404], payload: {} } }] })).rejects.toMatchObject({
      status: 404,
      data: { status: { error: expect.stringMatching(/^operations\[1\]: /) } },
    });
    expect(await stored(name)).toEqual(reference.records());
  });
});

describe('points/vectors/delete', () => {
  it('delete vectors — removes the named vectors; the points and their other vectors stay', async () => {
    const { name, reference } = await newCollection(base);
    const response = await server.request('POST', `/collections/${name}/points/vectors/delete?wait=true`, { points: [1, 2, 42], vector: ['image'] });
    expect(response.status).toBe(200);
    expect(response.body.result.status).toBe('completed');
    reference.deleteVectors({ ids: [1, 2] }, ['image']);
    expect(await stored(name)).toEqual(reference.records());
    const search = await server.request('POST', `/collections/${name}/points/search`, { vector: { name: 'image', vector: [1, 1] }, limit: 10 });
    expect(search.body.result).toEqual([]);
  });

  it('delete vectors — a point left with no vector is still a point', async () => {
    const { name, reference } = await newCollection(base);
    await server.client.deleteVectors(name, { wait: true, filter: redFilter, vector: ['text', 'image'] });
    reference.deleteVectors({ where: (_id, point) => point.payload.color === 'red' }, ['text', 'image']);
    expect(await stored(name)).toEqual(reference.records());
    const count = await server.client.count(name, { exact: true });
    expect(count.count).toBe(3);
    const scrolled = await server.client.scroll(name, { filter: redFilter, with_payload: true });
    expect(scrolled.points.map((point) => point.id).sort()).toEqual([1, 3]);
  });

  it('delete vectors — bad requests are 400s naming the field', async () => {
    const { name } = await newCollection(base);
    const cases: [unknown, RegExp][] = [
      [{ points: [1], vector: ['nope'] }, /vector\[0\]/],
      [{ points: [1], vector: [] }, /vector/],
      [{ points: [1] }, /vector/],
      [{ vector: ['text'] }, /either "points" or "filter"/],
      [{ points: [1], filter: redFilter, vector: ['text'] }, /either "points" or "filter"/],
      [{ points: [-1], vector: ['text'] }, /points/],
    ];
    for (const [body, message] of cases) {
      const response = await server.request('POST', `/collections/${name}/points/vectors/delete`, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.status.error).toMatch(message);
    }
  });
});

describe('update_filter — conditional updates', () => {
  it('update_filter — upsert replaces existing points that match, keeps those that do not, inserts new ones', async () => {
    const { name, reference } = await newCollection(base);
    const points = [
      { id: 1, vector: { text: [5, 5, 5] }, payload: { color: 'red', v: 2 } },
      { id: 2, vector: { text: [6, 6, 6] }, payload: { color: 'blue', v: 2 } },
      { id: 12, vector: { text: [7, 7, 7] }, payload: { v: 1 } },
    ];
    const response = await server.request('PUT', `/collections/${name}/points?wait=true`, { points, update_filter: redFilter });
    expect(response.status).toBe(200);
    reference.upsert(points, { only: (_id, point) => point.payload.color === 'red' });
    expect(await stored(name)).toEqual(reference.records());
  });

  it('update_filter — update vectors only where the filter matches; the official client sends it with upsert', async () => {
    const { name, reference } = await newCollection(base);
    // The client's updateVectors drops update_filter, so this one is sent raw.
    const updated = await server.request('PUT', `/collections/${name}/points/vectors?wait=true`, {
      points: [{ id: 1, vector: { image: [9, 9] } }, { id: 2, vector: { image: [8, 8] } }],
      update_filter: redFilter,
    });
    expect(updated.status).toBe(200);
    reference.updateVectors([{ id: 1, vector: { image: [9, 9] } }, { id: 2, vector: { image: [8, 8] } }], (_id, point) => point.payload.color === 'red');
    expect(await stored(name)).toEqual(reference.records());
    await server.client.upsert(name, { wait: true, points: [{ id: 3, vector: { text: [3, 3, 3] }, payload: { color: 'blue' } }], update_filter: { must: [{ key: 'n', match: { value: 3 } }] } });
    reference.upsert([{ id: 3, vector: { text: [3, 3, 3] }, payload: { color: 'blue' } }], { only: (_id, point) => point.payload.n === 3 });
    expect(await stored(name)).toEqual(reference.records());
  });

  it('update_filter — inside a batch it sees the earlier operations (set_payload then a conditional upsert)', async () => {
    const { name, reference } = await newCollection(base);
    const response = await server.request('POST', `/collections/${name}/points/batch?wait=true`, {
      operations: [
        { set_payload: { points: [2], payload: { color: 'red' } } },
        { upsert: { batch: { ids: [1, 2, 3], vectors: { text: [[1, 1, 1], [2, 2, 2], [3, 3, 3]] }, payloads: [{ s: 1 }, { s: 2 }, { s: 3 }] }, update_filter: { must: [{ key: 'n', range: { gte: 2 } }, redFilter] } } },
        { update_vectors: { points: [{ id: 1, vector: { image: [4, 4] } }, { id: 2, vector: { image: [4, 4] } }], update_filter: { must: [{ key: 's', match: { value: 2 } }] } } },
      ],
    });
    expect(response.status).toBe(200);
    reference.setPayload({ ids: [2] }, { color: 'red' });
    reference.upsert(
      [1, 2, 3].map((id) => ({ id, vector: { text: [id, id, id] }, payload: { s: id } })),
      { only: (_id, point) => typeof point.payload.n === 'number' && point.payload.n >= 2 && point.payload.color === 'red' },
    );
    reference.updateVectors([{ id: 1, vector: { image: [4, 4] } }, { id: 2, vector: { image: [4, 4] } }], (_id, point) => point.payload.s === 2);
    expect(await stored(name)).toEqual(reference.records());
  });

  it('update_filter — a malformed filter is a 400 naming update_filter', async () => {
    const { name, reference } = await newCollection(base);
    const response = await server.request('PUT', `/collections/${name}/points`, { points: [{ id: 1, vector: { text: [1, 1, 1] } }], update_filter: { must: [{ key: 'n', range: { gt: 'x' } }] } });
    expect(response.status).toBe(400);
    expect(response.body.status.error).toMatch(/update_filter/);
    // Also when every point is new, so the filter would never be evaluated.
    const onlyNew = await server.request('POST', `/collections/${name}/points/batch`, {
      operations: [{ upsert: { points: [{ id: 77, vector: { text: [1, 1, 1] } }], update_filter: { must: [{ key: 'n', range: { gt: 'x' } }] } } }],
    });
    expect(onlyNew.status).toBe(400);
    expect(onlyNew.body.status.error).toMatch(/^operations\[0\]: upsert\.update_filter/);
    expect(await stored(name)).toEqual(reference.records());
  });
});
