// Point routes through the official Qdrant JS client (docs/api.md §3, §10): every call the client
// makes is accepted and answered in the shape it expects, and its errors carry the contract's codes.
import { beforeAll, describe, expect, it } from 'vitest';
import { basePoints, dimension, holdKernelUpdates } from '../support/base-points.js';
import { clientStatus, expectSuccess, expectWriteResult } from '../support/envelope.js';
import { serverForFile } from '../support/server.js';

const server = serverForFile();

describe('points — through the official client', () => {
  const name = 'p-client';
  beforeAll(async () => {
    expect(await server.client.createCollection(name, { vectors: { size: dimension, distance: 'Dot' } })).toBe(true);
  });

  it('collectionExists, getCollection, getCollections', async () => {
    expect(await server.client.collectionExists(name)).toEqual({ exists: true });
    expect(await server.client.collectionExists('p-client-none')).toEqual({ exists: false });
    const info = await server.client.getCollection(name);
    expect(info.config.params.vectors).toEqual({ size: dimension, distance: 'Dot' });
    const listed = await server.client.getCollections();
    expect(listed.collections.map((entry) => entry.name)).toContain(name);
  });

  it('upsert, retrieve, count, scroll', async () => {
    const upserted = await server.client.upsert(name, { wait: true, points: basePoints });
    expect(upserted).toEqual({ operation_id: expect.any(Number), status: 'completed' });
    // The client waits by default; wait=false is the acknowledged form.
    const acknowledged = await server.client.upsert(name, { wait: false, points: [{ id: 6, vector: [2, 2, 2, 2], payload: { city: 'Oslo' } }] });
    expect(acknowledged.status).toBe('acknowledged');
    const records = await server.client.retrieve(name, { ids: [1, 6], with_vector: true });
    expect(records.map((record) => record.id).sort()).toEqual([1, 6]);
    expect(records.find((record) => record.id === 6)).toEqual({ id: 6, payload: { city: 'Oslo' }, vector: [2, 2, 2, 2] });
    expect(await server.client.count(name, { exact: true })).toEqual({ count: 6 });
    const page = await server.client.scroll(name, { limit: 4, with_payload: false });
    expect(page.points.map((point) => point.id)).toEqual([1, 2, 3, 4]);
    expect(page.next_page_offset).toBe(5);
  });

  it('an acknowledged upsert reads back whole before the kernel has it (never the new payload without its vector)', async () => {
    const release = holdKernelUpdates(server, name);
    try {
      expect((await server.client.upsert(name, { wait: false, points: [{ id: 7, vector: [3, 3, 3, 3], payload: { city: 'Bergen' } }] })).status).toBe('acknowledged');
      expect(await server.client.retrieve(name, { ids: [7], with_vector: true })).toEqual([{ id: 7, payload: { city: 'Bergen' }, vector: [3, 3, 3, 3] }]);
      expect((await server.request('GET', `/collections/${name}/points/7`)).body.result).toEqual({ id: 7, payload: { city: 'Bergen' }, vector: [3, 3, 3, 3] });
    } finally {
      release();
    }
  });

  it('an acknowledged vector update reads back its new vector before the kernel has it', async () => {
    const release = holdKernelUpdates(server, name);
    try {
      expect((await server.client.updateVectors(name, { wait: false, points: [{ id: 7, vector: [0, 0, 0, 5] }] })).status).toBe('acknowledged');
      expect(await server.client.retrieve(name, { ids: [7], with_vector: true, with_payload: false })).toEqual([{ id: 7, vector: [0, 0, 0, 5] }]);
    } finally {
      release();
    }
    await server.client.delete(name, { wait: true, points: [7] });
    expect(await server.client.retrieve(name, { ids: [7] })).toEqual([]);
  });

  it('query with payload, query, queryBatch (1.19 has no search/searchBatch)', async () => {
    const found = await server.client.query(name, { query: [0, 0, 0, 1], limit: 1, with_payload: true });
    expect(found.points[0]).toEqual({ id: 6, version: expect.any(Number), score: 2, payload: { city: 'Oslo' } });
    const queried = await server.client.query(name, { query: [0, 0, 1, 0], limit: 2 });
    expect(queried.points.map((point) => point.id)).toEqual([6, 3]);
    const queriedBatch = await server.client.queryBatch(name, { searches: [{ query: [1, 0, 0, 0], limit: 1 }, { limit: 2 }] });
    expect(queriedBatch.map((entry) => entry.points.length)).toEqual([1, 2]);
  });

  it('setPayload, deletePayload, clearPayload, createPayloadIndex', async () => {
    expect((await server.client.setPayload(name, { wait: true, points: [2], payload: { color: 'red' } })).status).toBe('completed');
    expect((await server.client.retrieve(name, { ids: [2] }))[0]!.payload).toEqual({ city: 'London', rank: 2, color: 'red' });
    expect((await server.client.deletePayload(name, { wait: true, points: [2], keys: ['color', 'rank'] })).status).toBe('completed');
    expect((await server.client.retrieve(name, { ids: [2] }))[0]!.payload).toEqual({ city: 'London' });
    expect((await server.client.clearPayload(name, { wait: true, points: [2] })).status).toBe('completed');
    expect((await server.client.retrieve(name, { ids: [2] }))[0]!.payload).toEqual({});
    const indexed = await server.client.createPayloadIndex(name, { wait: true, field_name: 'city', field_schema: 'keyword' });
    expect(indexed).toEqual({ operation_id: expect.any(Number), status: 'completed' });
    expect((await server.client.getCollection(name)).payload_schema.city).toMatchObject({ data_type: 'keyword' });
  });

  it('updateVectors, delete', async () => {
    expect((await server.client.updateVectors(name, { wait: true, points: [{ id: 5, vector: [0, 0, 0, 9] }] })).status).toBe('completed');
    expect((await server.client.retrieve(name, { ids: [5], with_vector: true, with_payload: false }))[0]).toEqual({ id: 5, vector: [0, 0, 0, 9] });
    expect((await server.client.delete(name, { wait: true, points: [5, 6] })).status).toBe('completed');
    expect(await server.client.count(name)).toEqual({ count: 4 });
  });

  it('client errors carry the contract status codes', async () => {
    expect((await clientStatus(server.client.getCollection('p-client-none'))).status).toBe(404);
    expect((await clientStatus(server.client.createCollection(name, { vectors: { size: 4, distance: 'Dot' } }))).status).toBe(409);
    expect((await clientStatus(server.client.upsert(name, { wait: true, points: [{ id: 1, vector: [1, 2] }] }))).status).toBe(400);
  });

  it('overwritePayload, updateCollection, deletePayloadIndex', async () => {
    expect((await server.client.overwritePayload(name, { wait: true, points: [3], payload: { only: 1 } })).status).toBe('completed');
    expect((await server.client.retrieve(name, { ids: [3] }))[0]!.payload).toEqual({ only: 1 });
    expect(await server.client.updateCollection(name, { optimizers_config: { indexing_threshold: 2000 } })).toBe(true);
    expect((await server.client.getCollection(name)).config.optimizer_config.indexing_threshold).toBe(2000);
    expect((await server.client.deletePayloadIndex(name, 'city', { wait: true })).status).toBe('completed');
    expect((await server.client.getCollection(name)).payload_schema).toEqual({});
  });

  it('upsert update_mode — insert_only keeps an existing point, update_only skips a missing one', async () => {
    await server.client.upsert(name, { wait: true, points: [{ id: 40, vector: [1, 1, 1, 1], payload: { v: 1 } }] });
    expectWriteResult(expectSuccess(await server.request('PUT', `/collections/${name}/points?wait=true`, { points: [{ id: 40, vector: [2, 2, 2, 2], payload: { v: 2 } }], update_mode: 'insert_only' })), true);
    expect((await server.client.retrieve(name, { ids: [40] }))[0]!.payload).toEqual({ v: 1 });
    expectWriteResult(expectSuccess(await server.request('PUT', `/collections/${name}/points?wait=true&update_mode=update_only`, { points: [{ id: 41, vector: [2, 2, 2, 2] }] })), true);
    expect(await server.client.retrieve(name, { ids: [41] })).toEqual([]);
    await server.client.delete(name, { wait: true, points: [40] });
  });

  it('deleteCollection — true, then false', async () => {
    expectSuccess(await server.request('PUT', '/collections/p-client-gone', { vectors: { size: 2, distance: 'Dot' } }));
    expect(await server.client.deleteCollection('p-client-gone')).toBe(true);
    expect(await server.client.deleteCollection('p-client-gone')).toBe(false);
  });
});
