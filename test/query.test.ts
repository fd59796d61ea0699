// POST C/points/query and C/points/query/batch end to end (docs/api.md §3, §5): every query form
// against a slow reference computed here from Qdrant's definitions, through raw HTTP and the
// official client.
import { describe, expect, it } from 'vitest';
import {
  bruteForce,
  expectSameHits,
  largerIsBetter,
  normalise,
  pointsOf,
  randomVectors,
  referenceScore,
  upsertAll,
  type DistanceName,
  type ReferenceHit,
} from './support/search-data.js';
import { serverForFile } from './support/server.js';

const distances: DistanceName[] = ['Cosine', 'Euclid', 'Dot', 'Manhattan'];
const dimension = 6;
const vectors = randomVectors(21, 200, dimension);
const probes = randomVectors(22, 4, dimension);
const points = pointsOf(vectors);

const server = serverForFile({
  setUp: async () => {
    for (const distance of distances) {
      await server.request('PUT', `/collections/${distance}`, { vectors: { size: dimension, distance } });
      await upsertAll(server.request, distance, points);
    }
    // order_by over a whole collection walks a range index, as scroll does.
    await server.request('PUT', '/collections/Dot/index?wait=true', { field_name: 'price', field_schema: 'integer' });
    await server.request('PUT', '/collections/named', { vectors: { a: { size: dimension, distance: 'Dot' }, b: { size: 3, distance: 'Euclid' } } });
    await upsertAll(server.request, 'named', vectors.map((vector, id) => ({ id, vector: { a: vector, b: vector.slice(0, 3) } })));
  },
});

async function query(collection: string, body: unknown) {
  return server.request('POST', `/collections/${collection}/points/query`, body);
}

async function queryPoints(collection: string, body: unknown): Promise<{ id: number; score: number; version: number; payload?: unknown; vector?: unknown; order_value?: number }[]> {
  const response = await query(collection, body);
  if (response.status !== 200) throw new Error(`query failed: ${response.status} ${response.text}`);
  return response.body.result.points;
}

// ---- slow references of the example-based forms (Qdrant, "Explore the data") -------------

/** Qdrant's larger-better similarity: the score for Cosine/Dot, -L2² for Euclid, -L1 for Manhattan. */
function similarity(distance: DistanceName, example: number[], stored: number[]): number {
  if (distance === 'Euclid') return -(referenceScore('Euclid', example, stored) ** 2);
  if (distance === 'Manhattan') return -referenceScore('Manhattan', example, stored);
  return referenceScore(distance, example, stored);
}
const squash = (value: number) => 0.5 * (value / (1 + Math.abs(value)) + 1);

/** Every point scored by `score`, best (largest) first, ties by id, `exclude` left out. */
function rankAll(score: (vector: number[]) => number, limit: number, exclude: number[] = []): ReferenceHit[] {
  return vectors
    .map((vector, id) => ({ id, score: score(vector) }))
    .filter((hit) => !exclude.includes(hit.id))
    .sort((left, right) => right.score - left.score || left.id - right.id)
    .slice(0, limit);
}

function storedVector(distance: DistanceName, id: number): number[] {
  return distance === 'Cosine' ? normalise(vectors[id]!) : vectors[id]!;
}

describe('query — nearest forms', () => {
  it.each(distances)('%s — a bare vector and {"nearest"} equal brute force', async (distance) => {
    const probe = probes[0]!;
    const expected = bruteForce(distance, probe, vectors, 10);
    expectSameHits(await queryPoints(distance, { query: probe }), expected);
    expectSameHits(await queryPoints(distance, { query: { nearest: probe }, params: { exact: true } }), expected);
  });

  it.each(distances)('%s — a point id queries with its vector and is left out of its own results', async (distance) => {
    const hits = await queryPoints(distance, { query: 17, limit: 5 });
    expectSameHits(hits, bruteForce(distance, storedVector(distance, 17), vectors, 5, { exclude: new Set([17]) }));
  });

  it('defaults: limit 10, no payload, no vector; offset and limit page through', async () => {
    const probe = probes[1]!;
    const first = await queryPoints('Euclid', { query: probe });
    expect(first).toHaveLength(10);
    expect(Object.keys(first[0]!).sort()).toEqual(['id', 'score', 'version']);
    const paged = await queryPoints('Euclid', { query: probe, limit: 4, offset: 6 });
    expectSameHits(paged, bruteForce('Euclid', probe, vectors, 10).slice(6));
  });

  it.each(distances)('%s — score_threshold keeps better scores only', async (distance) => {
    const probe = probes[2]!;
    const reference = bruteForce(distance, probe, vectors, 40);
    // Midway between two neighbours, so float32 rounding cannot move a point across it.
    const threshold = (reference[15]!.score + reference[16]!.score) / 2;
    const hits = await queryPoints(distance, { query: probe, limit: 40, score_threshold: threshold });
    expectSameHits(hits, reference.filter((hit) => (largerIsBetter(distance) ? hit.score > threshold : hit.score < threshold)));
  });

  it('using picks the named vector; with_payload and with_vector select', async () => {
    const probe = probes[3]!;
    const hits = await queryPoints('named', { query: probe.slice(0, 3), using: 'b', limit: 3, with_payload: true, with_vector: ['b'] });
    expectSameHits(hits, bruteForce('Euclid', probe.slice(0, 3), vectors.map((vector) => vector.slice(0, 3)), 3));
    expect(hits[0]!.vector).toEqual({ b: vectors[hits[0]!.id]!.slice(0, 3) });
    expect(hits[0]!.payload).toEqual({});
    const missing = await query('named', { query: probe, using: 'nope' });
    expect(missing.status).toBe(400);
    expect(missing.body.status.error).toContain('nope');
  });

  it('a missing point id is a 404; a bad id a 400', async () => {
    const missing = await query('Dot', { query: 123456 });
    expect(missing.status).toBe(404);
    const bad = await query('Dot', { query: 'not-a-uuid' });
    expect(bad.status).toBe(400);
    expect(bad.body.status.error).toMatch(/not a valid point ID/);
  });

  it('lookup_from reads example vectors from another collection, whose ids are not excluded', async () => {
    // Point 17's vector in "Dot" searched in "named" under vector a (also Dot, same data).
    const hits = await queryPoints('named', { query: 17, using: 'a', limit: 3, lookup_from: { collection: 'Dot' } });
    expectSameHits(hits, bruteForce('Dot', vectors[17]!, vectors, 3));
    expect(hits[0]!.id).toBe(bruteForce('Dot', vectors[17]!, vectors, 1)[0]!.id);
    const wrong = await query('named', { query: 17, using: 'b', lookup_from: { collection: 'Dot' } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.status.error).toMatch(/expected 3, got 6/);
    const absent = await query('named', { query: 17, using: 'a', lookup_from: { collection: 'absent' } });
    expect(absent.status).toBe(404);
  });
});

describe('query — recommend', () => {
  it.each(distances)('%s — average_vector searches avg(pos) + (avg(pos) - avg(neg)) without the examples', async (distance) => {
    const positive = [3, 40];
    const raw = [0.5, -0.25, 1, 0, 0.75, -1];
    const negative = [77];
    const positiveVectors = [storedVector(distance, 3), storedVector(distance, 40), raw];
    const average = (rows: number[][]) => rows[0]!.map((_, position) => rows.reduce((sum, row) => sum + row[position]!, 0) / rows.length);
    const averagePositive = average(positiveVectors);
    const averageNegative = average([storedVector(distance, 77)]);
    const target = averagePositive.map((value, position) => 2 * value - averageNegative[position]!);
    const hits = await queryPoints(distance, { query: { recommend: { positive: [...positive, raw], negative, strategy: 'average_vector' } }, limit: 8 });
    expectSameHits(hits, bruteForce(distance, target, vectors, 8, { exclude: new Set([3, 40, 77]) }), 3);
  });

  it.each(distances)('%s — best_score: squashed best positive similarity, or minus the squashed best negative', async (distance) => {
    const positive = [5, 9];
    const negative = [11, [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]];
    const examples = (list: (number | number[])[]) => list.map((item) => (typeof item === 'number' ? storedVector(distance, item) : item));
    const positives = examples(positive);
    const negatives = examples(negative);
    const reference = rankAll((vector) => {
      const best = Math.max(...positives.map((example) => similarity(distance, example, vector)));
      const worst = Math.max(...negatives.map((example) => similarity(distance, example, vector)));
      return best > worst ? squash(best) : -squash(worst);
    }, 12, [5, 9, 11]);
    const hits = await queryPoints(distance, { query: { recommend: { positive, negative, strategy: 'best_score' } }, limit: 12 });
    expectSameHits(hits, reference);
  });

  it.each(distances)('%s — sum_scores: Σ similarity to positives - Σ similarity to negatives', async (distance) => {
    const positive = [[0.3, -0.2, 0.1, 0.9, -0.5, 0.2], 8];
    const negative = [13];
    const positives = [positive[0] as number[], storedVector(distance, 8)];
    const negatives = [storedVector(distance, 13)];
    const reference = rankAll(
      (vector) =>
        positives.reduce((sum, example) => sum + similarity(distance, example, vector), 0) -
        negatives.reduce((sum, example) => sum + similarity(distance, example, vector), 0),
      10,
      [8, 13],
    );
    const hits = await queryPoints(distance, { query: { recommend: { positive, negative, strategy: 'sum_scores' } }, limit: 10 });
    expectSameHits(hits, reference, 3);
  });

  it('negatives alone are allowed for best_score; average_vector needs a positive', async () => {
    const hits = await queryPoints('Dot', { query: { recommend: { negative: [1], strategy: 'best_score' } }, limit: 3 });
    expectSameHits(hits, rankAll((vector) => -squash(similarity('Dot', vectors[1]!, vector)), 3, [1]));
    const refused = await query('Dot', { query: { recommend: { negative: [1] } } });
    expect(refused.status).toBe(400);
    expect(refused.body.status.error).toContain('query.recommend.positive');
  });
});

describe('query — discover and context', () => {
  it.each(distances)('%s — discover: Σ ±1 per context pair plus the squashed target similarity', async (distance) => {
    const target = probes[0]!;
    const pairs: [number, number][] = [
      [2, 30],
      [50, 4],
    ];
    const reference = rankAll((vector) => {
      let rank = 0;
      for (const [positive, negative] of pairs) {
        rank += Math.sign(similarity(distance, storedVector(distance, positive), vector) - similarity(distance, storedVector(distance, negative), vector));
      }
      return rank + squash(similarity(distance, target, vector));
    }, 10, [2, 30, 50, 4]);
    const hits = await queryPoints(distance, {
      query: { discover: { target, context: pairs.map(([positive, negative]) => ({ positive, negative })) } },
      limit: 10,
    });
    expectSameHits(hits, reference);
  });

  it.each(distances)('%s — context: Σ squashed min(sim(pos) - sim(neg) - ε, 0)', async (distance) => {
    const pairs: [number[], number][] = [
      [probes[1]!, 60],
      [probes[2]!, 61],
    ];
    const reference = rankAll((vector) => {
      let total = 0;
      for (const [positive, negative] of pairs) {
        const difference = Math.min(similarity(distance, positive, vector) - similarity(distance, storedVector(distance, negative), vector) - 2 ** -23, 0);
        total += difference / (1 + Math.abs(difference));
      }
      return total;
    }, 10, [60, 61]);
    const hits = await queryPoints(distance, { query: { context: pairs.map(([positive, negative]) => ({ positive, negative })) }, limit: 10 });
    // Points on the positive side of both pairs all score 0: ties go to the lower id, as here.
    expectSameHits(hits, reference);
  });
});

describe('query — prefetch and fusion', () => {
  const first = probes[0]!;
  const second = probes[1]!;

  /** Reference rrf over reference prefetch lists. */
  function rrf(lists: ReferenceHit[][], k: number): ReferenceHit[] {
    const totals = new Map<number, number>();
    for (const list of lists) list.forEach((hit, rank) => totals.set(hit.id, (totals.get(hit.id) ?? 0) + 1 / (rank + k)));
    const order = lists.flatMap((list) => list.map((hit) => hit.id));
    return [...totals.entries()]
      .map(([id, score]) => ({ id, score }))
      .sort((left, right) => right.score - left.score || order.indexOf(left.id) - order.indexOf(right.id));
  }

  it('rrf — Σ 1/(rank + 2) over the prefetch lists', async () => {
    const lists = [bruteForce('Euclid', first, vectors, 15), bruteForce('Euclid', second, vectors, 15)];
    const hits = await queryPoints('Euclid', { prefetch: [{ query: first, limit: 15 }, { query: second, limit: 15 }], query: { fusion: 'rrf' }, limit: 10 });
    const reference = rrf(lists, 2).slice(0, 10);
    hits.forEach((hit, position) => expect(hit.score).toBeCloseTo(reference[position]!.score, 6));
    expect(new Set(hits.map((hit) => hit.id))).toEqual(new Set(reference.map((hit) => hit.id)));
  });

  it('rrf — {"rrf": {"k": 60}} changes k', async () => {
    const lists = [bruteForce('Dot', first, vectors, 10), bruteForce('Dot', second, vectors, 10)];
    const hits = await queryPoints('Dot', { prefetch: [{ query: first }, { query: second }], query: { rrf: { k: 60 } } });
    const reference = rrf(lists, 60).slice(0, 10);
    hits.forEach((hit, position) => expect(hit.score).toBeCloseTo(reference[position]!.score, 6));
  });

  it('dbsf — each list normalised by mean ± 3 sample sd, then summed', async () => {
    const lists = [bruteForce('Manhattan', first, vectors, 12), bruteForce('Manhattan', second, vectors, 12)];
    const totals = new Map<number, number>();
    for (const list of lists) {
      const scores = list.map((hit) => -hit.score); // distances: better is higher after negation
      const mean = scores.reduce((sum, value) => sum + value, 0) / scores.length;
      const deviation = Math.sqrt(scores.reduce((sum, value) => sum + (value - mean) ** 2, 0) / (scores.length - 1));
      list.forEach((hit, position) => {
        const normalised = (scores[position]! - (mean - 3 * deviation)) / (6 * deviation);
        totals.set(hit.id, (totals.get(hit.id) ?? 0) + normalised);
      });
    }
    const reference = [...totals.entries()].map(([id, score]) => ({ id, score })).sort((left, right) => right.score - left.score).slice(0, 10);
    const hits = await queryPoints('Manhattan', { prefetch: [{ query: first, limit: 12 }, { query: second, limit: 12 }], query: { fusion: 'dbsf' } });
    hits.forEach((hit, position) => expect(hit.score).toBeCloseTo(reference[position]!.score, 4));
  });

  it('a nearest query over a prefetch re-scores only the prefetched points', async () => {
    const prefetched = bruteForce('Cosine', first, vectors, 30);
    const allowed = new Set(prefetched.map((hit) => hit.id));
    const hits = await queryPoints('Cosine', { prefetch: { query: first, limit: 30 }, query: second, limit: 5 });
    expectSameHits(hits, bruteForce('Cosine', second, vectors, 5, { keep: (id) => allowed.has(id) }));
  });

  it('nested prefetches: fusion of a re-scored prefetch and a plain one', async () => {
    const inner = new Set(bruteForce('Dot', first, vectors, 40).map((hit) => hit.id));
    const rescored = bruteForce('Dot', second, vectors, 10, { keep: (id) => inner.has(id) });
    const plain = bruteForce('Dot', probes[2]!, vectors, 10);
    const hits = await queryPoints('Dot', {
      prefetch: [{ prefetch: { query: first, limit: 40 }, query: second, limit: 10 }, { query: probes[2], limit: 10 }],
      query: { fusion: 'rrf' },
      limit: 5,
    });
    const reference = rrf([rescored, plain], 2).slice(0, 5);
    hits.forEach((hit, position) => expect(hit.score).toBeCloseTo(reference[position]!.score, 6));
  });

  it('prefetches may use different named vectors', async () => {
    const hits = await queryPoints('named', {
      prefetch: [{ query: first, using: 'a', limit: 5 }, { query: second.slice(0, 3), using: 'b', limit: 5 }],
      query: { fusion: 'rrf' },
    });
    const reference = rrf(
      [bruteForce('Dot', first, vectors, 5), bruteForce('Euclid', second.slice(0, 3), vectors.map((vector) => vector.slice(0, 3)), 5)],
      2,
    );
    expect(hits.map((hit) => hit.score)).toEqual(reference.map((hit) => expect.closeTo(hit.score, 6)));
  });
});

describe('query — order_by, sample, no query', () => {
  it('order_by orders by a payload value and reports it', async () => {
    const ascending = await queryPoints('Dot', { query: { order_by: 'price' }, limit: 3 });
    expect(ascending.map((hit) => hit.id)).toEqual([0, 1, 2]);
    expect(ascending.map((hit) => hit.order_value)).toEqual([0, 10, 20]);
    const descending = await queryPoints('Dot', { query: { order_by: { key: 'price', direction: 'desc', start_from: 1000 } }, limit: 2 });
    expect(descending.map((hit) => hit.id)).toEqual([100, 99]);
  });

  it('order_by without a range index on the key is a 400, as for scroll', async () => {
    const response = await query('Euclid', { query: { order_by: 'price' } });
    expect(response.status).toBe(400);
    expect(response.body.status.error).toMatch(/range index/);
  });

  it('order_by with a filter orders only the points the filter accepts', async () => {
    const hits = await queryPoints('Dot', { query: { order_by: { key: 'price', direction: 'desc' } }, filter: { must: [{ key: 'group', match: { value: 2 } }] }, limit: 3 });
    expect(hits.map((hit) => hit.id)).toEqual([197, 194, 191]);
  });

  it('order_by over a prefetch orders only the prefetched points', async () => {
    const prefetched = bruteForce('Euclid', probes[0]!, vectors, 6).map((hit) => hit.id).sort((left, right) => left - right);
    const hits = await queryPoints('Euclid', { prefetch: { query: probes[0], limit: 6 }, query: { order_by: 'price' } });
    expect(hits.map((hit) => hit.id)).toEqual(prefetched);
  });

  it('sample random returns distinct existing points, limit of them', async () => {
    const hits = await queryPoints('Dot', { query: { sample: 'random' }, limit: 25 });
    expect(hits).toHaveLength(25);
    expect(new Set(hits.map((hit) => hit.id)).size).toBe(25);
    for (const hit of hits) expect(hit.id).toBeLessThan(vectors.length);
  });

  it('no query and no prefetch: points by id ascending, like scroll', async () => {
    const hits = await queryPoints('Dot', { limit: 4, offset: 2 });
    expect(hits.map((hit) => hit.id)).toEqual([2, 3, 4, 5]);
  });
});

describe('query — filters at every level', () => {
  const inGroup = (group: number) => (id: number) => id % 3 === group;

  it('a root filter applies to the query and to every prefetch under it', async () => {
    const probe = probes[0]!;
    const hits = await queryPoints('Euclid', { query: probe, filter: { must: [{ key: 'group', match: { value: 0 } }] }, limit: 6 });
    expectSameHits(hits, bruteForce('Euclid', probe, vectors, 6, { keep: inGroup(0) }));
    const fused = await queryPoints('Euclid', {
      prefetch: [{ query: probe, limit: 10 }, { query: probes[1], limit: 10 }],
      query: { fusion: 'rrf' },
      filter: { must: [{ key: 'group', match: { value: 1 } }] },
    });
    expect(fused.length).toBeGreaterThan(0);
    for (const hit of fused) expect(hit.id % 3).toBe(1);
  });

  it('a prefetch filter narrows only that prefetch', async () => {
    const probe = probes[1]!;
    const hits = await queryPoints('Cosine', {
      prefetch: [{ query: probe, limit: 8, filter: { must: [{ key: 'group', match: { value: 2 } }] } }],
      query: probe,
      limit: 8,
    });
    expectSameHits(hits, bruteForce('Cosine', probe, vectors, 8, { keep: inGroup(2) }));
  });

  it('example-based forms honour the filter too', async () => {
    const keep = inGroup(1);
    const hits = await queryPoints('Dot', { query: { recommend: { positive: [3], strategy: 'sum_scores' } }, filter: { must: [{ key: 'group', match: { value: 1 } }] }, limit: 5 });
    const reference = rankAll((vector) => similarity('Dot', vectors[3]!, vector), 200, [3]).filter((hit) => keep(hit.id)).slice(0, 5);
    expectSameHits(hits, reference);
  });

  it('a bad filter in a prefetch is a 400 naming where it is', async () => {
    const response = await query('Dot', { prefetch: [{ query: probes[0] }, { query: probes[1], filter: { must: [{ key: 'x', match: {} }] } }], query: { fusion: 'rrf' } });
    expect(response.status).toBe(400);
    expect(response.body.status.error).toContain('prefetch[1].filter');
  });
});

describe('query refusals (docs/api.md §5)', () => {
  it.each([
    ['prefetch without query', { prefetch: { query: [1, 0, 0, 0, 0, 0] } }, "Bad request: A query is needed to merge the prefetches. Can't have prefetches without defining a query."],
    ['score_threshold without query', { score_threshold: 0.5 }, "Bad request: A query is needed to use the score_threshold. Can't have score_threshold without defining a query."],
    ['order_by with score_threshold', { query: { order_by: 'price' }, score_threshold: 0.5 }, "Bad request: Can't use score_threshold with an order_by query."],
    ['fusion with using', { prefetch: { query: [1, 0, 0, 0, 0, 0] }, query: { fusion: 'rrf' }, using: 'a' }, "Bad request: Fusion queries cannot be combined with the 'using' field."],
  ])('%s answers 400 with the contract message', async (_name, body, message) => {
    const response = await query('Dot', body);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ time: expect.any(Number), status: { error: message } });
  });

  it('a malformed query form is a 400 naming the field', async () => {
    const response = await query('Dot', { query: { recommend: { positive: [1], strategy: 'mean' } } });
    expect(response.status).toBe(400);
    expect(response.body.status.error).toMatch(/^Validation error in body query/);
  });
});

describe('query batch and the official client', () => {
  it('query/batch answers {points} per search, equal to single queries', async () => {
    const searches = [{ query: probes[0] }, { query: 5, limit: 3 }, { query: { recommend: { positive: [1, 2], strategy: 'best_score' } }, limit: 4 }, { query: probes[1], limit: 2, with_payload: true }];
    const response = await server.request('POST', '/collections/Cosine/points/query/batch', { searches });
    expect(response.status).toBe(200);
    for (const [position, body] of searches.entries()) {
      expect(response.body.result[position]).toEqual({ points: await queryPoints('Cosine', body) });
    }
  });

  it('client.query and client.queryBatch', async () => {
    const probe = probes[2]!;
    const answer = await server.client.query('Euclid', { query: probe, limit: 5 });
    expectSameHits(answer.points as { id: number; score: number }[], bruteForce('Euclid', probe, vectors, 5));
    const recommended = await server.client.query('Euclid', { query: { recommend: { positive: [3], negative: [4], strategy: 'sum_scores' } }, limit: 3 });
    expect(recommended.points).toHaveLength(3);
    const fused = await server.client.query('Euclid', { prefetch: [{ query: probe, limit: 5 }, { query: 9, limit: 5 }], query: { fusion: 'rrf' }, limit: 3 });
    expect(fused.points).toHaveLength(3);
    const batch = await server.client.queryBatch('Euclid', { searches: [{ query: probe, limit: 2 }, { query: { sample: 'random' }, limit: 3 }] });
    expect(batch.map((result) => result.points.length)).toEqual([2, 3]);
  });
});
