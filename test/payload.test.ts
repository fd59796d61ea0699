// Payload operations, payload indexes and count over HTTP, driven by the official Qdrant client
// (raw requests only where the client cannot send what is tested).
import { describe, expect, it } from 'vitest';
import { dataDirectoriesForFile, serverForFile, startServer } from './support/server.js';

const server = serverForFile();
const newDirectory = dataDirectoriesForFile();
let counter = 0;

async function newCollection(points: { id: number | string; payload?: Record<string, unknown> }[] = []): Promise<string> {
  counter += 1;
  const name = `payload-${counter}`;
  await server.client.createCollection(name, { vectors: { size: 2, distance: 'Euclid' } });
  if (points.length > 0) {
    await server.client.upsert(name, { wait: true, points: points.map((point, position) => ({ id: point.id, vector: [position, 1], payload: point.payload ?? {} })) });
  }
  return name;
}

async function payloadOf(name: string, id: number | string): Promise<unknown> {
  const [record] = await server.client.retrieve(name, { ids: [id], with_payload: true });
  return record?.payload;
}

describe('payload operations through the official client', () => {
  it('set payload merges top-level keys; null deletes a key', async () => {
    const name = await newCollection([{ id: 1, payload: { a: 1, b: 2 } }, { id: 2, payload: { a: 5 } }]);
    const result = await server.client.setPayload(name, { wait: true, points: [1], payload: { b: null, c: 3 } });
    expect(result).toEqual({ operation_id: expect.any(Number), status: 'completed' });
    expect(await payloadOf(name, 1)).toEqual({ a: 1, c: 3 });
    expect(await payloadOf(name, 2)).toEqual({ a: 5 });
  });

  it('set payload with key merges into the nested object, creating missing objects', async () => {
    const name = await newCollection([{ id: 1, payload: { a: { x: 1 } } }]);
    await server.client.setPayload(name, { wait: true, points: [1], payload: { y: 2 }, key: 'a' });
    await server.client.setPayload(name, { wait: true, points: [1], payload: { z: 3 }, key: 'p.q' });
    expect(await payloadOf(name, 1)).toEqual({ a: { x: 1, y: 2 }, p: { q: { z: 3 } } });
  });

  it('set payload by filter touches exactly the points the filter accepts', async () => {
    const name = await newCollection([{ id: 1, payload: { color: 'red' } }, { id: 2, payload: { color: 'blue' } }, { id: 3, payload: { color: 'red' } }]);
    await server.client.setPayload(name, { wait: true, filter: { must: [{ key: 'color', match: { value: 'red' } }] }, payload: { hot: true } });
    expect(await payloadOf(name, 1)).toEqual({ color: 'red', hot: true });
    expect(await payloadOf(name, 2)).toEqual({ color: 'blue' });
    expect(await payloadOf(name, 3)).toEqual({ color: 'red', hot: true });
  });

  it('overwrite payload replaces the whole payload', async () => {
    const name = await newCollection([{ id: 1, payload: { a: 1, b: 2 } }]);
    await server.client.overwritePayload(name, { wait: true, points: [1], payload: { c: 3 } });
    expect(await payloadOf(name, 1)).toEqual({ c: 3 });
  });

  it('delete payload keys removes keys and paths; absent keys are ignored', async () => {
    const name = await newCollection([{ id: 1, payload: { a: 1, b: { c: 2, d: 3 }, e: 4 } }]);
    await server.client.deletePayload(name, { wait: true, points: [1], keys: ['a', 'b.c', 'missing'] });
    expect(await payloadOf(name, 1)).toEqual({ b: { d: 3 }, e: 4 });
  });

  it('delete payload keys refuses a filter with 400 (docs/api.md §3.3: ids only)', async () => {
    const name = await newCollection([{ id: 1, payload: { a: 1 } }]);
    const response = await server.request('POST', `/collections/${name}/points/payload/delete?wait=true`, { keys: ['a'], filter: { must: [] } });
    expect(response.status).toBe(400);
    expect(response.body.status.error).toMatch(/^filter: .*filter-based targeting is unavailable/);
    expect(await payloadOf(name, 1)).toEqual({ a: 1 });
  });

  it('clear payload empties it, by ids or by filter', async () => {
    const name = await newCollection([{ id: 1, payload: { a: 1 } }, { id: 2, payload: { a: 2 } }, { id: 3, payload: { a: 3 } }]);
    await server.client.clearPayload(name, { wait: true, points: [1] });
    await server.client.clearPayload(name, { wait: true, filter: { must: [{ key: 'a', range: { gte: 3 } }] } });
    expect(await payloadOf(name, 1)).toEqual({});
    expect(await payloadOf(name, 2)).toEqual({ a: 2 });
    expect(await payloadOf(name, 3)).toEqual({});
  });

  it('a payload write to a missing point id is a 404 and changes nothing', async () => {
    const name = await newCollection([{ id: 1, payload: { a: 1 } }]);
    const response = await server.request('POST', `/collections/${name}/points/payload?wait=true`, { points: [1, 99], payload: { b: 1 } });
    expect(response.status).toBe(404);
    expect(await payloadOf(name, 1)).toEqual({ a: 1 });
  });

  it('a malformed key path or filter is a 400 naming it', async () => {
    const name = await newCollection([{ id: 1 }]);
    const badKey = await server.request('POST', `/collections/${name}/points/payload`, { points: [1], payload: { b: 1 }, key: 'a[' });
    expect(badKey.status).toBe(400);
    expect(badKey.body.status.error).toMatch(/^key: /);
    const badFilter = await server.request('POST', `/collections/${name}/points/payload`, { filter: { must: [{ key: 'a', match: { value: 1.5 } }] }, payload: { b: 1 } });
    expect(badFilter.status).toBe(400);
    expect(badFilter.body.status.error).toMatch(/^filter\.must\[0\]\.match\.value: /);
  });
});

describe('payload indexes', () => {
  it('an index shows in payload_schema with its point count and follows every write', async () => {
    const name = await newCollection([{ id: 1, payload: { city: 'Oslo' } }, { id: 2, payload: { city: ['Rome', 'Oslo'] } }, { id: 3, payload: { n: 1 } }]);
    await server.client.createPayloadIndex(name, { wait: true, field_name: 'city', field_schema: 'keyword' });
    await server.client.createPayloadIndex(name, { wait: true, field_name: 'n', field_schema: { type: 'integer', lookup: true, range: true } });
    let info = await server.client.getCollection(name);
    expect(info.payload_schema).toEqual({
      city: { data_type: 'keyword', points: 2 },
      n: { data_type: 'integer', params: { type: 'integer', lookup: true, range: true }, points: 1 },
    });
    await server.client.setPayload(name, { wait: true, points: [3], payload: { city: 'Paris' } });
    await server.client.delete(name, { wait: true, points: [1] });
    info = await server.client.getCollection(name);
    expect(info.payload_schema.city?.points).toBe(2);
    expect((await server.client.count(name, { filter: { must: [{ key: 'city', match: { value: 'Oslo' } }] } })).count).toBe(1);
    await server.client.deletePayloadIndex(name, 'city', { wait: true });
    info = await server.client.getCollection(name);
    expect(Object.keys(info.payload_schema)).toEqual(['n']);
  });

  it('a bad field schema is a 400 naming the part', async () => {
    const name = await newCollection();
    const response = await server.request('PUT', `/collections/${name}/index`, { field_name: 'a', field_schema: { type: 'text', tokenizer: 'ngram' } });
    expect(response.status).toBe(400);
    expect(response.body.status.error).toMatch(/^field_schema\.tokenizer: /);
  });

  it('indexes are persisted and rebuilt at start', async () => {
    const restartDirectory = await newDirectory();
    let restarted = await startServer(restartDirectory);
    try {
      await restarted.client.createCollection('kept', { vectors: { size: 2, distance: 'Dot' } });
      await restarted.client.upsert('kept', { wait: true, points: [{ id: 1, vector: [1, 0], payload: { tag: 'a' } }, { id: 2, vector: [0, 1], payload: { tag: 'b' } }] });
      await restarted.client.createPayloadIndex('kept', { wait: true, field_name: 'tag', field_schema: 'keyword' });
      await restarted.close();
      restarted = await startServer(restartDirectory);
      const info = await restarted.client.getCollection('kept');
      expect(info.payload_schema).toEqual({ tag: { data_type: 'keyword', points: 2 } });
      expect((await restarted.client.count('kept', { filter: { must: [{ key: 'tag', match: { value: 'b' } }] } })).count).toBe(1);
    } finally {
      await restarted.close();
    }
  });
});

describe('count and delete by filter', () => {
  it('count is exact by default and close with exact: false', async () => {
    const points = Array.from({ length: 50 }, (_, id) => ({ id, payload: { even: id % 2 === 0, n: id } }));
    const name = await newCollection(points);
    expect((await server.client.count(name, {})).count).toBe(50);
    expect((await server.client.count(name, { filter: { must: [{ key: 'even', match: { value: true } }] } })).count).toBe(25);
    expect((await server.client.count(name, { exact: false, filter: { must: [{ key: 'n', range: { lt: 10 } }] } })).count).toBe(10);
  });

  it('has_vector and nested conditions see the stored point, inside nested too', async () => {
    const name = await newCollection([{ id: 1, payload: { items: [{ a: 1 }, { a: 2 }] } }, { id: 2, payload: { items: [{ a: 3 }] } }]);
    expect((await server.client.count(name, { filter: { must: [{ has_vector: '' }] } })).count).toBe(2);
    expect((await server.client.count(name, { filter: { must: [{ has_vector: 'other' }] } })).count).toBe(0);
    const nested = { nested: { key: 'items', filter: { must: [{ key: 'a', range: { gte: 2 } }, { has_vector: '' }] } } };
    expect((await server.client.count(name, { filter: { must: [nested] } as never })).count).toBe(2);
  });

  it('count refuses a malformed filter with 400', async () => {
    const name = await newCollection();
    const response = await server.request('POST', `/collections/${name}/points/count`, { filter: { must: [{ key: 'a', range: { gt: 'soon' } }] } });
    expect(response.status).toBe(400);
    expect(response.body.status.error).toBe('filter.must[0].range.gt: expected an RFC 3339 datetime, got "soon"');
  });

  it('delete by filter removes exactly the accepted points', async () => {
    const points = Array.from({ length: 20 }, (_, id) => ({ id, payload: { group: id % 4 } }));
    const name = await newCollection(points);
    await server.client.delete(name, { wait: true, filter: { must: [{ key: 'group', match: { any: [1, 2] } }] } });
    expect((await server.client.count(name, {})).count).toBe(10);
    expect((await server.client.count(name, { filter: { must: [{ key: 'group', match: { any: [1, 2] } }] } })).count).toBe(0);
  });
});
