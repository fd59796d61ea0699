// Points over HTTP through the official Qdrant JS client, plus raw requests for what it does not
// expose (big integer literals, id forms, the acknowledged status).
import { describe, expect, it } from 'vitest';
import { serverForFile } from './support/server.js';

const server = serverForFile();
let counter = 0;

async function newCollection(body: Record<string, unknown> = { vectors: { size: 3, distance: 'Euclid' } }): Promise<string> {
  counter += 1;
  const name = `points-${counter}`;
  const response = await server.request('PUT', `/collections/${name}`, body);
  expect(response.status).toBe(200);
  return name;
}

describe('upsert and retrieve', () => {
  it('upsert — list form, then retrieve with payload and vectors', async () => {
    const name = await newCollection();
    const result = await server.client.upsert(name, {
      wait: true,
      points: [
        { id: 1, vector: [0.1, 0.2, 0.3], payload: { city: 'Oslo', tags: ['a', 'b'] } },
        { id: 2, vector: [1, 2, 3] },
      ],
    });
    expect(result).toEqual({ operation_id: expect.any(Number), status: 'completed' });
    const records = await server.client.retrieve(name, { ids: [2, 1], with_vector: true });
    expect(records).toEqual([
      { id: 2, payload: {}, vector: [1, 2, 3] },
      { id: 1, payload: { city: 'Oslo', tags: ['a', 'b'] }, vector: [0.1, 0.2, 0.3] },
    ]);
  });

  it('upsert — batch form with payloads', async () => {
    const name = await newCollection();
    await server.client.upsert(name, { wait: true, batch: { ids: [10, 11], vectors: [[1, 1, 1], [2, 2, 2]], payloads: [{ n: 10 }, null] } });
    const records = await server.client.retrieve(name, { ids: [10, 11], with_vector: true });
    expect(records).toEqual([
      { id: 10, payload: { n: 10 }, vector: [1, 1, 1] },
      { id: 11, payload: {}, vector: [2, 2, 2] },
    ]);
  });

  it('upsert — replaces the whole point', async () => {
    const name = await newCollection();
    await server.client.upsert(name, { wait: true, points: [{ id: 5, vector: [1, 1, 1], payload: { a: 1, b: 2 } }] });
    await server.client.upsert(name, { wait: true, points: [{ id: 5, vector: [3, 3, 3], payload: { c: 3 } }] });
    expect(await server.client.retrieve(name, { ids: [5], with_vector: true })).toEqual([{ id: 5, payload: { c: 3 }, vector: [3, 3, 3] }]);
    expect((await server.client.getCollection(name)).points_count).toBe(1);
  });

  it('upsert — the same id twice in one request: the last one wins', async () => {
    const name = await newCollection();
    await server.client.upsert(name, { wait: true, points: [{ id: 7, vector: [1, 1, 1], payload: { first: true } }, { id: 7, vector: [2, 2, 2], payload: { last: true } }] });
    expect(await server.client.retrieve(name, { ids: [7], with_vector: true })).toEqual([{ id: 7, payload: { last: true }, vector: [2, 2, 2] }]);
  });

  it('upsert — update_mode insert_only skips existing points, update_only skips missing ones', async () => {
    const name = await newCollection();
    await server.client.upsert(name, { wait: true, points: [{ id: 1, vector: [1, 1, 1], payload: { v: 'original' } }] });
    const insertOnly = await server.request('PUT', `/collections/${name}/points?wait=true`, {
      update_mode: 'insert_only',
      points: [{ id: 1, vector: [9, 9, 9], payload: { v: 'changed' } }, { id: 2, vector: [2, 2, 2], payload: { v: 'new' } }],
    });
    expect(insertOnly.status).toBe(200);
    const updateOnly = await server.request('PUT', `/collections/${name}/points?wait=true`, {
      update_mode: 'update_only',
      points: [{ id: 2, vector: [4, 4, 4], payload: { v: 'updated' } }, { id: 3, vector: [3, 3, 3] }],
    });
    expect(updateOnly.status).toBe(200);
    const records = await server.client.retrieve(name, { ids: [1, 2, 3], with_vector: true });
    expect(records).toEqual([
      { id: 1, payload: { v: 'original' }, vector: [1, 1, 1] },
      { id: 2, payload: { v: 'updated' }, vector: [4, 4, 4] },
    ]);
  });

  it('write results — operation ids increase per collection; wait=false answers acknowledged', async () => {
    const name = await newCollection();
    const first = await server.request('PUT', `/collections/${name}/points?wait=true`, { points: [{ id: 1, vector: [1, 1, 1] }] });
    const second = await server.request('PUT', `/collections/${name}/points`, { points: [{ id: 2, vector: [2, 2, 2] }] });
    expect(first.body.result.status).toBe('completed');
    expect(second.body.result.status).toBe('acknowledged');
    expect(second.body.result.operation_id).toBeGreaterThan(first.body.result.operation_id);
    const deleted = await server.request('POST', `/collections/${name}/points/delete?wait=true`, { points: [1] });
    expect(deleted.body.result.operation_id).toBeGreaterThan(second.body.result.operation_id);
    // The acknowledged write is applied in order before the delete completes.
    expect((await server.client.retrieve(name, { ids: [1, 2] })).map((record) => record.id)).toEqual([2]);
  });

  it('versions — a point records the operation that last wrote it', async () => {
    const name = await newCollection();
    const first = await server.client.upsert(name, { wait: true, points: [{ id: 1, vector: [1, 1, 1] }, { id: 2, vector: [2, 2, 2] }] });
    const second = await server.client.upsert(name, { wait: true, points: [{ id: 2, vector: [3, 3, 3] }] });
    const collection = server.app.collections.get(name);
    expect(collection.pointById(1)?.version).toBe(first.operation_id);
    expect(collection.pointById(2)?.version).toBe(second.operation_id);
  });

  it('retrieve — with_payload selectors and with_vectors alias', async () => {
    const name = await newCollection();
    await server.client.upsert(name, { wait: true, points: [{ id: 1, vector: [1, 2, 3], payload: { a: 1, b: { c: 2, d: 3 }, e: 4 } }] });
    const cases: [unknown, unknown][] = [
      [true, { a: 1, b: { c: 2, d: 3 }, e: 4 }],
      [['a', 'b.c'], { a: 1, b: { c: 2 } }],
      [{ include: ['e'] }, { e: 4 }],
      [{ exclude: ['b.d', 'e'] }, { a: 1, b: { c: 2 } }],
    ];
    for (const [withPayload, expected] of cases) {
      const response = await server.request('POST', `/collections/${name}/points`, { ids: [1], with_payload: withPayload });
      expect(response.body.result, JSON.stringify(withPayload)).toEqual([{ id: 1, payload: expected }]);
    }
    const bare = await server.request('POST', `/collections/${name}/points`, { ids: [1], with_payload: false });
    expect(bare.body.result).toEqual([{ id: 1 }]);
    const vectorsAlias = await server.request('POST', `/collections/${name}/points`, { ids: [1], with_payload: false, with_vectors: true });
    expect(vectorsAlias.body.result).toEqual([{ id: 1, vector: [1, 2, 3] }]);
  });

  it('retrieve — unknown ids are left out; a missing collection is 404', async () => {
    const name = await newCollection();
    await server.client.upsert(name, { wait: true, points: [{ id: 1, vector: [1, 2, 3] }] });
    expect(await server.client.retrieve(name, { ids: [1, 99] })).toEqual([{ id: 1, payload: {} }]);
    const missing = await server.request('POST', '/collections/nothing-here/points', { ids: [1] });
    expect(missing.status).toBe(404);
    expect(missing.body.status.error).toBe('Collection not found: nothing-here');
  });

  it('get point — returns payload and vector; an unknown id answers 404 Point with id N does not exist', async () => {
    const name = await newCollection();
    await server.client.upsert(name, { wait: true, points: [{ id: 3, vector: [1, 2, 3], payload: { x: 1 } }] });
    const found = await server.request('GET', `/collections/${name}/points/3`);
    expect(found.body.result).toEqual({ id: 3, payload: { x: 1 }, vector: [1, 2, 3] });
    const missing = await server.request('GET', `/collections/${name}/points/4`);
    expect(missing.status).toBe(404);
    expect(missing.body.status.error).toBe('Point with id 4 does not exist');
  });
});

describe('ids', () => {
  it('ids — integers above 2^53 survive exactly in and out', async () => {
    const name = await newCollection();
    const upsert = await server.request('PUT', `/collections/${name}/points?wait=true`, '{"points":[{"id":424242424242424242,"vector":[1,2,3]},{"id":18446744073709551615,"vector":[4,5,6]}]}');
    expect(upsert.status).toBe(200);
    const retrieved = await server.request('POST', `/collections/${name}/points`, '{"ids":[18446744073709551615,424242424242424242]}');
    expect(retrieved.text).toContain('"id":18446744073709551615');
    expect(retrieved.text).toContain('"id":424242424242424242');
    const single = await server.request('GET', `/collections/${name}/points/424242424242424242`);
    expect(single.text).toContain('"id":424242424242424242');
  });

  it('ids — UUIDs in every form are one point, written back lowercase hyphenated', async () => {
    const name = await newCollection();
    const canonical = '550e8400-e29b-41d4-a716-446655440000';
    const forms = ['550E8400-E29B-41D4-A716-446655440000', '550e8400e29b41d4a716446655440000', '{550e8400-e29b-41d4-a716-446655440000}', 'urn:uuid:550e8400-e29b-41d4-a716-446655440000'];
    for (const [position, form] of forms.entries()) {
      await server.client.upsert(name, { wait: true, points: [{ id: form, vector: [position, 0, 0] }] });
    }
    expect((await server.client.getCollection(name)).points_count).toBe(1);
    for (const form of forms) {
      expect(await server.client.retrieve(name, { ids: [form], with_vector: true })).toEqual([{ id: canonical, payload: {}, vector: [3, 0, 0] }]);
    }
    expect((await server.request('GET', `/collections/${name}/points/${forms[1]}`)).body.result.id).toBe(canonical);
  });

  it.each([[-1], [1.5], ['not-a-uuid'], ['123'], [true], [null], [{ id: 1 }], ['18446744073709551616']])('ids — %j is refused with the contract message', async (id) => {
    const name = await newCollection();
    const response = await server.request('PUT', `/collections/${name}/points?wait=true`, { points: [{ id, vector: [1, 2, 3] }] });
    expect(response.status).toBe(400);
    expect(response.body.status.error).toMatch(/points\[0\]\.id: value .* is not a valid point ID, valid values are either an unsigned integer or a UUID/);
  });

  it('ids — 2^64 as a literal is refused', async () => {
    const name = await newCollection();
    const response = await server.request('PUT', `/collections/${name}/points?wait=true`, '{"points":[{"id":18446744073709551616,"vector":[1,2,3]}]}');
    expect(response.status).toBe(400);
    expect(response.body.status.error).toContain('18446744073709551616 is not a valid point ID');
  });
});

describe('delete and update vectors', () => {
  it('delete — by ids; unknown ids are not an error', async () => {
    const name = await newCollection();
    await server.client.upsert(name, { wait: true, points: [{ id: 1, vector: [1, 1, 1] }, { id: 2, vector: [2, 2, 2] }] });
    const result = await server.client.delete(name, { wait: true, points: [1, 42] });
    expect(result.status).toBe('completed');
    expect(await server.client.retrieve(name, { ids: [1, 2] })).toEqual([{ id: 2, payload: {} }]);
    expect((await server.client.getCollection(name)).points_count).toBe(1);
    const nearest = await server.app.collections.get(name).nearest('', new Float32Array([1, 1, 1]), 5);
    expect(nearest.points.map((point) => point.id)).toEqual([2]);
  });

  it('delete — a filter answers 400 until the filter module plugs in, and deletes nothing', async () => {
    const name = await newCollection();
    await server.client.upsert(name, { wait: true, points: [{ id: 1, vector: [1, 1, 1] }] });
    const collection = server.app.collections.get(name);
    const before = collection.lastOperationId;
    const response = await server.request('POST', `/collections/${name}/points/delete?wait=true`, { filter: { must: [] } });
    // Once src/filter registers its selector this answers 200; either way nothing is ignored.
    if (response.status === 400) {
      expect(response.body.status.error).toContain('filter');
      expect(collection.lastOperationId).toBe(before);
      expect(collection.pointCount).toBe(1);
    } else {
      expect(response.status).toBe(200);
    }
  });

  it('delete — neither points nor filter is a 400', async () => {
    const name = await newCollection();
    const response = await server.request('POST', `/collections/${name}/points/delete`, {});
    expect(response.status).toBe(400);
  });

  it('update vectors — replaces only the named vectors given; a point may lack some vectors', async () => {
    const name = await newCollection({ vectors: { image: { size: 2, distance: 'Dot' }, text: { size: 3, distance: 'Euclid' } } });
    await server.client.upsert(name, {
      wait: true,
      points: [
        { id: 1, vector: { image: [1, 0], text: [1, 1, 1] }, payload: { p: 1 } },
        { id: 2, vector: { text: [2, 2, 2] } },
      ],
    });
    expect(await server.client.retrieve(name, { ids: [2], with_vector: true })).toEqual([{ id: 2, payload: {}, vector: { text: [2, 2, 2] } }]);
    const result = await server.client.updateVectors(name, { wait: true, points: [{ id: 1, vector: { image: [0, 1] } }, { id: 2, vector: { image: [5, 5] } }] });
    expect(result.status).toBe('completed');
    const records = await server.client.retrieve(name, { ids: [1, 2], with_vector: true });
    expect(records).toEqual([
      { id: 1, payload: { p: 1 }, vector: { image: [0, 1], text: [1, 1, 1] } },
      { id: 2, payload: {}, vector: { image: [5, 5], text: [2, 2, 2] } },
    ]);
    const onlyText = await server.client.retrieve(name, { ids: [1], with_vector: ['text'], with_payload: false });
    expect(onlyText).toEqual([{ id: 1, vector: { text: [1, 1, 1] } }]);
    const nearestImage = await server.app.collections.get(name).nearest('image', new Float32Array([0, 1]), 1);
    expect(nearestImage.points[0]?.id).toBe(2);
  });

  it('update vectors — a missing point answers 404 and nothing changes', async () => {
    const name = await newCollection();
    await server.client.upsert(name, { wait: true, points: [{ id: 1, vector: [1, 1, 1] }] });
    const response = await server.request('PUT', `/collections/${name}/points/vectors?wait=true`, { points: [{ id: 1, vector: [9, 9, 9] }, { id: 2, vector: [2, 2, 2] }] });
    expect(response.status).toBe(404);
    expect(response.body.status.error).toBe('Point with id 2 does not exist');
    expect(await server.client.retrieve(name, { ids: [1], with_vector: true })).toEqual([{ id: 1, payload: {}, vector: [1, 1, 1] }]);
  });

  it('update vectors — an empty list is a 400', async () => {
    const name = await newCollection();
    const response = await server.request('PUT', `/collections/${name}/points/vectors`, { points: [] });
    expect(response.status).toBe(400);
    expect(response.body.status.error).toContain('points');
  });
});

describe('distances', () => {
  it('Cosine — vectors are normalised at insert and returned normalised', async () => {
    const name = await newCollection({ vectors: { size: 2, distance: 'Cosine' } });
    await server.client.upsert(name, { wait: true, points: [{ id: 1, vector: [3, 4] }] });
    expect(await server.client.retrieve(name, { ids: [1], with_vector: true })).toEqual([{ id: 1, payload: {}, vector: [0.6, 0.8] }]);
  });

  it.each([
    ['Dot', [1, 2], [[1, 0], [0, 3]], [2, 1], [6, 1]],
    ['Euclid', [0, 0], [[3, 4], [1, 0]], [2, 1], [1, 5]],
    ['Manhattan', [0, 0], [[3, 4], [1, 1]], [2, 1], [2, 7]],
  ] as const)('%s — nearest orders best first with wire-convention scores', async (distance, query, vectors, expectedIds, expectedScores) => {
    const name = await newCollection({ vectors: { size: 2, distance } });
    await server.client.upsert(name, { wait: true, points: vectors.map((vector, position) => ({ id: position + 1, vector: [...vector] })) });
    const result = await server.app.collections.get(name).nearest('', Float32Array.from(query), 2, { exact: true });
    expect(result.points.map((point) => point.id)).toEqual(expectedIds);
    result.scores.forEach((score, position) => expect(score).toBeCloseTo(expectedScores[position]!, 5));
  });
});
