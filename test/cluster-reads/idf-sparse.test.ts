// Sparse vectors with `modifier: "idf"` across shards (docs/architecture.md §13): the shards
// weigh the query with the whole collection's statistics, gathered by the coordinator, so every
// entry point (search, search batch, query, query batch, prefetch, fusion, re-scoring) answers
// what one node holding all the points answers. A client cannot send the coordinator's option.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { distributedRead } from '../../src/cluster/distributed-read/index.js';
import { expectSameAnswer, outcome, makePoints, startShardedServer, type ShardedServer } from './sharded-collections.js';

const points = makePoints(80, 23);
let server: ShardedServer;

beforeAll(async () => {
  server = await startShardedServer(points);
});
afterAll(async () => {
  await server.test.dispose();
});

const expectSame = (path: string, body: unknown) => expectSameAnswer(server, 'POST', path, body);

const sparse = { indices: [0, 2, 7, 9], values: [0.5, 1.2, 0.8, 0.3] };
const red = { must: [{ key: 'color', match: { value: 'red' } }] };
const document = { text: 'alpha gamma theta', model: 'qdrant/bm25' };

describe('distributed reads — idf sparse vectors', () => {
  it('idf — the statistics matter: a shard weighing by its own counts scores differently from one node', async () => {
    const single = (await server.single('POST', '/points/query', { query: sparse, using: 'weighted', limit: 80 })) as { points: { id: unknown; score: number }[] };
    const own = (await server.reader.call<{ points: { id: unknown; score: number }[] }>(0, 'POST', '/points/query', { query: sparse, using: 'weighted', limit: 80 })).points;
    const scores = new Map(single.points.map((point) => [point.id, point.score]));
    expect(own.some((point) => scores.get(point.id) !== point.score)).toBe(true);
  });

  it('idf — search and search batch equal one node\'s answers (windows, filters, thresholds)', async () => {
    await expectSame('/points/search', { vector: { name: 'weighted', vector: sparse }, limit: 7 });
    await expectSame('/points/search', { vector: { name: 'weighted', vector: sparse }, limit: 5, offset: 3, with_payload: true, with_vector: ['weighted'] });
    await expectSame('/points/search', { vector: { name: 'weighted', vector: sparse }, limit: 10, filter: red, score_threshold: 0.5 });
    await expectSame('/points/search/batch', {
      searches: [
        { vector: { name: 'weighted', vector: sparse }, limit: 4 },
        { vector: { name: 'dense', vector: [0.2, -0.4, 0.7, 0.1] }, limit: 3 },
        { vector: { name: 'weighted', vector: { indices: [1, 6, 11], values: [1, 1, 1] } }, limit: 6, filter: red },
        { vector: { name: 'terms', vector: sparse }, limit: 4 },
      ],
    });
  });

  it('idf — query leaves, BM25 documents, examples by id and query batch equal one node\'s answers', async () => {
    await expectSame('/points/query', { query: sparse, using: 'weighted', limit: 9 });
    await expectSame('/points/query', { query: { nearest: sparse }, using: 'weighted', limit: 4, offset: 2, filter: red, with_payload: ['color'] });
    await expectSame('/points/query', { query: document, using: 'bm25', limit: 8 });
    await expectSame('/points/query', { query: { nearest: { text: 'beta beta delta', model: 'qdrant/bm25' } }, using: 'bm25', limit: 5, score_threshold: 1 });
    await expectSame('/points/query', { query: 3, using: 'weighted', limit: 5 });
    await expectSame('/points/query/batch', { searches: [{ query: sparse, using: 'weighted', limit: 3 }, { query: document, using: 'bm25', limit: 4 }, { query: [0.1, 0.9], using: 'dot', limit: 2 }] });
  });

  it('idf — prefetches, rrf and dbsf fusion and re-scoring by an idf vector equal one node\'s answers', async () => {
    const dense = { query: [0.2, -0.4, 0.7, 0.1], using: 'dense', limit: 20 };
    await expectSame('/points/query', { prefetch: [{ query: document, using: 'bm25', limit: 20 }, dense], query: { fusion: 'rrf' }, limit: 10 });
    await expectSame('/points/query', { prefetch: [{ query: sparse, using: 'weighted', limit: 15 }, dense], query: { fusion: 'dbsf' }, limit: 10, with_payload: true });
    await expectSame('/points/query', { prefetch: [{ query: document, using: 'bm25', limit: 25, filter: red }, { query: sparse, using: 'weighted', limit: 25 }], query: { rrf: { k: 5 } }, limit: 8 });
    await expectSame('/points/query', { prefetch: { ...dense, limit: 40 }, query: sparse, using: 'weighted', limit: 10 });
    await expectSame('/points/query', { prefetch: [{ query: [0.3, 0.3], using: 'dot', limit: 30 }, { query: document, using: 'text', limit: 30 }], query: document, using: 'bm25', limit: 6 });
  });

  it('idf — a client cannot send the coordinator\'s statistics: a 400 naming the field, on one node and at the coordinator', async () => {
    const forged = { document_count: 1, indices: [0], document_frequencies: [1] };
    const bodies: [string, unknown, string][] = [
      ['/points/query', { query: sparse, using: 'weighted', cluster_idf_statistics: { weighted: forged } }, 'cluster_idf_statistics'],
      ['/points/search', { vector: { name: 'weighted', vector: sparse }, limit: 3, cluster_idf_statistics: { weighted: forged } }, 'cluster_idf_statistics'],
      ['/points/search/batch', { searches: [{ vector: { name: 'weighted', vector: sparse }, limit: 3, cluster_idf_statistics: { weighted: forged } }] }, 'searches[0].cluster_idf_statistics'],
      ['/points/query/batch', { searches: [{ query: sparse, using: 'weighted', cluster_idf_statistics: { weighted: forged } }] }, 'searches[0].cluster_idf_statistics'],
    ];
    for (const [path, body, field] of bodies) {
      const expected = { status: 400, message: `Validation error in body ${field}: set only by a cluster coordinator` };
      expect(await outcome(() => server.single('POST', path, body))).toEqual(expected);
      expect(await outcome(() => distributedRead(server.reader, 'POST', path, body))).toEqual(expected);
    }
    const statistics = await server.test.app.inject({ method: 'POST', url: '/collections/all/points/sparse-statistics', payload: { using: 'weighted', indices: [1] } });
    expect(statistics.statusCode).toBe(403);
  });

  it('idf — a shard\'s statistics read counts the live points holding the vector and each index', async () => {
    const answers = await Promise.all([0, 1, 2].map((shard) => server.reader.call<{ document_count: number; document_frequencies: number[] }>(shard, 'POST', '/points/sparse-statistics', { using: 'weighted', indices: [0, 7, 999] })));
    const holding = points.filter((point) => point.vector.weighted !== undefined) as unknown as { vector: { weighted: { indices: number[] } } }[];
    expect(answers.reduce((total, answer) => total + answer.document_count, 0)).toBe(holding.length);
    for (const [position, index] of [0, 7, 999].entries()) {
      expect(answers.reduce((total, answer) => total + answer.document_frequencies[position]!, 0)).toBe(holding.filter((point) => point.vector.weighted.indices.includes(index)).length);
    }
  });
});
