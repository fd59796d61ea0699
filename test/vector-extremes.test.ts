// Vectors at the float32 extremes (issue 18 item 8, docs/api.md §2): Cosine norms computed in
// float64 (huge or tiny vectors score like their direction, a zero norm is a 400 naming the
// vector), Dot/Euclid/Manhattan and sparse norms bounded so no score overflows, and every score
// a number. Scores are checked against a float64 reference written here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, expectSuccess } from './support/envelope.js';
import { makeDataDirectory, removeDataDirectory, startServer, type TestServer } from './support/server.js';

let server: TestServer;
let directory: string;

beforeAll(async () => {
  directory = await makeDataDirectory();
  server = await startServer(directory);
  for (const distance of ['Cosine', 'Dot', 'Euclid', 'Manhattan'] as const) {
    await server.client.createCollection(distance.toLowerCase(), { vectors: { size: 4, distance } });
  }
  await server.client.createCollection('sparse', { sparse_vectors: { text: {} } });
});

afterAll(async () => {
  await server.close();
  await removeDataDirectory(directory);
});

/** Cosine similarity in float64, the slow reference. */
function cosine(left: number[], right: number[]): number {
  let dot = 0;
  let leftSquares = 0;
  let rightSquares = 0;
  left.forEach((value, position) => {
    dot += value * right[position]!;
    leftSquares += value * value;
    rightSquares += right[position]! * right[position]!;
  });
  return dot / Math.sqrt(leftSquares) / Math.sqrt(rightSquares);
}

const upsert = (collection: string, points: unknown[]) => server.request('PUT', `/collections/${collection}/points?wait=true`, { points });
const search = (collection: string, vector: number[]) => server.request('POST', `/collections/${collection}/points/search`, { vector, limit: 10, with_vector: true });

describe('Cosine — norms in float64', () => {
  const extremes = [
    { id: 1, vector: [3e38, 3e38, 0, 0] },
    { id: 2, vector: [-3.4e38, 3.4e38, 3.4e38, -3.4e38] },
    { id: 3, vector: [1e-40, 1e-40, 0, 0] },
    { id: 4, vector: [1e-45, 0, 0, 0] },
    { id: 5, vector: [1, 2, 3, 4] },
  ];

  it('cosine — vectors whose float32 squares overflow or underflow score like their direction', async () => {
    expectSuccess(await upsert('cosine', extremes));
    const query = [1, 1, 0.5, -0.25];
    const result = expectSuccess(await search('cosine', query)) as { id: number; score: number; vector: number[] }[];
    expect(result).toHaveLength(extremes.length);
    for (const hit of result) {
      expect(typeof hit.score).toBe('number');
      const point = extremes.find((candidate) => candidate.id === hit.id)!;
      expect(hit.score).toBeCloseTo(cosine(point.vector, query), 5);
      // Stored normalised, as every Cosine vector is.
      expect(Math.hypot(...hit.vector)).toBeCloseTo(1, 5);
    }
  });

  it('cosine — a huge query vector scores like its direction', async () => {
    const query = [3e38, 3e38, 0, 0];
    const result = expectSuccess(await search('cosine', query)) as { id: number; score: number }[];
    expect(result[0]!.id).toBe(1);
    expect(result[0]!.score).toBeCloseTo(1, 5);
  });

  it('cosine — a zero vector is a 400 naming the point', async () => {
    const message = expectError(await upsert('cosine', [{ id: 9, vector: [0, 0, 0, 0] }]), 400);
    expect(message).toBe('points[0].vector: a Cosine vector needs a finite, non-zero norm (its norm is 0)');
  });

  it('cosine — a zero query vector is a 400 naming the field', async () => {
    const message = expectError(await server.request('POST', '/collections/cosine/points/query', { query: [0, 0, 0, 0] }), 400);
    expect(message).toMatch(/^query: a Cosine vector needs a finite, non-zero norm/);
  });

  it('cosine — the official client is refused a zero vector and reads the huge one back normalised', async () => {
    const refusal = await server.client.upsert('cosine', { wait: true, points: [{ id: 10, vector: [0, 0, 0, 0] }] }).catch((error: unknown) => error);
    expect((refusal as { status?: number }).status).toBe(400);
    expect(JSON.stringify((refusal as { data?: unknown }).data)).toContain('non-zero norm');
    const [point] = await server.client.retrieve('cosine', { ids: [1], with_vector: true });
    const vector = point!.vector as number[];
    expect(vector[0]).toBeCloseTo(Math.SQRT1_2, 6);
    expect(vector[1]).toBeCloseTo(Math.SQRT1_2, 6);
  });
});

describe('Dot, Euclid, Manhattan — bounded norms, finite scores', () => {
  for (const distance of ['dot', 'euclid', 'manhattan']) {
    it(`${distance} — a vector whose scores would overflow float32 is a 400 naming it`, async () => {
      const message = expectError(await upsert(distance, [{ id: 1, vector: [1, 2, 3, 4] }, { id: 2, vector: [3e38, 0, 0, 0] }]), 400);
      expect(message).toMatch(/^points\[1\]\.vector: the vector's norm 3\.00e\+38 is above 4\.61e\+18/);
      expectError(await search(distance, [-3e38, 3e38, 0, 0]), 400);
    });

    it(`${distance} — large vectors within the bound score as finite numbers`, async () => {
      // Written with exponents: integer literals past 2^53 would arrive as bigints.
      const body = '{"points": [{"id": 3, "vector": [4e18, -1e18, 0, 0]}]}';
      expectSuccess(await server.request('PUT', `/collections/${distance}/points?wait=true`, body));
      const query = '{"vector": [-4e18, 1e18, 1e18, 0], "limit": 10}';
      const result = expectSuccess(await server.request('POST', `/collections/${distance}/points/search`, query)) as { score: number }[];
      expect(result.length).toBeGreaterThan(0);
      for (const hit of result) expect(Number.isFinite(hit.score)).toBe(true);
    });
  }
});

describe('sparse — bounded norms', () => {
  it('sparse — values whose dot products would overflow are a 400 naming them', async () => {
    const message = expectError(await upsert('sparse', [{ id: 1, vector: { text: { indices: [1, 2], values: [3e38, 3e38] } } }]), 400);
    expect(message).toMatch(/^points\[0\]\.vector\.text\.values: the norm of the values/);
  });
});
