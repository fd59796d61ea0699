// `hnsw_config.m: 0`, Qdrant's switch for "no HNSW graph" (docs/api.md §4.1): its multitenancy guide
// pairs it with `payload_m`, its late-interaction guides set it on a rerank-only multivector, and
// its bulk-upload article sets it while loading. No graph is built, every search is exact, and the
// collection is green. Raw HTTP, the official JS client, and a restart over the same directory.
import { describe, expect, it } from 'vitest';
import { seededMatrices, referenceTop } from './support/multivector-reference.js';
import { randomVectors } from './support/search-data.js';
import { startChildServer, waitUntilReady } from './support/child-server.js';
import { call } from './support/http-call.js';
import { dataDirectoriesForFile, startServer } from './support/server.js';

const newDirectory = dataDirectoriesForFile();
const dimension = 8;

/** Slow reference: the ids of the `limit` smallest Euclidean distances to `query` among `keep`. */
function reference(vectors: number[][], query: number[], limit: number, keep: (id: number) => boolean = () => true): number[] {
  const distance = (vector: number[]) => Math.sqrt(vector.reduce((sum, value, position) => sum + (value - query[position]!) ** 2, 0));
  return vectors
    .map((vector, id) => ({ id, distance: distance(vector) }))
    .filter((entry) => keep(entry.id))
    .sort((left, right) => left.distance - right.distance || left.id - right.id)
    .slice(0, limit)
    .map((entry) => entry.id);
}

describe('hnsw_config m 0', () => {
  it('is accepted with payload_m and echoed; searches are exact, filtered or not, and the collection is green, also after a restart', async () => {
    const directory = await newDirectory();
    let server = await startServer(directory);
    // The multitenancy guide's collection: no global graph, tenants found by their filter.
    expect(await server.client.createCollection('tenants', { vectors: { size: dimension, distance: 'Euclid' }, hnsw_config: { m: 0, payload_m: 16, full_scan_threshold: 10 } })).toBe(true);
    await server.client.createPayloadIndex('tenants', { field_name: 'group_id', field_schema: { type: 'keyword', is_tenant: true }, wait: true });
    const vectors = randomVectors(31, 3000, dimension);
    const group = (id: number) => `user_${id % 5}`;
    for (let first = 0; first < vectors.length; first += 1000) {
      const points = vectors.slice(first, first + 1000).map((vector, offset) => ({ id: first + offset, vector, payload: { group_id: group(first + offset) } }));
      await server.client.upsert('tenants', { wait: true, points });
    }
    const queries = randomVectors(32, 5, dimension);
    const check = async () => {
      const info = await server.client.getCollection('tenants');
      expect(info.status).toBe('green');
      expect(info.config.hnsw_config.m).toBe(0);
      expect(info.config.hnsw_config.payload_m).toBe(16);
      for (const query of queries) {
        // hnsw_ef 1 would lose most of the top 10 on a walk: only the scan answers exactly.
        const plain = await server.client.query('tenants', { query, limit: 10, params: { hnsw_ef: 1 } });
        expect(plain.points.map((point) => point.id)).toEqual(reference(vectors, query, 10));
        const filter = { must: [{ key: 'group_id', match: { value: 'user_3' } }] };
        const tenant = await server.client.query('tenants', { query, limit: 10, filter, params: { hnsw_ef: 1 } });
        expect(tenant.points.map((point) => point.id)).toEqual(reference(vectors, query, 10, (id) => group(id) === 'user_3'));
      }
    };
    await check();
    await server.close();
    server = await startServer(directory);
    await check();
    await server.close();
  });

  it('on a rerank-only multivector serves the dense-then-MaxSim pipeline exactly, and a PATCH to m 16 rebuilds it whole', async () => {
    const server = await startServer(await newDirectory());
    const created = await server.request('PUT', '/collections/late', {
      vectors: {
        dense: { size: dimension, distance: 'Cosine' },
        colbert: { size: 4, distance: 'Cosine', multivector_config: { comparator: 'max_sim' }, hnsw_config: { m: 0 } },
      },
    });
    expect(created.status).toBe(200);
    const dense = randomVectors(41, 400, dimension);
    const matrices = seededMatrices(42, 400, 4);
    const points = dense.map((vector, id) => ({ id, vector: { dense: vector, colbert: matrices.get(id)! } }));
    expect((await server.request('PUT', '/collections/late/points?wait=true', { points })).status).toBe(200);
    const query = [randomVectors(43, 3, 4)].flat();
    const answer = await server.request('POST', '/collections/late/points/query', {
      prefetch: { query: dense[17], using: 'dense', limit: 400 },
      query,
      using: 'colbert',
      limit: 5,
      params: { hnsw_ef: 1 },
    });
    expect(answer.status).toBe(200);
    const expected = referenceTop('Cosine', query, matrices, 5);
    expect(answer.body.result.points.map((point: { id: number }) => point.id)).toEqual(expected.map((entry) => entry.id));
    expect((await server.client.getCollection('late')).status).toBe('green');
    // Switched on later: the multivector's index is built again with a graph, every matrix in it.
    const collection = server.app.collections.get('late');
    const before = collection.indexes.get('colbert');
    expect((await server.request('PATCH', '/collections/late', { vectors: { colbert: { hnsw_config: { m: 16 } } } })).status).toBe(200);
    expect((await server.request('PUT', '/collections/late/points?wait=true', { points: [{ id: 400, vector: { dense: dense[0], colbert: [query[0]] } }] })).status).toBe(200);
    expect(collection.indexes.get('colbert')).not.toBe(before);
    await collection.waitIndexed();
    const exact = await server.request('POST', '/collections/late/points/query', { query, using: 'colbert', limit: 5, params: { exact: true } });
    const withNew = new Map(matrices).set(400, [query[0]!]);
    expect(exact.body.result.points.map((point: { id: number }) => point.id)).toEqual(referenceTop('Cosine', query, withNew, 5).map((entry) => entry.id));
    await server.close();
  });
});

describe('a PATCH of hnsw_config', () => {
  it('from m 0 to 16 builds a graph in the background; answers stay right all along, and the new graph outlives a restart', async () => {
    const directory = await newDirectory();
    let server = await startServer(directory);
    expect(await server.client.createCollection('bulk', { vectors: { size: dimension, distance: 'Euclid' }, hnsw_config: { m: 0, full_scan_threshold: 10 } })).toBe(true);
    const vectors = randomVectors(51, 2000, dimension);
    await server.client.upsert('bulk', { wait: true, points: vectors.map((vector, id) => ({ id, vector })) });
    const graphBytes = () => server.app.collections.get('bulk').indexes.get('')!.stats().memoryBytes;
    const withoutGraph = graphBytes();
    const before = server.app.collections.get('bulk').indexes.get('');
    // The bulk-upload article's second step: switch the graph on once the data is in.
    expect(await server.client.updateCollection('bulk', { hnsw_config: { m: 16 } })).toBe(true);
    const query = randomVectors(52, 1, dimension)[0]!;
    // Answered while the rebuild waits in the write queue or runs: exact with the old index.
    const during = await server.client.query('bulk', { query, limit: 10, params: { exact: true } });
    expect(during.points.map((point) => point.id)).toEqual(reference(vectors, query, 10));
    // A write queued behind the rebuild lands in the new index.
    await server.client.upsert('bulk', { wait: true, points: [{ id: 5000, vector: query }] });
    const collection = server.app.collections.get('bulk');
    expect(collection.indexes.get('')).not.toBe(before);
    await collection.waitIndexed();
    expect((await server.client.getCollection('bulk')).status).toBe('green');
    // The links: 2,000 nodes with up to 32 level-0 links each.
    expect(graphBytes() - withoutGraph).toBeGreaterThan(2000 * 16 * 4);
    const found = await server.client.query('bulk', { query, limit: 1 });
    expect(found.points[0]!.id).toBe(5000);
    await server.close();
    server = await startServer(directory);
    expect(graphBytes() - withoutGraph).toBeGreaterThan(2000 * 16 * 4);
    expect((await server.client.getCollection('bulk')).config.hnsw_config.m).toBe(16);
    await server.close();
  });

  it('leaves the index alone when neither m nor ef_construct changes, and rebuilds it when ef_construct does', async () => {
    const server = await startServer(await newDirectory());
    await server.client.createCollection('steady', { vectors: { size: dimension, distance: 'Dot' } });
    await server.client.upsert('steady', { wait: true, points: randomVectors(61, 50, dimension).map((vector, id) => ({ id, vector })) });
    const collection = server.app.collections.get('steady');
    const first = collection.indexes.get('');
    await server.client.updateCollection('steady', { hnsw_config: { full_scan_threshold: 20, m: 16 }, optimizers_config: { indexing_threshold: 5 } });
    await server.client.upsert('steady', { wait: true, points: [{ id: 99, vector: randomVectors(62, 1, dimension)[0]! }] });
    expect(collection.indexes.get('')).toBe(first);
    await server.client.updateCollection('steady', { hnsw_config: { ef_construct: 64 } });
    await server.client.upsert('steady', { wait: true, points: [{ id: 100, vector: randomVectors(63, 1, dimension)[0]! }] });
    expect(collection.indexes.get('')).not.toBe(first);
    expect(collection.indexes.get('')!.stats().count).toBe(52);
    await server.close();
  });

  it('rebuilt, then a SIGKILL before any checkpoint: the restart builds the graph with the new m, not the old checkpoint', async () => {
    const directory = await newDirectory();
    // No checkpoint between the rebuild and the kill: only the removal of the old one decides.
    const environment = { QUIVER__STORAGE__CHECKPOINT_OPERATIONS: '1000000', QUIVER__STORAGE__CHECKPOINT_INTERVAL_SECONDS: '3600', QUIVER__LOG__LEVEL: 'info' };
    let child = await startChildServer(directory, environment);
    try {
      await waitUntilReady(child.url);
      expect((await call(child.url, 'PUT', '/collections/killed', { vectors: { size: dimension, distance: 'Euclid' }, hnsw_config: { m: 0 } })).status).toBe(200);
      const vectors = randomVectors(71, 1500, dimension);
      expect((await call(child.url, 'PUT', '/collections/killed/points?wait=true', { points: vectors.map((vector, id) => ({ id, vector })) })).status).toBe(200);
      // A clean stop writes the m 0 checkpoint that the kill below must not bring back.
      await child.kill('SIGTERM');
      child = await startChildServer(directory, environment);
      await waitUntilReady(child.url);
      const residentBytes = async () => (await call(child.url, 'GET', '/collections/killed')).body.result.kernel_memory.resident_bytes as number;
      const withoutGraph = await residentBytes();
      expect((await call(child.url, 'PATCH', '/collections/killed', { hnsw_config: { m: 16 } })).status).toBe(200);
      // Queued behind the rebuild: acknowledged once the new index has taken over.
      expect((await call(child.url, 'PUT', '/collections/killed/points?wait=true', { points: [{ id: 9999, vector: vectors[3] }] })).status).toBe(200);
      expect(child.logLines.some((line) => line.includes('graph rebuilt for the new hnsw_config'))).toBe(true);
      expect(child.logLines.some((line) => line.includes('checkpoint saved'))).toBe(false);
      await child.kill('SIGKILL');
      child = await startChildServer(directory, environment);
      await waitUntilReady(child.url);
      expect(child.logLines.some((line) => line.includes('no usable checkpoint: rebuilding the index from stored vectors'))).toBe(true);
      for (let attempt = 0; attempt < 200 && (await call(child.url, 'GET', '/collections/killed')).body.result.status !== 'green'; attempt += 1) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await residentBytes()).toBeGreaterThan(withoutGraph + 1500 * 16 * 4);
      const count = await call(child.url, 'POST', '/collections/killed/points/count', { exact: true });
      expect(count.body.result.count).toBe(1501);
    } finally {
      await child.kill('SIGKILL');
    }
  });
});
