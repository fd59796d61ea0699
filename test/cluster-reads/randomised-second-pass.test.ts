// The second pass's reads under seeded random shapes (docs/architecture.md §13): IDF sparse
// queries and BM25 hybrids, MMR over the collection and over prefetches, and the search matrix,
// each merged across three shards, equal the answer of one collection holding all points.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { distributedRead } from '../../src/cluster/distributed-read/index.js';
import { mulberry32 } from '../support/seeded-random.js';
import { outcome, pick, round, type Random, colors, makePoints, startShardedServer, words, type ShardedServer } from './sharded-collections.js';

const points = makePoints(100, 61);
let server: ShardedServer;

beforeAll(async () => {
  server = await startShardedServer(points);
});
afterAll(async () => {
  await server.test.dispose();
});

const between = (random: Random, low: number, high: number) => low + Math.floor(random() * (high - low + 1));
const sizes: Record<string, number> = { dense: 4, euclid: 3, dot: 2 };

function filterOf(random: Random): Record<string, unknown> {
  switch (between(random, 0, 3)) {
    case 0:
      return {};
    case 1:
      return { filter: { must: [{ key: 'color', match: { value: pick(random, colors) } }] } };
    case 2:
      return { filter: { must_not: [{ key: 'rank', range: { lt: between(random, 0, 9) } }] } };
    default:
      return { filter: { should: [{ key: 'tags', match: { value: 'x' } }, { key: 'color', match: { value: pick(random, colors) } }] } };
  }
}

function sparseQuery(random: Random): { indices: number[]; values: number[] } {
  const indices = [...new Set(Array.from({ length: between(random, 1, 4) }, () => between(random, 0, 11)))].sort((left, right) => left - right);
  return { indices, values: indices.map(() => round(random() + 0.1)) };
}

function documentQuery(random: Random): { text: string; model: string } {
  return { text: Array.from({ length: between(random, 1, 3) }, () => pick(random, words)).join(' '), model: 'qdrant/bm25' };
}

function denseStage(random: Random, limit: number): Record<string, unknown> {
  const using = pick(random, ['dense', 'euclid', 'dot']);
  return { query: Array.from({ length: sizes[using]! }, () => round(random() * 2 - 1)), using, limit, params: { exact: true } };
}

function idfStage(random: Random, limit: number): Record<string, unknown> {
  return random() < 0.5 ? { query: sparseQuery(random), using: 'weighted', limit } : { query: documentQuery(random), using: 'bm25', limit };
}

function mmrStage(random: Random, limit: number): Record<string, unknown> {
  const stage = denseStage(random, limit);
  return { ...stage, query: { nearest: stage.query, mmr: { diversity: round(random()), candidates_limit: between(random, 1, 40) } } };
}

function queryOf(random: Random): Record<string, unknown> {
  const window = { limit: between(random, 1, 10), ...(random() < 0.3 ? { offset: between(random, 1, 4) } : {}) };
  switch (between(random, 0, 4)) {
    case 0:
      return { ...idfStage(random, window.limit), ...window, ...filterOf(random) };
    case 1:
      return { prefetch: [idfStage(random, between(random, 5, 30)), denseStage(random, between(random, 5, 30))], query: { fusion: pick(random, ['rrf', 'dbsf']) }, ...window, ...filterOf(random) };
    case 2:
      return { prefetch: denseStage(random, between(random, 10, 50)), ...idfStage(random, window.limit), ...window };
    case 3:
      return { ...mmrStage(random, window.limit), ...window, ...filterOf(random) };
    default:
      return { prefetch: [idfStage(random, between(random, 10, 40)), denseStage(random, between(random, 10, 40))], ...mmrStage(random, window.limit), ...window };
  }
}

describe('distributed reads — second pass, seeded random shapes', () => {
  it('random — 120 idf, hybrid and MMR query shapes merged across shards equal one node\'s answers', async () => {
    const random = mulberry32(777);
    let answered = 0;
    for (let round = 0; round < 120; round++) {
      const body = queryOf(random);
      const single = await outcome(() => server.single('POST', '/points/query', body));
      const merged = await outcome(() => distributedRead(server.reader, 'POST', '/points/query', body));
      expect(merged, JSON.stringify(body)).toEqual(single);
      if ('result' in (single as object)) answered++;
    }
    expect(answered).toBe(120);
  });

  it('random — 40 idf searches and 30 search matrices merged across shards equal one node\'s answers', async () => {
    const random = mulberry32(31337);
    for (let round = 0; round < 40; round++) {
      const search = { vector: { name: 'weighted', vector: sparseQuery(random) }, limit: between(random, 1, 10), offset: between(random, 0, 3), ...filterOf(random) };
      const single = await outcome(() => server.single('POST', '/points/search', search));
      expect(single).toHaveProperty('result');
      expect(await outcome(() => distributedRead(server.reader, 'POST', '/points/search', search))).toEqual(single);
    }
    for (let round = 0; round < 30; round++) {
      const path = pick(random, ['/points/search/matrix/pairs', '/points/search/matrix/offsets']);
      const matrix = { using: pick(random, ['dense', 'euclid', 'dot']), sample: between(random, 2, 60), limit: between(random, 1, 6), ...filterOf(random) };
      const single = await outcome(() => server.single('POST', path, matrix));
      expect(single).toHaveProperty('result');
      expect(await outcome(() => distributedRead(server.reader, 'POST', path, matrix))).toEqual(single);
    }
  });
});
