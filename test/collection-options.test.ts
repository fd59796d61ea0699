// Collection options of Qdrant v1.19 (docs/api.md §4.1-4.3, §6.5): the "" vector name, the
// `quantization` alias, metadata, memory tiers, payload index enable_hnsw / memory / prefix —
// accepted, validated, echoed, and kept across a restart. Raw HTTP and the official JS client.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mulberry32 } from './support/seeded-random.js';
import { makeDataDirectory, removeDataDirectory, serverForFile, startServer } from './support/server.js';

const server = serverForFile();
const random = mulberry32(7);
const vector = (size: number) => Array.from({ length: size }, () => Math.round((random() * 2 - 1) * 1000) / 1000);

/** Slow reference: cosine similarity of two plain arrays. */
function cosine(left: number[], right: number[]): number {
  let dot = 0;
  let leftNorm = 0;
  let rightNorm = 0;
  left.forEach((value, position) => {
    dot += value * right[position]!;
    leftNorm += value * value;
    rightNorm += right[position]! * right[position]!;
  });
  return dot / Math.sqrt(leftNorm * rightNorm);
}

describe('the "" vector name', () => {
  // LangChain Python's exact create body for an unnamed vector.
  const langchainBody = { vectors: { '': { size: 64, distance: 'Cosine' } } };
  const points = Array.from({ length: 30 }, (_, id) => ({ id, vector: vector(64) }));

  beforeAll(async () => {
    const created = await server.request('PUT', '/collections/langchain', langchainBody);
    expect(created.status).toBe(200);
  });

  it('create — a map holding only "" is the unnamed vector, echoed in the map form it was given', async () => {
    const info = await server.client.getCollection('langchain');
    expect(info.config.params.vectors).toEqual({ '': { size: 64, distance: 'Cosine' } });
  });

  it('upsert — a plain list and {"": [...]} both write the unnamed vector; reads give a plain list', async () => {
    const plain = await server.request('PUT', '/collections/langchain/points?wait=true', { points: points.slice(0, 15) });
    expect(plain.status).toBe(200);
    const named = await server.request('PUT', '/collections/langchain/points?wait=true', {
      points: points.slice(15).map((point) => ({ id: point.id, vector: { '': point.vector } })),
    });
    expect(named.status).toBe(200);
    const [record] = await server.client.retrieve('langchain', { ids: [20], with_vector: true });
    expect(Array.isArray(record!.vector)).toBe(true);
    expect(cosine(record!.vector as number[], points[20]!.vector)).toBeCloseTo(1, 5);
  });

  it('query — using "" and no using find the same nearest points as a brute-force reference', async () => {
    const query = vector(64);
    const expected = [...points].sort((left, right) => cosine(query, right.vector) - cosine(query, left.vector)).slice(0, 5).map((point) => point.id);
    const withUsing = await server.client.query('langchain', { query, using: '', limit: 5 });
    const without = await server.client.query('langchain', { query, limit: 5 });
    expect(withUsing.points.map((point) => point.id)).toEqual(expected);
    expect(without.points.map((point) => point.id)).toEqual(expected);
  });

  it('create — "" beside other names is a vector like the others; a plain list writes it', async () => {
    const created = await server.request('PUT', '/collections/mixed-names', { vectors: { '': { size: 2, distance: 'Dot' }, text: { size: 3, distance: 'Dot' } } });
    expect(created.status).toBe(200);
    const written = await server.request('PUT', '/collections/mixed-names/points?wait=true', { points: [{ id: 1, vector: [1, 2] }, { id: 2, vector: { '': [3, 4], text: [1, 1, 1] } }] });
    expect(written.status).toBe(200);
    const records = await server.client.retrieve('mixed-names', { ids: [1, 2], with_vector: true });
    expect(records.find((record) => record.id === 2)!.vector).toEqual({ '': [3, 4], text: [1, 1, 1] });
    const found = await server.client.query('mixed-names', { query: [1, 1], using: '', limit: 1 });
    expect(found.points[0]!.id).toBe(2);
  });

  it('PATCH — vectors."" updates the unnamed vector of a map-declared collection', async () => {
    expect(await server.client.updateCollection('langchain', { vectors: { '': { on_disk: true } } })).toBe(true);
    const info = await server.client.getCollection('langchain');
    expect(info.config.params.vectors).toEqual({ '': { size: 64, distance: 'Cosine', on_disk: true } });
  });
});

describe('quantization alias', () => {
  it('create — quantization is stored and echoed as quantization_config, at the top and per vector', async () => {
    const created = await server.request('PUT', '/collections/alias', {
      vectors: { size: 4, distance: 'Dot', quantization: { binary: { always_ram: true } } },
      quantization: { scalar: { type: 'int8', quantile: 0.99 } },
    });
    expect(created.status).toBe(200);
    const info = await server.client.getCollection('alias');
    expect(info.config.quantization_config).toEqual({ scalar: { type: 'int8', quantile: 0.99 } });
    expect(info.config.params.vectors).toEqual({ size: 4, distance: 'Dot', quantization_config: { binary: { always_ram: true } } });
  });

  it('PATCH — quantization replaces, "Disabled" removes', async () => {
    expect(await server.client.updateCollection('alias', { quantization: { binary: { always_ram: true } } } as never)).toBe(true);
    expect((await server.client.getCollection('alias')).config.quantization_config).toEqual({ binary: { always_ram: true } });
    expect((await server.request('PATCH', '/collections/alias', { quantization: 'Disabled' })).status).toBe(200);
    expect((await server.client.getCollection('alias')).config.quantization_config).toBeNull();
  });

  it.each([
    [{ vectors: { size: 4, distance: 'Dot' }, quantization: { scalar: { type: 'int8' } }, quantization_config: { scalar: { type: 'int8' } } }, 'quantization: give either'],
    [{ vectors: { size: 4, distance: 'Dot' }, quantization: { scalar: { type: 'int4' } } }, 'quantization'],
  ])('create — a bad or doubled quantization is a 400 naming the field (%#)', async (body, expected) => {
    const response = await server.request('PUT', '/collections/alias-bad', body);
    expect(response.status).toBe(400);
    expect(response.body.status.error).toContain(expected);
    expect(await server.client.collectionExists('alias-bad')).toEqual({ exists: false });
  });
});

describe('memory tiers and on_disk', () => {
  it('create — memory on a vector, hnsw_config and quantization is echoed', async () => {
    const created = await server.request('PUT', '/collections/tiers', {
      vectors: { size: 4, distance: 'Dot', on_disk: true, memory: 'cold', hnsw_config: { memory: 'pinned' } },
      quantization_config: { scalar: { type: 'int8', memory: 'pinned' } },
    });
    expect(created.status).toBe(200);
    const info = await server.client.getCollection('tiers');
    expect(info.config.params.vectors).toEqual({ size: 4, distance: 'Dot', on_disk: true, memory: 'cold', hnsw_config: { memory: 'pinned' } });
    expect(info.config.quantization_config).toEqual({ scalar: { type: 'int8', memory: 'pinned' } });
    expect(await server.client.updateCollection('tiers', { vectors: { '': { memory: 'cached' } } } as never)).toBe(true);
    expect((await server.client.getCollection('tiers')).config.params.vectors).toMatchObject({ memory: 'cached' });
  });

  it.each([
    [{ vectors: { size: 4, distance: 'Dot', memory: 'pinned' } }, 'vectors.memory'],
    [{ vectors: { size: 4, distance: 'Dot', memory: 'warm' } }, 'vectors.memory'],
    [{ vectors: { size: 4, distance: 'Dot' }, hnsw_config: { memory: 1 } }, 'hnsw_config.memory'],
  ])('create — a memory tier the structure cannot take is a 400 naming it (%#)', async (body, field) => {
    const response = await server.request('PUT', '/collections/tiers-bad', body);
    expect(response.status).toBe(400);
    expect(response.body.status.error).toContain(field);
  });
});

describe('metadata', () => {
  it('create and PATCH — keys merge, a null value removes its key (client)', async () => {
    // The JS client's createCollection leaves metadata out of the body it sends: raw HTTP here.
    expect((await server.request('PUT', '/collections/meta', { vectors: { size: 2, distance: 'Dot' }, metadata: { owner: 'a', stage: 1 } })).status).toBe(200);
    expect(await server.client.updateCollection('meta', { metadata: { stage: 2, extra: { deep: true } } })).toBe(true);
    expect((await server.client.getCollection('meta')).config.metadata).toEqual({ owner: 'a', stage: 2, extra: { deep: true } });
    expect((await server.request('PATCH', '/collections/meta', { metadata: { owner: null } })).status).toBe(200);
    expect((await server.client.getCollection('meta')).config.metadata).toEqual({ stage: 2, extra: { deep: true } });
  });
});

describe('payload index options', () => {
  beforeAll(async () => {
    await server.client.createCollection('indexed', { vectors: { size: 2, distance: 'Dot' } });
    await server.client.upsert('indexed', {
      wait: true,
      points: ['apple', 'apricot', 'banana', 'avocado', 'Apple'].map((fruit, id) => ({ id, vector: [1, id], payload: { fruit } })),
    });
  });

  it('createPayloadIndex — enable_hnsw, memory and keyword prefix are echoed in payload_schema', async () => {
    await server.client.createPayloadIndex('indexed', { field_name: 'fruit', field_schema: { type: 'keyword', enable_hnsw: false, prefix: true, memory: 'cached' } as never, wait: true });
    const response = await server.request('PUT', '/collections/indexed/index?wait=true', { field_name: 'count', field_schema: { type: 'integer', enable_hnsw: true } });
    expect(response.status).toBe(200);
    const info = await server.client.getCollection('indexed');
    expect(info.payload_schema.fruit).toEqual({ data_type: 'keyword', params: { type: 'keyword', enable_hnsw: false, prefix: true, memory: 'cached' }, points: 5 });
    expect(info.payload_schema.count!.params).toEqual({ type: 'integer', enable_hnsw: true });
  });

  it('match.prefix — the keyword prefix index finds what a reference startsWith finds', async () => {
    const found = await server.client.scroll('indexed', { filter: { must: [{ key: 'fruit', match: { prefix: 'ap' } } as never] }, with_payload: true, limit: 10 });
    const expected = ['apple', 'apricot', 'banana', 'avocado', 'Apple'].flatMap((fruit, id) => (fruit.startsWith('ap') ? [id] : []));
    expect(found.points.map((point) => point.id)).toEqual(expected);
  });

  it.each([
    [{ type: 'keyword', prefix: 'yes' }, 'field_schema.prefix'],
    [{ type: 'integer', prefix: true }, 'field_schema.prefix'],
    [{ type: 'float', enable_hnsw: 1 }, 'field_schema.enable_hnsw'],
    [{ type: 'geo', memory: 'hot' }, 'field_schema.memory'],
  ])('createPayloadIndex — a bad option is a 400 naming it (%#)', async (fieldSchema, field) => {
    const response = await server.request('PUT', '/collections/indexed/index', { field_name: 'other', field_schema: fieldSchema });
    expect(response.status).toBe(400);
    expect(response.body.status.error).toContain(field);
  });
});

describe('restart', () => {
  let directory: string;
  beforeAll(async () => {
    directory = await makeDataDirectory();
  });
  afterAll(async () => {
    await removeDataDirectory(directory);
  });

  it('every stored option survives a restart', async () => {
    const first = await startServer(directory);
    let before: unknown;
    try {
      expect((await first.request('PUT', '/collections/kept', {
        vectors: { '': { size: 3, distance: 'Euclid', memory: 'cold' } },
        quantization: { binary: {} },
        metadata: { version: 3 },
        strict_mode_config: { enabled: true, max_query_limit: 50 },
        optimizers_config: { indexing_threshold: 0 },
      })).status).toBe(200);
      await first.client.updateCollection('kept', { metadata: { patched: true } });
      await first.client.createPayloadIndex('kept', { field_name: 'tag', field_schema: { type: 'keyword', prefix: true, enable_hnsw: false } as never, wait: true });
      await first.client.upsert('kept', { wait: true, points: [{ id: 1, vector: [1, 2, 3], payload: { tag: 'x' } }] });
      before = await first.client.getCollection('kept');
    } finally {
      await first.close();
    }
    const second = await startServer(directory);
    try {
      const after = await second.client.getCollection('kept');
      // Every stored option and count; kernel_memory is a live measure, not a stored option: the
      // binary codes are rebuilt in the background at load, so it depends on when it is read.
      const withoutMemory = (info: unknown) => ({ ...(info as Record<string, unknown>), kernel_memory: undefined });
      expect(withoutMemory(after)).toEqual(withoutMemory(before));
      expect((after as { kernel_memory?: unknown }).kernel_memory).toEqual({ resident_bytes: expect.any(Number), mapped_bytes: 0, mapped_resident_bytes: 0 });
      expect(after.config.params.vectors).toEqual({ '': { size: 3, distance: 'Euclid', memory: 'cold' } });
      expect(after.config.quantization_config).toEqual({ binary: {} });
      expect(after.config.metadata).toEqual({ version: 3, patched: true });
      expect(after.config.strict_mode_config).toEqual({ enabled: true, max_query_limit: 50 });
      expect(after.payload_schema.tag!.params).toEqual({ type: 'keyword', prefix: true, enable_hnsw: false });
      const found = await second.client.query('kept', { query: [1, 2, 3], limit: 1 });
      expect(found.points[0]!.id).toBe(1);
    } finally {
      await second.close();
    }
  });
});
