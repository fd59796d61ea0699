// Collection routes over the wire (docs/api.md §3, §4): create, info, list, update, exists,
// delete, and the 404 / 409 / 412 messages every collection route shares.
import { describe, expect, it } from 'vitest';
import { createWithPoints, dimension } from '../support/base-points.js';
import { expectError, expectSuccess } from '../support/envelope.js';
import { serverForFile } from '../support/server.js';

const server = serverForFile();

describe('collections', () => {
  it('PUT C — true; 409 Collection already exists: {name}', async () => {
    expect(expectSuccess(await server.request('PUT', '/collections/c-create', { vectors_config: { size: 3, distance: 'Dot' } }))).toBe(true);
    expectError(await server.request('PUT', '/collections/c-create', { vectors_config: { size: 3, distance: 'Dot' } }), 409, 'Collection already exists: c-create');
  });

  it('PUT C — 400 vectors_config is required without vectors_config, vectors or sparse_vectors', async () => {
    expectError(await server.request('PUT', '/collections/c-novectors', {}), 400, 'vectors_config is required');
    expectError(await server.request('PUT', '/collections/c-novectors', { hnsw_config: { m: 8 } }), 400, 'vectors_config is required');
    expectError(await server.request('PUT', '/collections/c-novectors', { vectors_config: null }), 400, 'vectors_config is required');
    expect(expectSuccess(await server.request('GET', '/collections/c-novectors/exists'))).toEqual({ exists: false });
  });

  it('GET C — CollectionInfo has every field docs/api.md §4 lists', async () => {
    await createWithPoints(server, 'c-info');
    const info = expectSuccess(await server.request('GET', '/collections/c-info'));
    for (const key of ['status', 'optimizer_status', 'indexed_vectors_count', 'points_count', 'segments_count', 'config', 'payload_schema']) expect(info).toHaveProperty(key);
    expect(['green', 'yellow', 'grey', 'red']).toContain(info.status);
    expect(info.optimizer_status).toBe('ok');
    expect(info.points_count).toBe(5);
    expect(Number.isInteger(info.indexed_vectors_count)).toBe(true);
    expect(Number.isInteger(info.segments_count)).toBe(true);
    for (const key of ['params', 'hnsw_config', 'optimizer_config', 'wal_config', 'quantization_config']) expect(info.config).toHaveProperty(key);
    for (const key of ['vectors', 'shard_number', 'replication_factor', 'write_consistency_factor', 'on_disk_payload']) expect(info.config.params).toHaveProperty(key);
    expect(info.config.params.vectors).toEqual({ size: dimension, distance: 'Cosine' });
    expect(info.config.hnsw_config).toMatchObject({ m: 16, ef_construct: 100, full_scan_threshold: 10000 });
    // The fields the Qdrant client types mark as required in the nested configs.
    for (const key of ['deleted_threshold', 'vacuum_min_vector_number', 'default_segment_number', 'flush_interval_sec']) expect(info.config.optimizer_config).toHaveProperty(key);
    for (const key of ['wal_capacity_mb', 'wal_segments_ahead']) expect(info.config.wal_config).toHaveProperty(key);
    expect(info.payload_schema).toEqual({});
  });

  it('GET C — 404 Collection not found: {name} on every collection route', async () => {
    const message = 'Collection not found: c-missing';
    const routes: [string, string, unknown?][] = [
      ['GET', '/collections/c-missing'],
      ['PATCH', '/collections/c-missing', { optimizers_config: { indexing_threshold: 100 } }],
      ['PUT', '/collections/c-missing/points', { points: [{ id: 1, vector: [1, 2, 3, 4] }] }],
      ['POST', '/collections/c-missing/points', { ids: [1] }],
      ['GET', '/collections/c-missing/points/1'],
      ['POST', '/collections/c-missing/points/delete', { points: [1] }],
      ['PUT', '/collections/c-missing/points/vectors', { points: [{ id: 1, vector: [1, 2, 3, 4] }] }],
      ['POST', '/collections/c-missing/points/payload', { payload: { a: 1 }, points: [1] }],
      ['PUT', '/collections/c-missing/points/payload', { payload: { a: 1 }, points: [1] }],
      ['POST', '/collections/c-missing/points/payload/delete', { keys: ['a'], points: [1] }],
      ['POST', '/collections/c-missing/points/payload/clear', { points: [1] }],
      ['PUT', '/collections/c-missing/index', { field_name: 'a', field_schema: 'keyword' }],
      ['DELETE', '/collections/c-missing/index/a'],
      ['POST', '/collections/c-missing/points/count', {}],
      ['POST', '/collections/c-missing/points/search', { vector: [1, 2, 3, 4], limit: 3 }],
      ['POST', '/collections/c-missing/points/search/batch', { searches: [{ vector: [1, 2, 3, 4], limit: 3 }] }],
      ['POST', '/collections/c-missing/points/query', { query: [1, 2, 3, 4] }],
      ['POST', '/collections/c-missing/points/query/batch', { searches: [{ query: [1, 2, 3, 4] }] }],
      ['POST', '/collections/c-missing/points/scroll', {}],
    ];
    for (const [method, path, body] of routes) {
      const response = await server.request(method, path, body);
      expect(`${method} ${path} ${response.status} ${response.body?.status?.error}`).toBe(`${method} ${path} 404 ${message}`);
      expectError(response, 404, message);
    }
  });

  it('GET /collections — sorted by name, each entry exactly {name}', async () => {
    for (const name of ['c-zeta', 'c-alpha', 'c-Mid']) expectSuccess(await server.request('PUT', `/collections/${name}`, { vectors: { size: 2, distance: 'Euclid' } }));
    const result = expectSuccess(await server.request('GET', '/collections'));
    expect(Object.keys(result)).toEqual(['collections']);
    const names = result.collections.map((entry: { name: string }) => entry.name);
    expect(names).toEqual([...names].sort((left: string, right: string) => (left < right ? -1 : left > right ? 1 : 0)));
    for (const entry of result.collections) expect(Object.keys(entry)).toEqual(['name']);
    expect(names).toEqual(expect.arrayContaining(['c-zeta', 'c-alpha', 'c-Mid']));
  });

  it('PATCH C — true; exists — {exists: bool}', async () => {
    expectSuccess(await server.request('PUT', '/collections/c-patch', { vectors: { size: 2, distance: 'Euclid' } }));
    expect(expectSuccess(await server.request('PATCH', '/collections/c-patch', { optimizers_config: { indexing_threshold: 100 }, metadata: { team: 'x' } }))).toBe(true);
    const info = expectSuccess(await server.request('GET', '/collections/c-patch'));
    expect(info.config.metadata).toEqual({ team: 'x' });
    expect(expectSuccess(await server.request('GET', '/collections/c-patch/exists'))).toEqual({ exists: true });
    expect(expectSuccess(await server.request('GET', '/collections/c-never/exists'))).toEqual({ exists: false });
  });

  it('DELETE C — true when it existed, false (200) when it did not', async () => {
    expectSuccess(await server.request('PUT', '/collections/c-delete', { vectors: { size: 2, distance: 'Euclid' } }));
    expect(expectSuccess(await server.request('DELETE', '/collections/c-delete'))).toBe(true);
    expect(expectSuccess(await server.request('DELETE', '/collections/c-delete'))).toBe(false);
    expect(expectSuccess(await server.request('GET', '/collections/c-delete/exists'))).toEqual({ exists: false });
    expectError(await server.request('GET', '/collections/c-delete'), 404, 'Collection not found: c-delete');
  });

  it('collection marked for deletion — 412 Collection {name} is marked for deletion', async () => {
    expectSuccess(await server.request('PUT', '/collections/c-marked', { vectors: { size: 2, distance: 'Euclid' } }));
    // The window between marking and removal is too short to hit over HTTP: mark it directly.
    server.app.collections.get('c-marked').markForDeletion();
    const message = 'Collection c-marked is marked for deletion';
    expectError(await server.request('GET', '/collections/c-marked'), 412, message);
    expectError(await server.request('PUT', '/collections/c-marked/points?wait=true', { points: [{ id: 1, vector: [1, 2] }] }), 412, message);
    expectError(await server.request('POST', '/collections/c-marked/points/search', { vector: [1, 2], limit: 1 }), 412, message);
    expectError(await server.request('PUT', '/collections/c-marked', { vectors: { size: 2, distance: 'Euclid' } }), 412, message);
    expectError(await server.request('DELETE', '/collections/c-marked'), 412, message);
  });
});
