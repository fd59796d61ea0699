// Integer literals beyond 2^53 in a query vector (docs/api.md §2): the lossless parser gives
// them as bigint; they are numbers all the same, accepted by every query form as upsert accepts
// them, and they score as the same float32 the stored vector holds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './support/app.js';

let current: TestApp;
const big = '90071992547409930'; // 10 x 2^53 (approximately): above Number.MAX_SAFE_INTEGER

async function post(url: string, payload: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await current.app.inject({ method: url.startsWith('PUT ') ? 'PUT' : 'POST', url: url.replace(/^PUT /, ''), headers: { 'content-type': 'application/json' }, payload });
  return { status: response.statusCode, body: JSON.parse(response.body) as Record<string, unknown> };
}

beforeAll(async () => {
  current = await createTestApp();
  expect((await post('PUT /collections/big', '{"vectors":{"size":2,"distance":"Dot"}}')).status).toBe(200);
  expect((await post('PUT /collections/big/points?wait=true', `{"points":[{"id":1,"vector":[1,0]},{"id":2,"vector":[0,1]}]}`)).status).toBe(200);
});
afterAll(async () => {
  await current.dispose();
});

describe('query vectors beyond 2^53', () => {
  it('vector literals — POST query with an integer element above 2^53 answers, scored as the float32 of that literal', async () => {
    const answer = await post('/collections/big/points/query', `{"query":[${big},1],"limit":2}`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const points = (answer.body.result as { points: { id: number; score: number }[] }).points;
    expect(points.map((point) => point.id)).toEqual([1, 2]);
    // Scores print as the shortest text of their float32, so compare as float32.
    expect(Math.fround(points[0]!.score)).toBe(Math.fround(Number(big)));
    expect(points[1]!.score).toBe(1);
  });

  it('vector literals — POST search and a named-less batch accept them too', async () => {
    const search = await post('/collections/big/points/search', `{"vector":[${big},1],"limit":1}`);
    expect(search.status, JSON.stringify(search.body)).toBe(200);
    expect((search.body.result as { id: number }[])[0]!.id).toBe(1);
    const batch = await post('/collections/big/points/query/batch', `{"searches":[{"query":[1,${big}],"limit":1}]}`);
    expect(batch.status, JSON.stringify(batch.body)).toBe(200);
    expect((batch.body.result as { points: { id: number }[] }[])[0]!.points[0]!.id).toBe(2);
  });

  it('vector literals — a literal beyond the float32 range is still a 400 naming the element', async () => {
    const answer = await post('/collections/big/points/query', `{"query":[1${'0'.repeat(40)},1]}`);
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.body)).toContain('query[0]');
  });

  it('vector literals — a non-number element still reads `expected number`, not the bigint twin of the schema', async () => {
    const answer = await post('/collections/big/points/query', '{"query":["a",1]}');
    expect(answer.status).toBe(400);
    expect((answer.body.status as { error: string }).error).toBe('Validation error in body query[0]: expected number (got "a")');
  });
});
