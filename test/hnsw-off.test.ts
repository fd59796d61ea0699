// `hnsw_config.m: 0`, Qdrant's switch for "no HNSW graph" (docs/api.md §4.1): its multitenancy guide
// pairs it with `payload_m`, its late-interaction guides set it on a rerank-only multivector, and
// its bulk-upload article sets it while loading. No graph is built, every search is exact, and the
// collection is green. Raw HTTP, the official JS client, and a restart over the same directory.
import { describe, expect, it } from 'vitest';
import { seededMatrices, referenceTop } from './support/multivector-reference.js';
import { randomVectors } from './support/search-data.js';
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

  it('on a rerank-only multivector serves the dense-then-MaxSim pipeline exactly', async () => {
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
    await server.close();
  });
});
