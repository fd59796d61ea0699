// Distributed reads (docs/architecture.md §13+): every read route, merged across three shards,
// answers exactly what one node holding all the points answers (same ids, order, scores,
// payloads, vectors, versions); the forms a merge cannot answer exactly are a 400 naming them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { distributedRead, isDistributedReadPath, type ShardReader } from '../../src/cluster/distributed-read/index.js';
import { QuiverError } from '../../src/errors.js';
import { expectSameAnswer, outcome, makePoints, startShardedServer, type ShardedServer } from './sharded-collections.js';

const points = makePoints(60, 17);
let server: ShardedServer;

beforeAll(async () => {
  server = await startShardedServer(points);
});
afterAll(async () => {
  await server.test.dispose();
});

/** The distributed answer equals one node's, error or result. */
const expectSame = (method: 'GET' | 'POST', path: string, body?: unknown, answer: 'result' | 'status' = 'result') => expectSameAnswer(server, method, path, body, answer);

const denseQuery = [0.2, -0.4, 0.7, 0.1];
const exact = { exact: true };

describe('distributed reads — points', () => {
  it('retrieve — one point by id comes from the shard holding it; a missing id is one node\'s 404', async () => {
    await expectSame('GET', '/points/7');
    await expectSame('GET', '/points/5b2c7d8e-9f00-4a11-8b22-3c44d55e6f77');
    const missing = (await expectSame('GET', '/points/9999', undefined, 'status')) as { status: number };
    expect(missing.status).toBe(404);
  });

  it('retrieve — many ids come back in request order with the selectors honoured', async () => {
    await expectSame('POST', '/points', { ids: [9, 3, 'f0e1d2c3-b4a5-4968-8776-655443322110', 12345, 3, 40] });
    await expectSame('POST', '/points', { ids: [1, 2, 3, 4], with_payload: ['color'], with_vector: ['euclid'] });
    await expectSame('POST', '/points', { ids: [1, 2], with_payload: { exclude: ['text'] }, with_vector: true });
  });

  it('count — exact and approximate counts are the sums of the shards', async () => {
    await expectSame('POST', '/points/count', {});
    await expectSame('POST', '/points/count', { exact: false, filter: { must: [{ key: 'color', match: { value: 'red' } }] } });
    await expectSame('POST', '/points/count', { filter: { must: [{ key: 'rank', range: { gte: 5, lt: 12 } }] } });
  });

  it('scroll — pages across shards in id order, next_page_offset included, until the last page', async () => {
    let offset: unknown;
    let pages = 0;
    do {
      const page = (await expectSame('POST', '/points/scroll', { limit: 7, offset, with_payload: ['color'] })) as { result: { next_page_offset: unknown } };
      offset = page.result.next_page_offset;
      pages++;
    } while (offset !== null && pages < 20);
    expect(pages).toBe(Math.ceil(points.length / 7));
    await expectSame('POST', '/points/scroll', { limit: 5, offset: 58, filter: { must_not: [{ key: 'color', match: { value: 'blue' } }] } });
  });

  it('scroll — order_by merges by the value, equal values in id order, both directions', async () => {
    await expectSame('POST', '/points/scroll', { limit: 15, order_by: 'rank', with_payload: false });
    await expectSame('POST', '/points/scroll', { limit: 15, order_by: { key: 'rank', direction: 'desc', start_from: 14 } });
  });

  it('facet — counts are summed over the shards, ties ordered by value, the limit applied last', async () => {
    await expectSame('POST', '/facet', { key: 'color' });
    await expectSame('POST', '/facet', { key: 'rank', limit: 3 });
    await expectSame('POST', '/facet', { key: 'color', limit: 1, filter: { must: [{ key: 'rank', range: { lt: 10 } }] } });
  });
});

describe('distributed reads — search', () => {
  it('search — dense, named, sparse, with offset, filter, threshold and selectors', async () => {
    await expectSame('POST', '/points/search', { vector: { name: 'dense', vector: denseQuery }, limit: 10, params: exact });
    await expectSame('POST', '/points/search', { vector: { name: 'euclid', vector: [0.1, 0.2, -0.3] }, limit: 6, offset: 4, with_payload: true, params: exact });
    await expectSame('POST', '/points/search', { vector: { name: 'dot', vector: [1, 0.5] }, top: 8, score_threshold: 0.2, with_vector: ['dot'], params: exact });
    await expectSame('POST', '/points/search', { vector: { name: 'terms', vector: { indices: [1, 7, 9], values: [1, 0.5, 2] } }, limit: 12 });
    await expectSame('POST', '/points/search', {
      vector: { name: 'dense', vector: denseQuery },
      limit: 5,
      filter: { must: [{ key: 'color', match: { any: ['red', 'blue'] } }] },
      with_payload: ['color', 'rank'],
      params: exact,
    });
  });

  it('search batch — each search merged on its own, in request order', async () => {
    await expectSame('POST', '/points/search/batch', {
      searches: [
        { vector: { name: 'dense', vector: denseQuery }, limit: 4, params: exact },
        { vector: { name: 'euclid', vector: [0, 0, 0] }, limit: 9, offset: 2, params: exact },
        { vector: { name: 'terms', vector: { indices: [3], values: [1] } }, limit: 3 },
      ],
    });
  });

  it('search — a 4xx from the shards is answered once, as one node words it', async () => {
    const error = (await expectSame('POST', '/points/search', { vector: { name: 'dense', vector: [1, 2] }, limit: 3 }, 'status')) as { status: number };
    expect(error.status).toBe(400);
    await expectSame('POST', '/points/search/batch', { searches: [{ vector: { name: 'dense', vector: denseQuery }, limit: 3 }, { vector: { name: 'nope', vector: [1] }, limit: 3 }] }, 'status');
  });
});

describe('distributed reads — query', () => {
  it('query — nearest on each distance, sparse and BM25 documents, offset and threshold', async () => {
    await expectSame('POST', '/points/query', { query: denseQuery, using: 'dense', limit: 7, offset: 3, params: exact });
    await expectSame('POST', '/points/query', { query: { nearest: [0.3, -0.1, 0.2] }, using: 'euclid', limit: 10, score_threshold: 1.2, params: exact });
    await expectSame('POST', '/points/query', { query: { text: 'alpha gamma', model: 'qdrant/bm25' }, using: 'text', limit: 10, with_payload: ['text'] });
    await expectSame('POST', '/points/query', { query: { indices: [2, 8], values: [0.5, 1] }, using: 'terms', limit: 10, offset: 2 });
  });

  it('query — no query pages in id order; order_by merges by value; filters include an indexed keyword', async () => {
    await expectSame('POST', '/points/query', { limit: 12, offset: 5, filter: { must: [{ key: 'color', match: { value: 'green' } }] }, with_payload: true });
    await expectSame('POST', '/points/query', { query: { order_by: { key: 'rank', direction: 'desc' } }, limit: 9 });
  });

  it('query — ids as examples are read from their shards, inlined and left out of the answer', async () => {
    await expectSame('POST', '/points/query', { query: 5, using: 'dense', limit: 8, params: exact });
    await expectSame('POST', '/points/query', { query: { nearest: '5b2c7d8e-9f00-4a11-8b22-3c44d55e6f77' }, using: 'euclid', limit: 8, params: exact });
    await expectSame('POST', '/points/query', { query: { recommend: { positive: [1, 2], negative: [9] } }, using: 'dense', limit: 6, params: exact });
    await expectSame('POST', '/points/query', { query: { recommend: { positive: [1, [0.1, 0.1, 0.1, 0.9]], strategy: 'best_score' } }, using: 'dense', limit: 6 });
    await expectSame('POST', '/points/query', { query: { recommend: { positive: [3], negative: [4], strategy: 'sum_scores' } }, using: 'euclid', limit: 6 });
    await expectSame('POST', '/points/query', { query: { discover: { target: 11, context: [{ positive: 12, negative: 13 }] } }, using: 'dense', limit: 6 });
    await expectSame('POST', '/points/query', { query: { context: [{ positive: 20, negative: 21 }] }, using: 'euclid', limit: 6 });
    await expectSame('POST', '/points/query', { query: 8, using: 'terms', limit: 5 });
    const feedback = { relevance_feedback: { target: 14, feedback: [{ example: 15, score: 0.9 }, { example: [0.1, -0.2, 0.3, 0.4], score: 0.1 }], strategy: { naive: { a: 1, b: 0.5, c: 0.5 } } } };
    await expectSame('POST', '/points/query', { query: feedback, using: 'dense', limit: 7 });
    await expectSame('POST', '/points/query', { prefetch: { query: [0.2, 0.1, 0.4], using: 'euclid', limit: 25, params: exact }, query: feedback, using: 'dense', limit: 5 });
  });

  it('query — a random sample draws distinct points of the collection, as many as asked', async () => {
    for (const body of [{ query: { sample: 'random' }, limit: 9 }, { prefetch: { limit: 30 }, query: { sample: 'random' }, limit: 12, with_payload: true }]) {
      const answer = (await distributedRead(server.reader, 'POST', '/points/query', body)) as { points: { id: unknown; score: number; payload?: unknown }[] };
      const ids = answer.points.map((point) => point.id);
      expect(new Set(ids).size).toBe(body.limit);
      for (const point of answer.points) expect(points.some((stored) => stored.id === point.id)).toBe(true);
      if (body.with_payload) for (const point of answer.points) expect(point.payload).toEqual(points.find((stored) => stored.id === point.id)!.payload);
    }
  });

  it('query — an example id no shard holds is one node\'s 404; a point without the vector is its 400', async () => {
    await expectSame('POST', '/points/query', { query: 424242, using: 'dense', limit: 3 }, 'status');
    await expectSame('POST', '/points/query', { query: 7, using: 'terms', limit: 3 }, 'status');
    await expectSame('POST', '/points/query', { query: { nearest: 'not-a-point-id' }, using: 'dense', limit: 3 }, 'status');
    await expectSame('POST', '/points/query', { query: { recommend: { positive: [1, 'zzz'] } }, using: 'dense', limit: 3 }, 'status');
  });

  it('query — hybrid: dense and BM25 prefetches fused by rrf (k, weights) and dbsf', async () => {
    const prefetch = [
      { query: denseQuery, using: 'dense', limit: 15, params: exact },
      { query: { text: 'beta delta', model: 'qdrant/bm25' }, using: 'text', limit: 15 },
    ];
    await expectSame('POST', '/points/query', { prefetch, query: { fusion: 'rrf' }, limit: 10, with_payload: true });
    await expectSame('POST', '/points/query', { prefetch, query: { rrf: { k: 5, weights: [2, 0.5] } }, limit: 8, offset: 2, with_vector: ['dense'] });
    await expectSame('POST', '/points/query', { prefetch, query: { fusion: 'dbsf' }, limit: 10, score_threshold: 0.4 });
    await expectSame('POST', '/points/query', { prefetch: [prefetch[0], { query: [0.5, 0.5, 0.5], using: 'euclid', limit: 12, params: exact }], query: { fusion: 'dbsf' }, limit: 10 });
  });

  it('query — a re-scoring stage scores only the prefetched points, ties as one node ties them', async () => {
    await expectSame('POST', '/points/query', { prefetch: { query: denseQuery, using: 'dense', limit: 30, params: exact }, query: [0.1, 0.9, -0.2], using: 'euclid', limit: 8 });
    await expectSame('POST', '/points/query', {
      prefetch: [{ query: { indices: [1, 2, 3], values: [1, 1, 1] }, using: 'terms', limit: 20 }, { query: [0.5, 0.5], using: 'dot', limit: 20, params: exact }],
      query: { indices: [2, 9], values: [1, 0.5] },
      using: 'terms',
      limit: 15,
    });
    await expectSame('POST', '/points/query', {
      prefetch: { query: [0.3, 0.3, 0.3], using: 'euclid', limit: 25, params: exact },
      query: { recommend: { positive: [2], negative: [[0, 0, 1, 0]], strategy: 'best_score' } },
      using: 'dense',
      limit: 6,
      filter: { must: [{ key: 'color', match: { value: 'red' } }] },
    });
    await expectSame('POST', '/points/query', { prefetch: { limit: 40 }, query: { order_by: 'rank' }, limit: 10, with_payload: ['rank'] });
  });

  it('query — a formula over prefetches is evaluated at the coordinator on merged scores, payloads and conditions', async () => {
    const prefetch = [
      { query: denseQuery, using: 'dense', limit: 20, params: exact },
      { query: { text: 'alpha beta', model: 'qdrant/bm25' }, using: 'text', limit: 20 },
    ];
    await expectSame('POST', '/points/query', {
      prefetch,
      query: { formula: { sum: ['$score', { mult: [0.5, '$score[1]'] }, { mult: [0.01, 'rank'] }] }, defaults: { '$score[1]': 0 } },
      limit: 8,
      with_payload: ['rank'],
    });
    await expectSame('POST', '/points/query', {
      prefetch,
      query: { formula: { sum: ['$score', { mult: [2, { key: 'color', match: { value: 'red' } }] }, { key: 'tags', match: { value: 'x' } }] }, defaults: { '$score[0]': -1 } },
      limit: 10,
      score_threshold: 0.5,
    });
    await expectSame('POST', '/points/query', { prefetch, query: { formula: { ln: 'rank' } }, limit: 5 }, 'status');
  });

  it('query — a plan one node refuses (prefetches without a query, order_by with a threshold, fusion with using) is its 400', async () => {
    const prefetch = { query: denseQuery, using: 'dense', limit: 10 };
    await expectSame('POST', '/points/query', { prefetch, limit: 3 }, 'status');
    await expectSame('POST', '/points/query', { prefetch, query: { order_by: 'rank' }, score_threshold: 1, limit: 3 }, 'status');
    await expectSame('POST', '/points/query', { prefetch: [prefetch], query: { fusion: 'rrf' }, using: 'dense', limit: 3 }, 'status');
    await expectSame('POST', '/points/query', { prefetch: { prefetch, limit: 5 }, query: [1, 0, 0, 0], using: 'dense', limit: 3 }, 'status');
  });

  it('query batch — each query merged on its own; a 4xx names its search as one node does', async () => {
    await expectSame('POST', '/points/query/batch', { searches: [{ query: denseQuery, using: 'dense', limit: 3, params: exact }, { query: 3, using: 'euclid', limit: 4, params: exact }] });
    await expectSame('POST', '/points/query/batch', { searches: [{ query: denseQuery, using: 'dense', limit: 3 }, { query: [1, 2], using: 'dense', limit: 4 }] }, 'status');
  });
});

describe('distributed reads — refusals and failures', () => {
  it('refusal — lookup_from (without readerOf), dbsf or formulas over float64 scores are a 400 naming them in cluster mode', async () => {
    const cases: [string, unknown, RegExp][] = [
      ['/points/query', { prefetch: { query: { context: [{ positive: 1, negative: 2 }] }, using: 'dense' }, query: { formula: '$score' } }, /formula/],
      ['/points/query', { prefetch: [{ query: { discover: { target: 1, context: [{ positive: 2, negative: 3 }] } }, using: 'dense' }], query: { fusion: 'dbsf' } }, /dbsf/],
      ['/points/query', { query: { indices: [1], values: [1] }, using: 'terms', prefetch: { query: [1, 0], using: 'dot' }, lookup_from: { collection: 'all', vector: 'terms' } }, /lookup_from/],
      ['/points/query', { query: 3, using: 'dense', lookup_from: { collection: 'all' } }, /lookup_from/],
    ];
    for (const [path, body, message] of cases) {
      const error = (await outcome(() => distributedRead(server.reader, 'POST', path, body))) as { status: number; message: string };
      expect(error.status).toBe(400);
      expect(error.message).toMatch(message);
      expect(error.message).toMatch(/not supported in cluster mode/);
    }
  });

  it('failure — a shard without a live replica is the reader\'s 503 naming it', async () => {
    const failing: ShardReader = {
      shardCount: server.reader.shardCount,
      call: (shard, method, path, body) =>
        shard === 1 ? Promise.reject(new QuiverError('unavailable', 'collection all: shard 1 has no live replica')) : server.reader.call(shard, method, path, body),
    };
    for (const [path, body] of [
      ['/points/search', { vector: { name: 'dense', vector: denseQuery }, limit: 3 }],
      ['/points/query', { query: 4, using: 'dense', limit: 3 }],
      ['/points/count', {}],
      ['/points/scroll', {}],
    ] as const) {
      const error = (await outcome(() => distributedRead(failing, 'POST', path, body))) as { status: number; message: string };
      expect(error).toEqual({ status: 503, message: 'collection all: shard 1 has no live replica' });
    }
  });

  it('routes — every collection-scoped point read is a distributed read; writes are not', () => {
    for (const path of ['/points', '/points/count', '/points/scroll', '/points/search', '/points/search/batch', '/points/query', '/points/query/batch', '/facet']) {
      expect(isDistributedReadPath('POST', path)).toBe(true);
    }
    expect(isDistributedReadPath('GET', '/points/17')).toBe(true);
    expect(isDistributedReadPath('PUT', '/points')).toBe(false);
    expect(isDistributedReadPath('POST', '/points/delete')).toBe(false);
    expect(isDistributedReadPath('POST', '/points/payload')).toBe(false);
  });
});
