// Collections over HTTP, through the official Qdrant JS client and raw requests (docs/api.md §3-4).
import { describe, expect, it } from 'vitest';
import { serverForFile } from './support/server.js';

const server = serverForFile();

describe('create and describe', () => {
  it.each(['Cosine', 'Euclid', 'Dot', 'Manhattan'] as const)('create — a single unnamed %s vector is echoed in CollectionInfo', async (distance) => {
    const name = `single-${distance}`;
    expect(await server.client.createCollection(name, { vectors: { size: 4, distance } })).toBe(true);
    const info = await server.client.getCollection(name);
    expect(info.config.params.vectors).toEqual({ size: 4, distance });
    expect(info.points_count).toBe(0);
    expect(info.status).toBe('green');
    expect(info.config.hnsw_config).toMatchObject({ m: 16, ef_construct: 100, full_scan_threshold: 10000 });
  });

  it('create — named vectors and every optional config are validated, stored and echoed', async () => {
    const created = await server.request('PUT', '/collections/everything', {
      vectors_config: {
        image: { size: 3, distance: 'Dot', hnsw_config: { m: 8 }, on_disk: true },
        text: { size: 5, distance: 'Cosine', quantization_config: { scalar: { type: 'int8', quantile: 0.99 } } },
      },
      hnsw_config: { m: 32, ef_construct: 200, payload_m: 8 },
      optimizers_config: { indexing_threshold: 5000, deleted_threshold: 0.3 },
      wal_config: { wal_capacity_mb: 64 },
      quantization_config: { scalar: { type: 'int8', quantile: 0.99, always_ram: true } },
      on_disk_payload: false,
      shard_number: 2,
      replication_factor: 3,
      write_consistency_factor: 2,
      sharding_method: 'auto',
      sparse_vectors: { keywords: { modifier: 'idf' } },
      metadata: { owner: 'tests', nested: { level: 1 } },
    });
    expect(created.status).toBe(200);
    expect(created.body.result).toBe(true);
    const info = await server.client.getCollection('everything');
    expect(info.config.params).toMatchObject({
      vectors: {
        image: { size: 3, distance: 'Dot', hnsw_config: { m: 8 }, on_disk: true },
        text: { size: 5, distance: 'Cosine', quantization_config: { scalar: { type: 'int8', quantile: 0.99 } } },
      },
      shard_number: 2,
      replication_factor: 3,
      write_consistency_factor: 2,
      on_disk_payload: false,
      sparse_vectors: { keywords: { modifier: 'idf' } },
    });
    expect(info.config.hnsw_config).toMatchObject({ m: 32, ef_construct: 200, payload_m: 8, full_scan_threshold: 10000 });
    expect(info.config.optimizer_config).toMatchObject({ indexing_threshold: 5000, deleted_threshold: 0.3 });
    expect(info.config.wal_config).toMatchObject({ wal_capacity_mb: 64 });
    expect(info.config.quantization_config).toEqual({ scalar: { type: 'int8', quantile: 0.99, always_ram: true } });
    expect((info.config as Record<string, unknown>).metadata).toEqual({ owner: 'tests', nested: { level: 1 } });
  });

  it('create — null means default', async () => {
    const created = await server.request('PUT', '/collections/nulls', { vectors: { size: 2, distance: 'Euclid', hnsw_config: null }, hnsw_config: null, shard_number: null });
    expect(created.status).toBe(200);
    const info = await server.client.getCollection('nulls');
    expect(info.config.params.shard_number).toBe(1);
    expect(info.config.params.vectors).toEqual({ size: 2, distance: 'Euclid' });
  });

  it('create — an existing name answers 409', async () => {
    await server.client.createCollection('twice', { vectors: { size: 2, distance: 'Dot' } });
    const again = await server.request('PUT', '/collections/twice', { vectors: { size: 2, distance: 'Dot' } });
    expect(again.status).toBe(409);
    expect(again.body.status.error).toBe('Collection already exists: twice');
  });

  it('create — neither vectors_config nor vectors answers 400 vectors_config is required', async () => {
    const response = await server.request('PUT', '/collections/novectors', { shard_number: 1 });
    expect(response.status).toBe(400);
    expect(response.body.status.error).toBe('vectors_config is required');
    expect((await server.client.collectionExists('novectors')).exists).toBe(false);
  });

  it.each([
    [{ vectors: { size: 0, distance: 'Cosine' } }, 'size'],
    [{ vectors: { size: 70000, distance: 'Cosine' } }, 'size'],
    [{ vectors: { size: 4, distance: 'Hamming' } }, 'distance'],
    [{ vectors: { size: 4, distance: 'Cosine' }, hnsw_config: { m: -1 } }, 'hnsw_config.m'],
    [{ vectors: { size: 4, distance: 'Cosine' }, quantization_config: { scalar: { type: 'int4' } } }, 'quantization_config'],
    [{ vectors: { size: 4, distance: 'Cosine' }, vectors_config: { size: 4, distance: 'Cosine' } }, 'vectors'],
  ])('create — a bad config %j answers 400 naming %s', async (body, field) => {
    const response = await server.request('PUT', '/collections/badconfig', body);
    expect(response.status).toBe(400);
    expect(response.body.status.error).toContain(field);
    expect((await server.client.collectionExists('badconfig')).exists).toBe(false);
  });

  it.each(['a/b', 'a\\b', 'a:b', 'a*b', 'a?b', 'a"b', 'a<b', 'a>b', 'a|b', 'tab\there'])('create — the name %j is refused with 400', async (name) => {
    const response = await server.request('PUT', `/collections/${encodeURIComponent(name)}`, { vectors: { size: 2, distance: 'Dot' } });
    expect(response.status).toBe(400);
    expect(response.body.status.error).toContain('collection_name');
  });

  it('create — a name longer than 255 characters is refused, 255 is accepted', async () => {
    const tooLong = await server.request('PUT', `/collections/${'n'.repeat(256)}`, { vectors: { size: 2, distance: 'Dot' } });
    expect(tooLong.status).toBe(400);
    const longest = await server.request('PUT', `/collections/${'n'.repeat(255)}`, { vectors: { size: 2, distance: 'Dot' } });
    expect(longest.status).toBe(200);
  });
});

describe('list, exists, update, delete', () => {
  it('list — collections are sorted by name', async () => {
    for (const name of ['zeta', 'alpha', 'Mid']) await server.client.createCollection(name, { vectors: { size: 2, distance: 'Dot' } });
    const { collections } = await server.client.getCollections();
    const names = collections.map((collection) => collection.name);
    expect(names).toEqual([...names].sort());
    expect(names).toEqual(expect.arrayContaining(['zeta', 'alpha', 'Mid']));
  });

  it('exists — true for a collection, false otherwise', async () => {
    await server.client.createCollection('present', { vectors: { size: 2, distance: 'Dot' } });
    expect(await server.client.collectionExists('present')).toEqual({ exists: true });
    expect(await server.client.collectionExists('absent')).toEqual({ exists: false });
  });

  it('get — a missing collection answers 404 Collection not found', async () => {
    const response = await server.request('GET', '/collections/missing');
    expect(response.status).toBe(404);
    expect(response.body.status.error).toBe('Collection not found: missing');
  });

  it('update — options and metadata are merged; a null metadata key is removed', async () => {
    await server.request('PUT', '/collections/patched', {
      vectors: { dense: { size: 2, distance: 'Dot' } },
      metadata: { keep: 1, drop: 2 },
    });
    expect(
      await server.client.updateCollection('patched', {
        optimizers_config: { indexing_threshold: 777 },
        hnsw_config: { ef_construct: 321 },
        vectors: { dense: { hnsw_config: { m: 4 }, on_disk: true } },
        params: { replication_factor: 2, on_disk_payload: false },
        metadata: { drop: null, added: 'yes' },
      } as never),
    ).toBe(true);
    const info = await server.client.getCollection('patched');
    expect(info.config.optimizer_config.indexing_threshold).toBe(777);
    expect(info.config.hnsw_config.ef_construct).toBe(321);
    expect(info.config.params.vectors).toMatchObject({ dense: { size: 2, distance: 'Dot', hnsw_config: { m: 4 }, on_disk: true } });
    expect(info.config.params.replication_factor).toBe(2);
    expect(info.config.params.on_disk_payload).toBe(false);
    expect((info.config as Record<string, unknown>).metadata).toEqual({ keep: 1, added: 'yes' });
  });

  it('update — a missing collection answers 404; an unknown vector name 400', async () => {
    expect((await server.request('PATCH', '/collections/nowhere', { optimizers_config: {} })).status).toBe(404);
    await server.client.createCollection('patch-names', { vectors: { size: 2, distance: 'Dot' } });
    const response = await server.request('PATCH', '/collections/patch-names', { vectors: { nope: { on_disk: true } } });
    expect(response.status).toBe(400);
    expect(response.body.status.error).toContain('nope');
  });

  it('delete — true when it existed, false otherwise; the name can be reused with fresh data', async () => {
    await server.client.createCollection('doomed', { vectors: { size: 2, distance: 'Dot' } });
    await server.client.upsert('doomed', { wait: true, points: [{ id: 1, vector: [1, 2], payload: { old: true } }] });
    expect(await server.client.deleteCollection('doomed')).toBe(true);
    expect(await server.client.deleteCollection('doomed')).toBe(false);
    expect((await server.client.collectionExists('doomed')).exists).toBe(false);
    expect((await server.request('GET', '/collections/doomed')).status).toBe(404);
    await server.client.createCollection('doomed', { vectors: { size: 2, distance: 'Dot' } });
    const info = await server.client.getCollection('doomed');
    expect(info.points_count).toBe(0);
    expect(await server.client.retrieve('doomed', { ids: [1] })).toEqual([]);
  });

  it('delete — a collection marked for deletion answers 412 on its operations', async () => {
    await server.client.createCollection('marked', { vectors: { size: 2, distance: 'Dot' } });
    server.app.collections.find('marked')!.markForDeletion();
    for (const [method, path, body] of [
      ['GET', '/collections/marked', undefined],
      ['PUT', '/collections/marked/points', { points: [{ id: 1, vector: [1, 2] }] }],
      ['POST', '/collections/marked/points', { ids: [1] }],
      ['DELETE', '/collections/marked', undefined],
    ] as const) {
      const response = await server.request(method, path, body);
      expect(response.status, `${method} ${path}`).toBe(412);
      expect(response.body.status.error).toBe('Collection marked is marked for deletion');
    }
  });
});
