// Distributed reads under many seeded random query shapes (docs/architecture.md §13+): each
// shape, merged across three shards, equals the answer of one collection holding all points.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { distributedRead } from '../../src/cluster/distributed-read/index.js';
import { mulberry32 } from '../support/seeded-random.js';
import { outcome, pick, round, type Random, colors, makePoints, startShardedServer, words, type ShardedServer } from './sharded-collections.js';

const points = makePoints(80, 23);
let server: ShardedServer;

beforeAll(async () => {
  server = await startShardedServer(points);
});
afterAll(async () => {
  await server.test.dispose();
});

const dense = (random: Random, size: number) => Array.from({ length: size }, () => round(random() * 2 - 1));
const exampleId = (random: Random) => points[Math.floor(random() * points.length)]!.id;

function filterOf(random: Random): unknown {
  switch (Math.floor(random() * 4)) {
    case 0:
      return undefined;
    case 1:
      return { must: [{ key: 'color', match: { value: pick(random, colors) } }] };
    case 2:
      return { must_not: [{ key: 'rank', range: { lt: Math.floor(random() * 10) } }] };
    default:
      return { should: [{ key: 'tags', match: { value: 'x' } }, { key: 'color', match: { value: pick(random, colors) } }] };
  }
}

/** One leaf stage: a nearest, recommend, discover or sparse form on a random vector name. */
function leafOf(random: Random, limit: number): Record<string, unknown> {
  const exact = { exact: true };
  switch (Math.floor(random() * 7)) {
    case 0:
      return { query: dense(random, 4), using: 'dense', limit, params: exact };
    case 1:
      return { query: { nearest: dense(random, 3) }, using: 'euclid', limit, params: exact };
    case 2:
      return { query: exampleId(random), using: 'dot', limit, params: exact };
    case 3:
      return { query: { text: `${pick(random, words)} ${pick(random, words)}`, model: 'qdrant/bm25' }, using: 'text', limit };
    case 4:
      return { query: { indices: [Math.floor(random() * 12)], values: [round(random() + 0.1)] }, using: 'terms', limit };
    case 5:
      return { query: { recommend: { positive: [exampleId(random)], negative: [dense(random, 4)], strategy: pick(random, ['average_vector', 'best_score', 'sum_scores']) } }, using: 'dense', limit, params: exact };
    default:
      return { query: { discover: { target: dense(random, 3), context: [{ positive: exampleId(random), negative: exampleId(random) }] } }, using: 'euclid', limit };
  }
}

function queryOf(random: Random): Record<string, unknown> {
  const limit = 1 + Math.floor(random() * 12);
  const common: Record<string, unknown> = { limit, offset: Math.floor(random() * 4), with_payload: pick(random, [false, true, ['color']]), with_vector: pick(random, [false, ['euclid']]) };
  const filter = filterOf(random);
  if (filter !== undefined) common.filter = filter;
  const shape = Math.floor(random() * 5);
  if (shape === 0) return { ...leafOf(random, limit), ...common };
  const prefetch = [leafOf(random, 5 + Math.floor(random() * 20)), leafOf(random, 5 + Math.floor(random() * 20))];
  if (shape === 1) return { prefetch, query: pick(random, [{ fusion: 'rrf' }, { fusion: 'dbsf' }, { rrf: { k: 1 + Math.floor(random() * 5), weights: [round(random() + 0.5), 1] } }]), ...common };
  if (shape === 2) {
    const { query, using, params } = leafOf(random, limit);
    return { prefetch, query, ...(using !== undefined ? { using } : {}), ...(params !== undefined ? { params } : {}), ...common };
  }
  if (shape === 3) return { prefetch, query: { order_by: { key: 'rank', direction: pick(random, ['asc', 'desc']) } }, ...common };
  const formula = { sum: ['$score', { mult: [round(random()), '$score[1]'] }, { mult: [0.05, 'rank'] }, { key: 'color', match: { value: pick(random, colors) } }] };
  return { prefetch, query: { formula, defaults: { '$score[0]': 0, '$score[1]': round(random()) } }, ...common };
}

/** dbsf or a formula over float64-scored prefetches is refused in cluster mode (docs/architecture.md §13). */
function refusedInCluster(body: Record<string, unknown>): boolean {
  const root = body.query as { fusion?: string; formula?: unknown } | undefined;
  if (root?.fusion !== 'dbsf' && root?.formula === undefined) return false;
  return (body.prefetch as Record<string, unknown>[]).some((stage) => {
    const query = stage.query as Record<string, any>;
    return typeof query === 'object' && query !== null && ('discover' in query || ('recommend' in query && query.recommend.strategy !== 'average_vector'));
  });
}

describe('distributed reads — seeded random query shapes', () => {
  it('random — 150 query shapes merged across shards equal one node\'s answers', async () => {
    const random = mulberry32(4242);
    let answered = 0;
    for (let round = 0; round < 150; round++) {
      const body = queryOf(random);
      const single = await outcome(() => server.single('POST', '/points/query', body));
      const merged = await outcome(() => distributedRead(server.reader, 'POST', '/points/query', body));
      if (refusedInCluster(body)) {
        expect(merged, JSON.stringify(body)).toMatchObject({ status: 400, message: expect.stringMatching(/not supported in cluster mode/) });
        continue;
      }
      expect(merged, JSON.stringify(body)).toEqual(single);
      if ('result' in (single as object)) answered++;
    }
    // Most shapes are answers, not shared errors (a few examples lack a vector, as on one node).
    expect(answered).toBeGreaterThan(120);
  });

  it('random — 60 search and scroll windows merged across shards equal one node\'s answers', async () => {
    const random = mulberry32(99);
    for (let round = 0; round < 60; round++) {
      const search = { vector: { name: pick(random, ['dense', 'euclid']), vector: [] as number[] }, limit: 1 + Math.floor(random() * 10), offset: Math.floor(random() * 5), filter: filterOf(random), params: { exact: true } };
      search.vector.vector = dense(random, search.vector.name === 'dense' ? 4 : 3);
      expect(await outcome(() => distributedRead(server.reader, 'POST', '/points/search', search))).toEqual(await outcome(() => server.single('POST', '/points/search', search)));
      const scroll = { limit: 1 + Math.floor(random() * 15), offset: Math.floor(random() * 90), filter: filterOf(random) };
      expect(await outcome(() => distributedRead(server.reader, 'POST', '/points/scroll', scroll))).toEqual(await outcome(() => server.single('POST', '/points/scroll', scroll)));
    }
  });
});
