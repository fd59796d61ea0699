// MMR across shards (docs/architecture.md §13): the merged `candidates_limit` nearest points
// are picked at the coordinator by the kernel's own selection, so the picks, their order and
// their scores are one node's, for every distance, over the collection or among prefetches,
// under filters, thresholds, offsets, examples by id and fusion.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSameAnswer, makePoints, startShardedServer, type ShardedServer } from './sharded-collections.js';

const points = makePoints(90, 31);
let server: ShardedServer;

beforeAll(async () => {
  server = await startShardedServer(points);
});
afterAll(async () => {
  await server.test.dispose();
});

const expectSame = (path: string, body: unknown, answer: 'result' | 'status' = 'result') => expectSameAnswer(server, 'POST', path, body, answer);

const red = { must: [{ key: 'color', match: { value: 'red' } }] };
const queries: Record<string, number[]> = { dense: [0.2, -0.4, 0.7, 0.1], euclid: [0.5, -0.1, 0.3], dot: [0.8, -0.6] };

describe('distributed reads — MMR', () => {
  it('mmr — over the whole collection, for Cosine, Euclid and Dot, every diversity and candidate count, one node\'s picks', async () => {
    for (const using of ['dense', 'euclid', 'dot']) {
      for (const diversity of [0, 0.3, 0.5, 0.9, 1]) {
        for (const candidates of [5, 20, 60]) {
          await expectSame('/points/query', { query: { nearest: queries[using], mmr: { diversity, candidates_limit: candidates } }, using, limit: 7 });
        }
      }
    }
    // The picks are MMR's, not the nearest points: diversity reorders them.
    const ids = (answer: unknown) => (answer as { result: { points: { id: unknown }[] } }).result.points.map((point) => point.id);
    const nearest = await expectSame('/points/query', { query: queries.dense, using: 'dense', limit: 7 });
    const diverse = await expectSame('/points/query', { query: { nearest: queries.dense, mmr: { diversity: 0.9, candidates_limit: 60 } }, using: 'dense', limit: 7 });
    expect(ids(diverse)).not.toEqual(ids(nearest));
  });

  it('mmr — with filters, thresholds, offsets, selectors, defaults and an example id, one node\'s answer', async () => {
    await expectSame('/points/query', { query: { nearest: queries.dense, mmr: {} }, using: 'dense', limit: 5, filter: red, with_payload: true, with_vector: ['dense'] });
    await expectSame('/points/query', { query: { nearest: queries.euclid, mmr: { diversity: 0.7, candidates_limit: 30 } }, using: 'euclid', limit: 6, offset: 2, score_threshold: 1.2 });
    await expectSame('/points/query', { query: { nearest: queries.dense, mmr: { diversity: 0.4, candidates_limit: 40 } }, using: 'dense', limit: 4, score_threshold: 0.1, with_payload: ['color'] });
    await expectSame('/points/query', { query: { nearest: 7, mmr: { diversity: 0.6, candidates_limit: 25 } }, using: 'dense', limit: 5 });
    // The default candidates_limit is the stage's limit, without the offset.
    await expectSame('/points/query', { query: { nearest: queries.dense, mmr: { diversity: 0.8 } }, using: 'dense', limit: 4, offset: 3 });
    await expectSame('/points/query', { query: { nearest: queries.dot, mmr: { diversity: 0.5, candidates_limit: 3 } }, using: 'dot', limit: 10 });
  });

  it('mmr — among prefetched points, as a prefetch under fusion and in a batch, one node\'s answer', async () => {
    const prefetch = [{ query: queries.euclid, using: 'euclid', limit: 30 }, { query: { indices: [1, 4, 8], values: [1, 0.5, 0.7] }, using: 'terms', limit: 30 }];
    await expectSame('/points/query', { prefetch, query: { nearest: queries.dense, mmr: { diversity: 0.5, candidates_limit: 20 } }, using: 'dense', limit: 6 });
    await expectSame('/points/query', {
      prefetch: [{ query: { nearest: queries.dense, mmr: { diversity: 0.8, candidates_limit: 40 } }, using: 'dense', limit: 10 }, { query: queries.dot, using: 'dot', limit: 10 }],
      query: { fusion: 'rrf' },
      limit: 8,
    });
    await expectSame('/points/query/batch', {
      searches: [
        { query: { nearest: queries.dense, mmr: { diversity: 0.2 } }, using: 'dense', limit: 3 },
        { query: { nearest: queries.euclid, mmr: { diversity: 0.9, candidates_limit: 50 } }, using: 'euclid', limit: 5, filter: red },
      ],
    });
  });

  it('mmr — bad MMR input is one node\'s 400', async () => {
    await expectSame('/points/query', { query: { nearest: queries.dense, mmr: { diversity: 2 } }, using: 'dense' }, 'status');
    await expectSame('/points/query', { query: { nearest: queries.dense, mmr: { candidates_limit: 0 } }, using: 'dense' }, 'status');
    await expectSame('/points/query', { query: { nearest: [1, 2], mmr: { diversity: 0.5 } }, using: 'dense' }, 'status');
  });
});
