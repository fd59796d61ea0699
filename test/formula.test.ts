// Formula queries end to end (docs/api.md §5.5): prefetched points re-scored by an expression,
// checked against the same expression computed by hand here from the prefetch's reference scores
// and the payloads, through raw HTTP and the official client.
import { describe, expect, it } from 'vitest';
import { bruteForce, randomVectors, upsertAll, type ReferenceHit } from './support/search-data.js';
import { serverForFile } from './support/server.js';

const dimension = 5;
const vectors = randomVectors(41, 120, dimension);
const probe = randomVectors(42, 1, dimension)[0]!;
const tags = ['h1', 'h2', 'p', 'li'];

function payloadOf(id: number) {
  return {
    tag: tags[id % 4],
    price: (id * 7) % 50,
    published: new Date(Date.UTC(2024, 0, 1 + (id % 30))).toISOString(),
    place: { lon: 13 + (id % 10) / 10, lat: 52 + (id % 7) / 10 },
    ...(id % 5 === 0 ? {} : { boost: (id % 5) / 10 }),
  };
}

const server = serverForFile({
  setUp: async () => {
    await server.request('PUT', '/collections/docs', { vectors: { size: dimension, distance: 'Cosine' } });
    await upsertAll(
      server.request,
      'docs',
      vectors.map((vector, id) => ({ id, vector, payload: payloadOf(id) })),
    );
  },
});

interface Hit {
  id: number;
  score: number;
}

async function query(body: unknown) {
  return server.request('POST', '/collections/docs/points/query', body);
}

async function queryPoints(body: unknown): Promise<Hit[]> {
  const response = await query(body);
  if (response.status !== 200) throw new Error(`query failed: ${response.status} ${response.text}`);
  return response.body.result.points;
}

/** The best `limit` by `score` (larger first), as the reference for a formula stage. */
function rank(candidates: ReferenceHit[], score: (hit: ReferenceHit) => number, limit: number): Hit[] {
  return candidates
    .map((hit) => ({ id: hit.id, score: score(hit) }))
    .sort((left, right) => right.score - left.score || left.id - right.id)
    .slice(0, limit);
}

function expectHits(actual: Hit[], expected: Hit[]): void {
  expect(actual.map((hit) => hit.id)).toEqual(expected.map((hit) => hit.id));
  actual.forEach((hit, position) => expect(hit.score).toBeCloseTo(expected[position]!.score, 4));
}

describe('query — formula', () => {
  it('formula — $score plus weighted conditions, as the documentation example', async () => {
    const prefetched = bruteForce('Cosine', probe, vectors, 50);
    const body = {
      prefetch: { query: probe, limit: 50 },
      query: {
        formula: {
          sum: ['$score', { mult: [0.5, { key: 'tag', match: { any: ['h1', 'h2'] } }] }, { mult: [0.25, { key: 'tag', match: { value: 'p' } }] }],
        },
      },
      limit: 10,
    };
    const expected = rank(
      prefetched,
      (hit) => hit.score + (['h1', 'h2'].includes(payloadOf(hit.id).tag!) ? 0.5 : 0) + (payloadOf(hit.id).tag === 'p' ? 0.25 : 0),
      10,
    );
    expectHits(await queryPoints(body), expected);
  });

  it('formula — payload variables with defaults, decays of a number, a datetime and a distance', async () => {
    const prefetched = bruteForce('Cosine', probe, vectors, 40);
    const origin = { lon: 13.5, lat: 52.3 };
    const body = {
      prefetch: { query: probe, limit: 40 },
      query: {
        formula: {
          sum: [
            { mult: ['$score', 'boost'] },
            { lin_decay: { x: 'price', target: 25, scale: 50 } },
            { exp_decay: { x: { datetime_key: 'published' }, target: { datetime: '2024-01-15T00:00:00Z' }, scale: 86_400_000_000 * 10 } },
            { gauss_decay: { x: { geo_distance: { origin, to: 'place' } }, scale: 20_000, midpoint: 0.3 } },
          ],
        },
        defaults: { boost: 0.05 },
      },
      limit: 12,
    };
    const haversine = (from: { lon: number; lat: number }, to: { lon: number; lat: number }) => {
      const radians = (degrees: number) => (degrees * Math.PI) / 180;
      const a = Math.sin(radians(to.lat - from.lat) / 2) ** 2 + Math.cos(radians(from.lat)) * Math.cos(radians(to.lat)) * Math.sin(radians(to.lon - from.lon) / 2) ** 2;
      return 2 * 6_371_008.8 * Math.asin(Math.sqrt(a));
    };
    const target = Date.UTC(2024, 0, 15) * 1000;
    const expected = rank(
      prefetched,
      (hit) => {
        const payload = payloadOf(hit.id);
        const boost = payload.boost ?? 0.05;
        const linear = Math.max(0, 1 - (0.5 / 50) * Math.abs(payload.price - 25));
        const days = Math.abs(Date.parse(payload.published) * 1000 - target);
        const exponential = Math.exp((Math.log(0.5) / (86_400_000_000 * 10)) * days);
        const distance = haversine(origin, payload.place);
        const gaussian = Math.exp((Math.log(0.3) / 20_000 ** 2) * distance ** 2);
        return hit.score * boost + linear + exponential + gaussian;
      },
      12,
    );
    expectHits(await queryPoints(body), expected);
  });

  it('formula — $score[i] reads each prefetch; a point missing from one takes its default', async () => {
    const first = bruteForce('Cosine', probe, vectors, 15);
    const second = bruteForce('Cosine', vectors[3]!, vectors, 15);
    const union = new Map<number, ReferenceHit>();
    for (const hit of [...first, ...second]) union.set(hit.id, hit);
    const scoreIn = (list: ReferenceHit[], id: number, fallback: number) => list.find((hit) => hit.id === id)?.score ?? fallback;
    const body = {
      prefetch: [
        { query: probe, limit: 15 },
        { query: vectors[3]!, limit: 15 },
      ],
      query: { formula: { sum: ['$score[0]', { mult: [2, '$score[1]'] }] }, defaults: { '$score[1]': -1 } },
      limit: 8,
    };
    // A query vector, not the id 3: so point 3 may be returned.
    const expected = rank([...union.values()], (hit) => scoreIn(first, hit.id, 0) + 2 * scoreIn(second, hit.id, -1), 8);
    expectHits(await queryPoints(body), expected);
  });

  it('formula — score_threshold keeps values above it', async () => {
    const prefetched = bruteForce('Cosine', probe, vectors, 30);
    const all = rank(prefetched, (hit) => payloadOf(hit.id).price, 30);
    const threshold = all[9]!.score;
    const hits = await queryPoints({ prefetch: { query: probe, limit: 30 }, query: { formula: 'price' }, score_threshold: threshold, limit: 30 });
    expect(hits.map((hit) => hit.score)).toEqual(all.filter((hit) => hit.score > threshold).map((hit) => hit.score));
  });

  it('formula — refusals are 400s naming the field', async () => {
    const cases: [unknown, string][] = [
      [{ query: { formula: '$score' } }, 'cannot apply Formula without prefetches'],
      [{ prefetch: { query: probe }, query: { formula: 'tag' } }, 'expected a number for tag'],
      [{ prefetch: { query: probe }, query: { formula: 'missing' } }, 'no value found in the payload nor in defaults'],
      [{ prefetch: { query: probe }, query: { formula: '$scores' } }, 'query.formula'],
      [{ prefetch: { query: probe }, query: { formula: { div: { left: 1, right: 0 } } } }, 'non-finite'],
      [{ prefetch: { query: probe }, query: { formula: { exp_decay: { x: 1, midpoint: 2 } } } }, 'query.formula.exp_decay.midpoint'],
      [{ prefetch: { query: probe }, query: { formula: { key: 'tag', match: { nope: 1 } } } }, 'query.formula'],
    ];
    for (const [body, message] of cases) {
      const response = await query(body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.status.error).toContain(message);
    }
  });

  it('formula — the official client sends it and gets the same answer', async () => {
    const prefetched = bruteForce('Cosine', probe, vectors, 20);
    const answer = await server.client.query('docs', {
      prefetch: { query: probe, limit: 20 },
      query: { formula: { sum: ['$score', { mult: [0.01, 'price'] }] } },
      limit: 5,
    });
    expectHits(answer.points as Hit[], rank(prefetched, (hit) => hit.score + 0.01 * payloadOf(hit.id).price, 5));
  });
});
