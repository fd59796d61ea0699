// Bad input: every refusal is a 400 whose message names the problem, checked before anything
// is written — the collection (points, vectors, payloads, operation counter) is unchanged.
import { describe, expect, it } from 'vitest';
import { serverForFile } from './support/server.js';

const single = 'validation-single';
const named = 'validation-named';

const server = serverForFile({
  overrides: { limits: { max_points_per_upsert: 5, max_payload_bytes: 200 } },
  setUp: async () => {
    await server.client.createCollection(single, { vectors: { size: 3, distance: 'Euclid' } });
    await server.request('PUT', `/collections/${named}`, {
      vectors: { image: { size: 2, distance: 'Dot' }, text: { size: 3, distance: 'Cosine' } },
      sparse_vectors: { keywords: {} },
    });
    await server.client.upsert(single, { wait: true, points: [{ id: 1, vector: [1, 1, 1], payload: { keep: true } }] });
    await server.client.upsert(named, { wait: true, points: [{ id: 1, vector: { image: [1, 0], text: [0, 0, 1] } }] });
  },
});

/** Everything observable about a collection: count, last operation, every point with vectors. */
async function snapshot(name: string): Promise<unknown> {
  const collection = server.app.collections.get(name);
  // Small integer ids only in these collections: the client's id type has no bigint.
  const ids = [...collection.livePoints()].map((entry) => entry.id as number | string);
  return {
    count: (await server.client.getCollection(name)).points_count,
    lastOperationId: collection.lastOperationId,
    records: await server.client.retrieve(name, { ids, with_vector: true, with_payload: true }),
  };
}

type Case = [description: string, collection: string, method: string, path: string, body: unknown, expected: RegExp];

const cases: Case[] = [
  ['wrong dimension in the middle of a batch', single, 'PUT', 'points?wait=true', { points: [{ id: 2, vector: [1, 2, 3] }, { id: 3, vector: [1, 2] }, { id: 4, vector: [1, 2, 3] }] }, /points\[1\]\.vector: expected 3, got 2/],
  ['wrong dimension with wait=false', single, 'PUT', 'points', { points: [{ id: 2, vector: [1, 2, 3] }, { id: 3, vector: [1, 2, 3, 4] }] }, /points\[1\]\.vector: expected 3, got 4/],
  ['wrong dimension in the batch form', single, 'PUT', 'points?wait=true', { batch: { ids: [2, 3], vectors: [[1, 2, 3], [1]] } }, /batch\.vectors\[1\]: expected 3, got 1/],
  ['a string in a vector', single, 'PUT', 'points?wait=true', { points: [{ id: 2, vector: [1, '2', 3] }] }, /points\[0\]\.vector\[1\]: expected a finite number/],
  ['a null in a vector', single, 'PUT', 'points?wait=true', { points: [{ id: 2, vector: [1, null, 3] }] }, /points\[0\]\.vector\[1\]: expected a finite number/],
  ['a number outside the float32 range', single, 'PUT', 'points?wait=true', '{"points":[{"id":2,"vector":[1,1e39,3]}]}', /points\[0\]\.vector\[1\]: .*32-bit float range/],
  ['NaN (not JSON)', single, 'PUT', 'points?wait=true', '{"points":[{"id":2,"vector":[1,NaN,3]}]}', /JSON/],
  ['Infinity (not JSON)', single, 'PUT', 'points?wait=true', '{"points":[{"id":2,"vector":[1,Infinity,3]}]}', /JSON/],
  ['a bad id in the middle of a batch', single, 'PUT', 'points?wait=true', { points: [{ id: 2, vector: [1, 2, 3] }, { id: 'nope', vector: [1, 2, 3] }] }, /points\[1\]\.id: value "nope" is not a valid point ID/],
  ['a bad id in the batch form', single, 'PUT', 'points?wait=true', { batch: { ids: [2, -3], vectors: [[1, 2, 3], [1, 2, 3]] } }, /batch\.ids\[1\]: value -3 is not a valid point ID/],
  ['a missing vector', single, 'PUT', 'points?wait=true', { points: [{ id: 2 }] }, /points\[0\]\.vector: missing required field/],
  ['a missing id', single, 'PUT', 'points?wait=true', { points: [{ vector: [1, 2, 3] }] }, /points\[0\]\.id: missing required field/],
  ['neither points nor batch', single, 'PUT', 'points?wait=true', {}, /either "points" or "batch"/],
  ['both points and batch', single, 'PUT', 'points?wait=true', { points: [], batch: { ids: [], vectors: [] } }, /either "points" or "batch"/],
  ['an unknown key in a payload selector (Qdrant refuses it there too)', single, 'POST', 'points', { ids: [1], with_payload: { include: ['a'], bogus: 1 } }, /with_payload\.bogus: unknown field/],
  ['an unknown key in a filter (Qdrant refuses it there too)', single, 'POST', 'points/delete?wait=true', { filter: { must: [], bogus: 1 } }, /filter\.bogus: unknown field/],
  ['too many points', single, 'PUT', 'points?wait=true', { points: [1, 2, 3, 4, 5, 6].map((id) => ({ id, vector: [1, 2, 3] })) }, /at most 5 points/],
  ['too many points in the batch form', single, 'PUT', 'points?wait=true', { batch: { ids: [1, 2, 3, 4, 5, 6], vectors: [1, 2, 3, 4, 5, 6].map(() => [1, 2, 3]) } }, /at most 5 points/],
  ['a payload above the size limit', single, 'PUT', 'points?wait=true', { points: [{ id: 2, vector: [1, 2, 3], payload: { text: 'x'.repeat(300) } }] }, /points\[0\]\.payload: payload is larger than the limit of 200 bytes/],
  ['a payload that is not an object', single, 'PUT', 'points?wait=true', { points: [{ id: 2, vector: [1, 2, 3], payload: [1, 2] }] }, /points\[0\]\.payload/],
  ['batch payloads of the wrong length', single, 'PUT', 'points?wait=true', { batch: { ids: [2, 3], vectors: [[1, 2, 3], [1, 2, 3]], payloads: [{}] } }, /batch\.payloads: expected 2 payloads/],
  ['batch vectors of the wrong length', single, 'PUT', 'points?wait=true', { batch: { ids: [2, 3], vectors: [[1, 2, 3]] } }, /batch\.vectors: expected 2 vectors/],
  ['an unknown update_mode', single, 'PUT', 'points?wait=true', { update_mode: 'sometimes', points: [{ id: 2, vector: [1, 2, 3] }] }, /update_mode/],
  ['an unknown vector name', named, 'PUT', 'points?wait=true', { points: [{ id: 2, vector: { image: [1, 2] } }, { id: 3, vector: { audio: [1, 2] } }] }, /points\[1\]\.vector\.audio: Not existing vector name/],
  ['an unnamed vector for a named collection', named, 'PUT', 'points?wait=true', { points: [{ id: 2, vector: [1, 2] }] }, /points\[0\]\.vector: this collection has named vectors/],
  ['a wrong dimension for one named vector', named, 'PUT', 'points?wait=true', { points: [{ id: 2, vector: { image: [1, 2], text: [1, 2] } }] }, /points\[0\]\.vector\.text: expected 3, got 2/],
  ['a sparse vector whose lengths differ', named, 'PUT', 'points?wait=true', { points: [{ id: 2, vector: { keywords: { indices: [1, 2], values: [0.5] } } }] }, /points\[0\]\.vector\.keywords: indices and values must have the same length/],
  ['update vectors: wrong dimension', named, 'PUT', 'points/vectors?wait=true', { points: [{ id: 1, vector: { image: [1, 2, 3] } }] }, /points\[0\]\.vector\.image: expected 2, got 3/],
  ['update vectors: unknown name', named, 'PUT', 'points/vectors?wait=true', { points: [{ id: 1, vector: { audio: [1] } }] }, /Not existing vector name/],
  ['update vectors: missing points', named, 'PUT', 'points/vectors?wait=true', {}, /points: missing required field/],
  ['delete: a bad id', single, 'POST', 'points/delete?wait=true', { points: [1, 'x'] }, /points: value "x" is not a valid point ID/],
  ['retrieve: missing ids', single, 'POST', 'points', { with_payload: true }, /ids: missing required field/],
  ['retrieve: an unknown vector name in with_vector', named, 'POST', 'points', { ids: [1], with_vector: ['audio'] }, /with_vector: Not existing vector name/],
  ['get point: a bad id in the path', single, 'GET', 'points/not-an-id', undefined, /value "not-an-id" is not a valid point ID/],
  ['a bad wait value', single, 'PUT', 'points?wait=perhaps', { points: [{ id: 2, vector: [1, 2, 3] }] }, /wait/],
];

describe('bad input is refused before anything is written', () => {
  it.each(cases)('%s — 400 naming the problem, collection unchanged', async (_description, collection, method, path, body, expected) => {
    const before = await snapshot(collection);
    const response = await server.request(method, `/collections/${collection}/${path}`, body);
    expect(response.status).toBe(400);
    expect(response.body.status.error).toMatch(expected);
    expect(response.body).not.toHaveProperty('result');
    expect(await snapshot(collection)).toEqual(before);
  });
});
