// The relevance_feedback query (docs/api.md §5.7) end to end, through raw HTTP and the official JS
// client: at the root, in a prefetch and in a batch, checked against a slow reference computed
// here from the definition (Qdrant's naive strategy) in float64.
import { describe, expect, it } from 'vitest';
import { expectSameHits, normalise, randomVectors, type DistanceName, type ReferenceHit } from './support/search-data.js';
import { allDistances, queryPointHits, serverWithDistanceCollections, type Hit } from './support/distance-collections.js';

const distances = allDistances;
const dimension = 8;
const vectors = randomVectors(61, 300, dimension);
const probes = randomVectors(62, 4, dimension);

const server = serverWithDistanceCollections(dimension, vectors);
const queryPoints = (collection: string, body: unknown): Promise<Hit[]> => queryPointHits(server, collection, body);

// ---- the slow reference ------------------------------------------------------------------------

type Example = number | number[];
interface Feedback {
  example: Example;
  score: number;
}
interface Naive {
  a: number;
  b: number;
  c: number;
}

const vectorOf = (example: Example): number[] => (typeof example === 'number' ? vectors[example]! : example);

/** Qdrant's internal larger-better similarity: dot (of unit vectors for Cosine), −L2², −L1. */
function similarity(distance: DistanceName, example: number[], stored: number[]): number {
  const [left, right] = distance === 'Cosine' ? [normalise(example), normalise(stored)] : [example, stored];
  if (distance === 'Euclid') return -left.reduce((sum, value, position) => sum + (value - right[position]!) ** 2, 0);
  if (distance === 'Manhattan') return -left.reduce((sum, value, position) => sum + Math.abs(value - right[position]!), 0);
  return left.reduce((sum, value, position) => sum + value * right[position]!, 0);
}

/**
 * a·sim(target) + Σ (s_better − s_worse)^b · c · (sim(better) − sim(worse)) over the pairs: the
 * feedback sorted by score (stably, best first), paired from both ends, at most 3 pairs.
 */
function referenceScore(distance: DistanceName, target: Example, feedback: Feedback[], naive: Naive, stored: number[]): number {
  const ranked = [...feedback].sort((left, right) => right.score - left.score);
  let score = naive.a * similarity(distance, vectorOf(target), stored);
  for (let step = 0; step < Math.min(3, Math.floor(ranked.length / 2)); step++) {
    const better = ranked[step]!;
    const worse = ranked[ranked.length - 1 - step]!;
    const delta = similarity(distance, vectorOf(better.example), stored) - similarity(distance, vectorOf(worse.example), stored);
    score += (better.score - worse.score) ** naive.b * naive.c * delta;
  }
  return score;
}

/** The best `limit` of `candidates` (ids) by the reference score; ids used as examples never appear. */
function referenceQuery(distance: DistanceName, target: Example, feedback: Feedback[], naive: Naive, limit: number, candidates?: number[]): ReferenceHit[] {
  const examples = new Set([target, ...feedback.map((item) => item.example)].filter((example): example is number => typeof example === 'number'));
  return (candidates ?? vectors.map((_, id) => id))
    .filter((id) => !examples.has(id))
    .map((id) => ({ id, score: referenceScore(distance, target, feedback, naive, vectors[id]!) }))
    .sort((left, right) => right.score - left.score || left.id - right.id)
    .slice(0, limit);
}

/** The nearest `limit` ids to `probe` (for a prefetch), examples left out. */
function nearestIds(distance: DistanceName, probe: number[], limit: number, exclude: Set<number>): number[] {
  return vectors
    .map((vector, id) => ({ id, score: similarity(distance, probe, vector) }))
    .filter((hit) => !exclude.has(hit.id))
    .sort((left, right) => right.score - left.score || left.id - right.id)
    .slice(0, limit)
    .map((hit) => hit.id);
}

const feedback: Feedback[] = [
  { example: 11, score: 0.92 },
  { example: probes[1]!, score: 0.15 },
  { example: 40, score: 0.61 },
  { example: 77, score: 0.33 },
  { example: 150, score: 0.8 },
  { example: probes[2]!, score: 0.05 },
  { example: 201, score: 0.5 },
];
const naive: Naive = { a: 0.8, b: 1.5, c: 0.6 };
const body = (target: Example, items: Feedback[], strategy: Naive) => ({ relevance_feedback: { target, feedback: items, strategy: { naive: strategy } } });

describe('query — relevance_feedback', () => {
  it.each(distances)('%s — over the whole collection it ranks as the slow reference; example ids never appear', async (distance) => {
    const hits = await queryPoints(distance, { query: body(probes[0]!, feedback, naive), limit: 12 });
    expectSameHits(hits, referenceQuery(distance, probes[0]!, feedback, naive, 12));
    const examples = [11, 40, 77, 150, 201];
    expect(hits.some((hit) => examples.includes(hit.id))).toBe(false);
  });

  it.each(distances)('%s — a target given by id, an odd count and a filter', async (distance) => {
    const items = feedback.slice(0, 5);
    const strategy = { a: 1.2, b: 0.7, c: 2 };
    const hits = await queryPoints(distance, { query: body(5, items, strategy), filter: { must: [{ key: 'group', match: { value: 1 } }] }, limit: 9 });
    const inGroup = vectors.map((_, id) => id).filter((id) => id % 3 === 1);
    expectSameHits(hits, referenceQuery(distance, 5, items, strategy, 9, inGroup));
    expect(hits.some((hit) => hit.id === 5)).toBe(false);
  });

  it('without feedback pairs it is a·similarity to the target; offset and score_threshold apply', async () => {
    const single = [{ example: 3, score: 1 }];
    const hits = await queryPoints('Dot', { query: body(probes[3]!, single, { a: 2, b: 1, c: 1 }), limit: 5, offset: 2 });
    expectSameHits(hits, referenceQuery('Dot', probes[3]!, single, { a: 2, b: 1, c: 1 }, 7).slice(2));
    const reference = referenceQuery('Dot', probes[3]!, single, { a: 2, b: 1, c: 1 }, 300);
    // Midway between two scores, so float32 rounding cannot move a point across it.
    const threshold = (reference[20]!.score + reference[21]!.score) / 2;
    const above = await queryPoints('Dot', { query: body(probes[3]!, single, { a: 2, b: 1, c: 1 }), limit: 300, score_threshold: threshold });
    expect(above.map((hit) => hit.id)).toEqual(reference.filter((hit) => hit.score > threshold).map((hit) => hit.id));
  });

  it.each(distances)('%s — at the root over a prefetch it re-scores only the prefetched points', async (distance) => {
    const examples = new Set([11, 40, 77, 150, 201]);
    const candidates = nearestIds(distance, probes[0]!, 40, examples);
    const hits = await queryPoints(distance, { prefetch: { query: probes[0], limit: 40 }, query: body(probes[0]!, feedback, naive), limit: 10 });
    expectSameHits(hits, referenceQuery(distance, probes[0]!, feedback, naive, 10, candidates));
  });

  it.each(distances)('%s — inside a prefetch, its points feed the stage above', async (distance) => {
    const inner = referenceQuery(distance, probes[1]!, feedback, naive, 25).map((hit) => hit.id);
    const hits = await queryPoints(distance, { prefetch: { query: body(probes[1]!, feedback, naive), limit: 25 }, query: probes[3], limit: 6 });
    const expected = inner
      .map((id) => ({ id, score: similarity(distance, probes[3]!, vectors[id]!) }))
      .sort((left, right) => right.score - left.score)
      .slice(0, 6)
      .map((hit) => hit.id);
    expect(hits.map((hit) => hit.id)).toEqual(expected);
  });

  it('batch — each search answers as it would alone', async () => {
    const searches = [{ query: body(probes[0]!, feedback, naive), limit: 4 }, { query: body(8, feedback.slice(2), { a: 0.3, b: 2, c: 1 }), limit: 3 }];
    const response = await server.request('POST', '/collections/Cosine/points/query/batch', { searches });
    expect(response.status).toBe(200);
    expectSameHits(response.body.result[0].points, referenceQuery('Cosine', probes[0]!, feedback, naive, 4));
    expectSameHits(response.body.result[1].points, referenceQuery('Cosine', 8, feedback.slice(2), { a: 0.3, b: 2, c: 1 }, 3));
  });

  it('the JS client — client.query with relevance_feedback answers as the reference', async () => {
    const answer = await server.client.query('Euclid', { query: body(probes[2]!, feedback, naive), limit: 7, with_payload: true });
    expectSameHits(answer.points as Hit[], referenceQuery('Euclid', probes[2]!, feedback, naive, 7));
    expect(answer.points[0]!.payload).toEqual({ group: (answer.points[0]!.id as number) % 3 });
    const batch = await server.client.queryBatch('Manhattan', { searches: [{ query: body(4, feedback, naive), limit: 3 }] });
    expectSameHits(batch[0]!.points as Hit[], referenceQuery('Manhattan', 4, feedback, naive, 3));
  });

  it('bad input is a 400 naming the field, through HTTP and the JS client', async () => {
    const cases: [unknown, RegExp][] = [
      [{ relevance_feedback: { target: probes[0], feedback } }, /relevance_feedback/],
      [body(probes[0]!, [{ example: [1, 2], score: 1 }], naive), /query\.relevance_feedback\.feedback\[0\]\.example: /],
      [body([1, 2, 3], feedback, naive), /query\.relevance_feedback\.target: /],
      [body(probes[0]!, [{ example: 1, score: 2 }, { example: 2, score: 2 }], { a: 1, b: -1, c: 1 }), /query\.relevance_feedback\.strategy\.naive: the weight/],
      [body(probes[0]!, feedback, { a: 1e39, b: 1, c: 1 }), /query\.relevance_feedback\.strategy\.naive\.a: must be a finite 32-bit float/],
    ];
    for (const [query, message] of cases) {
      const response = await server.request('POST', '/collections/Cosine/points/query', { query });
      expect(response.status, JSON.stringify(query)).toBe(400);
      expect(response.body.status.error).toMatch(message);
    }
    const nested = await server.request('POST', '/collections/Cosine/points/query', { prefetch: { query: body([1], feedback, naive) }, query: { fusion: 'rrf' } });
    expect(nested.status).toBe(400);
    expect(nested.body.status.error).toMatch(/prefetch\[0\]\.query\.relevance_feedback\.target: /);
    const missing = await server.request('POST', '/collections/Cosine/points/query', { query: body(probes[0]!, [{ example: 99_999, score: 1 }], naive) });
    expect(missing.status).toBe(404);
    await expect(server.client.query('Cosine', { query: body(probes[0]!, feedback, { a: 1, b: 1, c: Number.MAX_VALUE }) })).rejects.toThrow();
  });
});
