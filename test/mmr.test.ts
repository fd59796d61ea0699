// MMR in POST C/points/query and /query/batch end to end (docs/api.md §5.5), and the rule that a
// point scores the same float on every path (search, prefetch re-scoring, query by id). MMR
// selections are checked against a naive reference computed here from the vectors: the full
// similarity matrix and Qdrant's picking rule, in float64.
import { describe, expect, it } from 'vitest';
import { bruteForce, clusteredVectors, normalise, type DistanceName, type ReferenceHit } from './support/search-data.js';
import { allDistances, queryPointHits, serverWithDistanceCollections, type Hit } from './support/distance-collections.js';

const distances = allDistances;
const dimension = 8;
// Clusters of near neighbours: where diversity changes the answer.
const vectors = clusteredVectors(31, 240, dimension, 6).map((vector) => vector.map((value) => Math.round(value * 1000) / 1000));
const probes = clusteredVectors(32, 4, dimension, 2).map((vector) => vector.map((value) => Math.round(value * 1000) / 1000));

const server = serverWithDistanceCollections(dimension, vectors);
const queryPoints = (collection: string, body: unknown): Promise<Hit[]> => queryPointHits(server, collection, body);

// ---- the naive reference -------------------------------------------------------------------

function stored(distance: DistanceName, vector: number[]): number[] {
  return distance === 'Cosine' ? normalise(vector) : vector;
}

/** Qdrant's internal larger-better similarity: dot (of unit vectors for Cosine), -L2², -L1. */
function similarity(distance: DistanceName, left: number[], right: number[]): number {
  const [a, b] = [stored(distance, left), stored(distance, right)];
  if (distance === 'Euclid') return -a.reduce((sum, value, position) => sum + (value - b[position]!) ** 2, 0);
  if (distance === 'Manhattan') return -a.reduce((sum, value, position) => sum + Math.abs(value - b[position]!), 0);
  return a.reduce((sum, value, position) => sum + value * b[position]!, 0);
}

/**
 * MMR over `candidates` (best first, as the nearest search returns them): the most relevant
 * first, then argmax λ·relevance − (1 − λ)·max similarity to the picks, recomputed from the full
 * matrix each round. Scores stay the candidates' query scores.
 */
function referenceMmr(distance: DistanceName, query: number[], candidates: ReferenceHit[], diversity: number, limit: number): ReferenceHit[] {
  const lambda = 1 - diversity;
  const rows = candidates.map((hit) => vectors[hit.id]!);
  const relevance = rows.map((row) => similarity(distance, query, row));
  const matrix = rows.map((left) => rows.map((right) => similarity(distance, left, right)));
  const remaining = candidates.map((_, position) => position);
  const picked: number[] = [];
  const take = (score: (candidate: number) => number) => {
    let best = 0;
    remaining.forEach((candidate, position) => {
      if (score(candidate) >= score(remaining[best]!)) best = position;
    });
    // Qdrant removes a pick by moving the last remaining candidate into its place.
    picked.push(remaining[best]!);
    remaining[best] = remaining[remaining.length - 1]!;
    remaining.pop();
  };
  if (limit > 0 && remaining.length > 0) take((candidate) => relevance[candidate]!);
  while (picked.length < limit && remaining.length > 0) {
    take((candidate) => lambda * relevance[candidate]! - (1 - lambda) * Math.max(...picked.map((chosen) => matrix[candidate]![chosen]!)));
  }
  return picked.map((position) => candidates[position]!);
}

function expectHits(actual: Hit[], expected: ReferenceHit[]): void {
  expect(actual.map((hit) => hit.id)).toEqual(expected.map((hit) => hit.id));
  actual.forEach((hit, position) => expect(hit.score).toBeCloseTo(expected[position]!.score, 4));
}

// ---- MMR ---------------------------------------------------------------------------------------

describe('query — mmr', () => {
  it.each(distances)('%s — the LangChain body verbatim picks as the naive reference does', async (distance) => {
    const probe = probes[0]!;
    // Exactly what LangChain (Python and JS) send for max_marginal_relevance_search.
    const body = JSON.parse(`{"query": {"nearest": ${JSON.stringify(probe)}, "mmr": {"diversity": 0.5, "candidates_limit": 20}}}`);
    const candidates = bruteForce(distance, probe, vectors, 20);
    expectHits(await queryPoints(distance, body), referenceMmr(distance, probe, candidates, 0.5, 10));
  });

  it.each(distances)('%s — the first pick is the most relevant candidate, and diversity changes the rest', async (distance) => {
    const probe = probes[1]!;
    const candidates = bruteForce(distance, probe, vectors, 60);
    const diverse = await queryPoints(distance, { query: { nearest: probe, mmr: { diversity: 0.9, candidates_limit: 60 } }, limit: 8 });
    expect(diverse[0]!.id).toBe(candidates[0]!.id);
    expectHits(diverse, referenceMmr(distance, probe, candidates, 0.9, 8));
    expect(diverse.map((hit) => hit.id)).not.toEqual(candidates.slice(0, 8).map((hit) => hit.id));
  });

  it.each(distances)('%s — diversity 0 is the plain nearest order', async (distance) => {
    const probe = probes[2]!;
    const hits = await queryPoints(distance, { query: { nearest: probe, mmr: { diversity: 0, candidates_limit: 30 } }, limit: 7 });
    expectHits(hits, bruteForce(distance, probe, vectors, 7));
  });

  it('mmr — candidates default to the limit; offset skips picks of limit + offset', async () => {
    const probe = probes[3]!;
    const defaults = await queryPoints('Cosine', { query: { nearest: probe, mmr: {} }, limit: 6 });
    expectHits(defaults, referenceMmr('Cosine', probe, bruteForce('Cosine', probe, vectors, 6), 0.5, 6));
    const paged = await queryPoints('Cosine', { query: { nearest: probe, mmr: { candidates_limit: 40 } }, limit: 5, offset: 3 });
    expectHits(paged, referenceMmr('Cosine', probe, bruteForce('Cosine', probe, vectors, 40), 0.5, 8).slice(3));
  });

  it('mmr — the filter and score_threshold narrow the candidates', async () => {
    const probe = probes[0]!;
    const keep = (id: number) => id % 3 === 1;
    const filtered = bruteForce('Euclid', probe, vectors, 25, { keep });
    const threshold = filtered[14]!.score;
    const hits = await queryPoints('Euclid', {
      query: { nearest: probe, mmr: { diversity: 0.7, candidates_limit: 25 } },
      filter: { must: [{ key: 'group', match: { value: 1 } }] },
      score_threshold: threshold,
      limit: 10,
    });
    const candidates = filtered.filter((hit) => hit.score <= threshold);
    expectHits(hits, referenceMmr('Euclid', probe, candidates, 0.7, 10));
  });

  it('mmr — over prefetched points and inside a prefetch', async () => {
    const [first, second] = [probes[0]!, probes[1]!];
    const union = new Map<number, ReferenceHit>();
    for (const hit of [...bruteForce('Dot', first, vectors, 30), ...bruteForce('Dot', second, vectors, 30)]) union.set(hit.id, hit);
    const rescored = [...union.keys()]
      .map((id) => ({ id, score: similarity('Dot', second, vectors[id]!) }))
      .sort((left, right) => right.score - left.score || left.id - right.id)
      .slice(0, 25);
    const root = await queryPoints('Dot', {
      prefetch: [{ query: first, limit: 30 }, { query: second, limit: 30 }],
      query: { nearest: second, mmr: { diversity: 0.6, candidates_limit: 25 } },
      limit: 9,
    });
    expectHits(root, referenceMmr('Dot', second, rescored, 0.6, 9));

    // An MMR prefetch hands its picks (with their query scores) to the stage above.
    const inner = referenceMmr('Dot', first, bruteForce('Dot', first, vectors, 40), 0.8, 12);
    const nested = await queryPoints('Dot', {
      prefetch: { query: { nearest: first, mmr: { diversity: 0.8, candidates_limit: 40 } }, limit: 12 },
      query: { fusion: 'rrf' },
      limit: 12,
    });
    expect(nested.map((hit) => hit.id)).toEqual(inner.map((hit) => hit.id));
  });

  it('mmr — a point id as the query is left out and picks among the others', async () => {
    const hits = await queryPoints('Manhattan', { query: { nearest: 5, mmr: { diversity: 0.5, candidates_limit: 15 } }, limit: 5 });
    const candidates = bruteForce('Manhattan', vectors[5]!, vectors, 15, { exclude: new Set([5]) });
    expectHits(hits, referenceMmr('Manhattan', vectors[5]!, candidates, 0.5, 5));
  });

  it('mmr — diversity outside 0..1 and candidates_limit below 1 are 400s naming the field', async () => {
    const probe = probes[0]!;
    const cases: [unknown, string][] = [
      [{ query: { nearest: probe, mmr: { diversity: 1.5 } } }, 'query.mmr.diversity'],
      [{ query: { nearest: probe, mmr: { diversity: -0.1 } } }, 'query.mmr.diversity'],
      [{ query: { nearest: probe, mmr: { candidates_limit: 0 } } }, 'query.mmr.candidates_limit'],
      [{ query: { nearest: probe, mmr: { candidates_limit: 100_000 } } }, 'query.mmr.candidates_limit'],
      [{ prefetch: { query: { nearest: probe, mmr: { diversity: 2 } } }, query: { fusion: 'rrf' } }, 'prefetch[0].query.mmr.diversity'],
    ];
    for (const [body, field] of cases) {
      const response = await server.request('POST', '/collections/Cosine/points/query', body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.status.error).toContain(field);
    }
  });

  it('mmr — an unknown key (lambda) is ignored as Qdrant ignores it, so diversity keeps its default', async () => {
    const probe = probes[0]!;
    const withUnknown = await server.request('POST', '/collections/Cosine/points/query', { query: { nearest: probe, mmr: { lambda: 0.9 } }, limit: 5 });
    const plain = await server.request('POST', '/collections/Cosine/points/query', { query: { nearest: probe, mmr: {} }, limit: 5 });
    expect(withUnknown.status).toBe(200);
    expect(withUnknown.body.result).toEqual(plain.body.result);
  });

  it('mmr — query/batch answers each search as a single query would', async () => {
    const probe = probes[2]!;
    const searches = [
      { query: { nearest: probe, mmr: { diversity: 0.5, candidates_limit: 20 } }, limit: 6 },
      { query: { nearest: probe, mmr: { diversity: 0.5, candidates_limit: 20 } }, limit: 4 },
      { query: probe, limit: 3 },
    ];
    const response = await server.request('POST', '/collections/Euclid/points/query/batch', { searches });
    expect(response.status).toBe(200);
    const candidates = bruteForce('Euclid', probe, vectors, 20);
    expectHits(response.body.result[0].points, referenceMmr('Euclid', probe, candidates, 0.5, 6));
    expectHits(response.body.result[1].points, referenceMmr('Euclid', probe, candidates, 0.5, 4));
    expectHits(response.body.result[2].points, bruteForce('Euclid', probe, vectors, 3));
  });

  it('mmr — the official client sends it and gets the same picks', async () => {
    const probe = probes[0]!;
    const answer = await server.client.query('Cosine', { query: { nearest: probe, mmr: { diversity: 0.5, candidates_limit: 20 } }, limit: 5 });
    const expected = referenceMmr('Cosine', probe, bruteForce('Cosine', probe, vectors, 20), 0.5, 5);
    expectHits(answer.points as Hit[], expected);
  });
});

// ---- one score per point, whatever the path ---------------------------------------------------

describe('query — score consistency', () => {
  it.each(distances)('%s — a point scores the identical float from search, prefetch re-scoring and query by id', async (distance) => {
    const anchor = 11;
    const record = await server.request('GET', `/collections/${distance}/points/${anchor}`);
    // The stored vector as the server returns it (normalised for Cosine): a query with it equals
    // a query by the point's id.
    const vector = record.body.result.vector as number[];
    const plain = await queryPoints(distance, { query: vector, limit: 41, params: { exact: true } });
    const byId = await queryPoints(distance, { query: anchor, limit: 40, params: { exact: true } });
    const rescored = await queryPoints(distance, { prefetch: { query: probes[0]!, limit: 200 }, query: vector, limit: 40 });
    const searched = await server.request('POST', `/collections/${distance}/points/search`, { vector, limit: 41, params: { exact: true } });
    const scoreOf = (hits: Hit[]) => new Map(hits.map((hit) => [hit.id, hit.score]));
    const [fromPlain, fromId, fromPrefetch, fromSearch] = [scoreOf(plain), scoreOf(byId), scoreOf(rescored), scoreOf(searched.body.result)];
    let compared = 0;
    for (const [id, score] of fromId) {
      expect(fromPlain.get(id)).toBe(score);
      expect(fromSearch.get(id)).toBe(score);
      if (fromPrefetch.has(id)) {
        expect(fromPrefetch.get(id)).toBe(score);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(5);
  });
});
