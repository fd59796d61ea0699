// Validation errors name the field and say what was wrong, inside unions too; the limits of a
// request are applied as Qdrant applies them (an over-cap limit is clamped, zero tuning values
// are refused). Raw HTTP where the body cannot be written with the client (a u64 limit).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeDataDirectory, removeDataDirectory, startServer, type TestServer } from './support/server.js';

let server: TestServer;
let directory: string;
const name = 'messages';
const cap = 7;

beforeAll(async () => {
  directory = await makeDataDirectory();
  server = await startServer(directory, { limits: { max_search_limit: cap } });
  await server.client.createCollection(name, { vectors: { size: 2, distance: 'Dot' } });
  await server.client.createCollection('named', { vectors: { a: { size: 2, distance: 'Dot' } } });
  const points = Array.from({ length: 12 }, (_unused, position) => ({ id: position + 1, vector: [1, position / 12] }));
  await server.client.upsert(name, { wait: true, points });
});

afterAll(async () => {
  await server.close();
  await removeDataDirectory(directory);
});

function errorOf(response: Awaited<ReturnType<TestServer['request']>>): string {
  expect(response.status).toBe(400);
  return response.body.status.error as string;
}

const query = (body: unknown) => server.request('POST', `/collections/${name}/points/query`, body);

describe('unions — the message names the member and the problem', () => {
  it('union — a bad recommend strategy lists the strategies', async () => {
    const message = errorOf(await query({ query: { recommend: { positive: [1], strategy: 'closest' } } }));
    expect(message).toBe('Validation error in body query.recommend.strategy: expected one of "average_vector", "best_score", "sum_scores" (got "closest")');
  });

  it('union — a bad fusion lists the fusions', async () => {
    const message = errorOf(await query({ prefetch: [{ query: [1, 0] }], query: { fusion: 'sum' } }));
    expect(message).toBe('Validation error in body query.fusion: expected one of "rrf", "dbsf" (got "sum")');
  });

  it('union — a prefetch query of no known form lists the forms it may take', async () => {
    const message = errorOf(await query({ prefetch: [{ query: { nearby: [1, 0] } }], query: { fusion: 'rrf' } }));
    expect(message).toMatch(/^Validation error in body prefetch\[0\]\.query: expected one of: list of numbers, .*\{nearest\}, \{recommend\}.*\{fusion\}.* \(got \{"nearby":\[1,0\]\}\)$/);
    expect(message).not.toContain('union value');
  });

  it('union — an object meant as one form reports that form\'s own problem', async () => {
    // An unknown key is ignored, as Qdrant ignores it (docs/api.md §1.4): the other checks still run.
    expect((await query({ query: { nearest: [1, 0], exact: true } })).status).toBe(200);
    expect(errorOf(await query({ query: { discover: { target: [1, 0] } } }))).toBe('Validation error in body query.discover.context: missing required field');
    const search = await server.request('POST', `/collections/${name}/points/search`, { vector: { name: 'a' }, limit: 1 });
    expect(errorOf(search)).toBe('Validation error in body vector.vector: missing required field');
  });

  it('union — a value of the wrong kind lists what the field accepts', async () => {
    expect(errorOf(await query({ query: true }))).toMatch(/^Validation error in body query: expected one of: .* \(got true\)$/);
    expect(errorOf(await query({ query: [1, 0], with_payload: 5 }))).toBe(
      'Validation error in body with_payload: expected one of: boolean, list of strings, {include}, {exclude} (got 5)',
    );
    expect(errorOf(await query({ query: [1, 0], limit: 'ten' }))).toBe('Validation error in body limit: expected integer (got "ten")');
  });
});

describe('limits — clamped to the cap, as Qdrant does', () => {
  const u64Maximum = '18446744073709551615';

  it('limit — above the cap (even 2^64 - 1) is clamped on search, query, prefetch, both batches and scroll', async () => {
    const search = await server.request('POST', `/collections/${name}/points/search`, `{"vector":[1,0],"limit":${u64Maximum}}`);
    expect(search.status).toBe(200);
    expect(search.body.result).toHaveLength(cap);
    const queried = await query(`{"query":[1,0],"limit":${u64Maximum}}`);
    expect(queried.body.result.points).toHaveLength(cap);
    const prefetched = await query(`{"prefetch":{"query":[1,0],"limit":${u64Maximum}},"query":{"fusion":"rrf"},"limit":100}`);
    expect(prefetched.body.result.points).toHaveLength(cap);
    const searchBatch = await server.request('POST', `/collections/${name}/points/search/batch`, `{"searches":[{"vector":[1,0],"limit":${u64Maximum}}]}`);
    expect(searchBatch.body.result[0]).toHaveLength(cap);
    const queryBatch = await server.request('POST', `/collections/${name}/points/query/batch`, `{"searches":[{"query":[1,0],"limit":${u64Maximum}}]}`);
    expect(queryBatch.body.result[0].points).toHaveLength(cap);
    const scrolled = await server.request('POST', `/collections/${name}/points/scroll`, `{"limit":${u64Maximum}}`);
    expect(scrolled.status).toBe(200);
    expect(scrolled.body.result.points).toHaveLength(cap);
    expect(scrolled.body.result.next_page_offset).toBe(cap + 1);
  });

  it('limit — the official client gets the clamped answer too', async () => {
    expect((await server.client.query(name, { query: [1, 0], limit: 1_000 })).points).toHaveLength(cap);
    expect((await server.client.scroll(name, { limit: 1_000 })).points).toHaveLength(cap);
  });

  it('limit — zero is still a 400 naming the field; offset above the cap is still refused', async () => {
    expect(errorOf(await query({ query: [1, 0], limit: 0 }))).toContain('limit');
    expect(errorOf(await server.request('POST', `/collections/${name}/points/scroll`, { limit: 0 }))).toContain('limit');
    expect(errorOf(await query({ query: [1, 0], offset: cap + 1 }))).toContain('offset');
  });

  it('limit — beyond 2^64 - 1 is not a size at all: a 400, as in Qdrant', async () => {
    for (const limit of ['18446744073709551616', '100000000000000000000']) {
      expect(errorOf(await query(`{"query":[1,0],"limit":${limit}}`))).toBe(
        `Validation error in body limit: expected integer to be less than 18446744073709551616 (got ${limit})`,
      );
      expect(errorOf(await server.request('POST', `/collections/${name}/points/scroll`, `{"limit":${limit}}`))).toContain('limit');
    }
  });
});

describe('values that cannot mean anything are 400s naming the field', () => {
  it('params.hnsw_ef — 0 is refused', async () => {
    expect(errorOf(await query({ query: [1, 0], params: { hnsw_ef: 0 } }))).toBe(
      'Validation error in body params.hnsw_ef: expected integer to be greater or equal to 1 (got 0)',
    );
    const search = await server.request('POST', `/collections/${name}/points/search`, { vector: [1, 0], limit: 1, params: { hnsw_ef: 0 } });
    expect(errorOf(search)).toContain('params.hnsw_ef');
  });

  it('timeout — 0 is refused on reads and writes', async () => {
    expect(errorOf(await server.request('POST', `/collections/${name}/points/query?timeout=0`, { query: [1, 0] }))).toBe(
      'Validation error in query parameter timeout: expected integer to be greater or equal to 1 (got 0)',
    );
    expect(errorOf(await server.request('PUT', `/collections/${name}/points?timeout=0`, { points: [] }))).toContain('timeout');
    expect((await server.request('POST', `/collections/${name}/points/query?timeout=1`, { query: [1, 0] })).status).toBe(200);
  });

  it('collection name — over 255 characters is the create route\'s 400 on read routes, not a 404', async () => {
    const long = 'n'.repeat(256);
    const created = errorOf(await server.request('PUT', `/collections/${long}`, { vectors: { size: 2, distance: 'Dot' } }));
    expect(created).toBe('collection_name: must be at most 255 characters');
    expect(errorOf(await server.request('GET', `/collections/${long}`))).toBe(created);
    expect(errorOf(await server.request('POST', `/collections/${long}/points/scroll`, {}))).toBe(created);
    expect(errorOf(await server.request('POST', `/collections/${long}/points/query`, { query: [1, 0] }))).toBe(created);
    expect((await server.request('GET', `/collections/${'n'.repeat(255)}`)).status).toBe(404);
  });

  it('lookup_from — a missing collection is a 404 also when the query is a raw vector', async () => {
    const raw = await query({ query: [1, 0], lookup_from: { collection: 'absent' } });
    expect(raw.status).toBe(404);
    expect(raw.body.status.error).toBe('Collection not found: absent');
    const nested = await query({ prefetch: { query: [1, 0], lookup_from: { collection: 'absent' } }, query: { fusion: 'rrf' } });
    expect(nested.status).toBe(404);
    await expect(server.client.query(name, { query: [1, 0], lookup_from: { collection: 'absent' } })).rejects.toMatchObject({ status: 404 });
  });

  it('PUT points/vectors — "vector": {} names no vector: a 400 naming the field, not a no-op', async () => {
    const response = await server.request('PUT', `/collections/named/points/vectors?wait=true`, { points: [{ id: 1, vector: {} }] });
    expect(errorOf(response)).toBe('points[0].vector: must give at least one vector');
    await expect(server.client.updateVectors(name, { wait: true, points: [{ id: 1, vector: {} }] })).rejects.toMatchObject({ status: 400 });
  });
});
