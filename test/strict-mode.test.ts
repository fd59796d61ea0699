// Strict mode (docs/api.md §4.5): each limit of strict_mode_config refuses what breaks it with a
// 400 naming the limit (429 for the rate limits) and writes nothing; a collection without strict
// mode, or with enabled false, is not limited. Raw HTTP and the official JS client.
import { describe, expect, it } from 'vitest';
import { clientStatus } from './support/envelope.js';
import { serverForFile } from './support/server.js';

const server = serverForFile();

let collectionNumber = 0;
/** A fresh collection with six points, then `strict` as its strict_mode_config (so the limits apply to what follows). */
async function strictCollection(strict: Record<string, unknown>): Promise<string> {
  collectionNumber += 1;
  const name = `strict-${collectionNumber}`;
  expect(await server.client.createCollection(name, { vectors: { size: 2, distance: 'Dot' }, strict_mode_config: { enabled: false } })).toBe(true);
  const cities = ['Oslo', 'Bergen', 'Oslo', 'Paris', 'Rome', 'Oslo'];
  const written = await server.request('PUT', `/collections/${name}/points?wait=true`, {
    points: cities.map((city, id) => ({ id, vector: [1, id], payload: { city, rank: id } })),
  });
  expect(written.status).toBe(200);
  expect(await server.client.updateCollection(name, { strict_mode_config: strict })).toBe(true);
  return name;
}

async function expectRefused(response: Promise<{ status: number; body: { status: { error: string } } }>, status: number, text: string): Promise<void> {
  const answer = await response;
  expect(answer.status).toBe(status);
  expect(answer.body.status.error).toContain(text);
}

describe('strict mode — reads', () => {
  it('max_query_limit — query, prefetch, scroll and facet above it are 400 naming the limit', async () => {
    const name = await strictCollection({ enabled: true, max_query_limit: 3 });
    await expectRefused(server.request('POST', `/collections/${name}/points/query`, { query: [1, 1], limit: 4 }), 400, 'Limit exceeded 4 > 3 for "limit"');
    await expectRefused(server.request('POST', `/collections/${name}/points/query`, { prefetch: { query: [1, 1], limit: 5 }, query: [1, 1], limit: 2 }), 400, 'Limit exceeded 5 > 3');
    await expectRefused(server.request('POST', `/collections/${name}/points/scroll`, { limit: 10 }), 400, 'Limit exceeded 10 > 3');
    await expectRefused(server.request('POST', `/collections/${name}/facet`, { key: 'city', limit: 4 }), 400, 'Limit exceeded 4 > 3');
    const allowed = await server.client.query(name, { query: [1, 1], limit: 3 });
    expect(allowed.points).toHaveLength(3);
  });

  it('enabled false (or absent) limits nothing; PATCH enabled true turns the limits on', async () => {
    const name = await strictCollection({ enabled: false, max_query_limit: 1 });
    expect((await server.client.query(name, { query: [1, 1], limit: 5 })).points).toHaveLength(5);
    expect(await server.client.updateCollection(name, { strict_mode_config: { enabled: true } })).toBe(true);
    expect((await server.client.getCollection(name)).config.strict_mode_config).toEqual({ enabled: true, max_query_limit: 1 });
    expect((await clientStatus(server.client.query(name, { query: [1, 1], limit: 5 }))).status).toBe(400);
  });

  it('search_max_hnsw_ef, search_allow_exact, search_max_oversampling and search_max_batchsize', async () => {
    const name = await strictCollection({ enabled: true, search_max_hnsw_ef: 32, search_allow_exact: false, search_max_oversampling: 2, search_max_batchsize: 2 });
    await expectRefused(server.request('POST', `/collections/${name}/points/query`, { query: [1, 1], params: { hnsw_ef: 64 } }), 400, 'Limit exceeded 64 > 32 for "hnsw_ef"');
    await expectRefused(server.request('POST', `/collections/${name}/points/search`, { vector: [1, 1], limit: 2, params: { exact: true } }), 400, 'Exact search disabled');
    await expectRefused(
      server.request('POST', `/collections/${name}/points/query`, { query: [1, 1], params: { quantization: { oversampling: 3 } } }),
      400,
      'Limit exceeded 3 > 2 for "oversampling"',
    );
    const searches = Array.from({ length: 3 }, () => ({ vector: [1, 1], limit: 1 }));
    await expectRefused(server.request('POST', `/collections/${name}/points/search/batch`, { searches }), 400, 'Limit exceeded 3 > 2');
    const fine = await server.request('POST', `/collections/${name}/points/search/batch`, { searches: searches.slice(0, 2) });
    expect(fine.status).toBe(200);
    expect(fine.body.result).toHaveLength(2);
  });

  it('unindexed_filtering_retrieve false — a filter on a field without a fitting index is a 400 until one exists', async () => {
    const name = await strictCollection({ enabled: true, unindexed_filtering_retrieve: false });
    const filter = { must: [{ key: 'city', match: { value: 'Oslo' } }] };
    await expectRefused(
      server.request('POST', `/collections/${name}/points/count`, { filter, exact: true }),
      400,
      'Index required but not found for "city" of one of the following types: [keyword, uuid]',
    );
    await server.client.createPayloadIndex(name, { field_name: 'city', field_schema: 'keyword', wait: true });
    expect(await server.client.count(name, { filter, exact: true })).toEqual({ count: 3 });
    // A prefix match needs the keyword index made with prefix: true.
    const prefix = { must: [{ key: 'city', match: { prefix: 'Os' } }] };
    await expectRefused(server.request('POST', `/collections/${name}/points/scroll`, { filter: prefix }), 400, 'Index required but not found for "city"');
    await server.client.createPayloadIndex(name, { field_name: 'city', field_schema: { type: 'keyword', prefix: true } as never, wait: true });
    const page = await server.request('POST', `/collections/${name}/points/scroll`, { filter: prefix });
    expect(page.body.result.points.map((point: { id: number }) => point.id)).toEqual([0, 2, 5]);
  });

  it('filter_max_conditions and condition_max_size', async () => {
    const name = await strictCollection({ enabled: true, filter_max_conditions: 2, condition_max_size: 2 });
    const three = { must: [{ key: 'rank', range: { gte: 0 } }, { key: 'rank', range: { lte: 9 } }], should: [{ key: 'city', match: { value: 'Oslo' } }] };
    await expectRefused(server.request('POST', `/collections/${name}/points/count`, { filter: three }), 400, 'Limit exceeded 3 > 2 for "conditions"');
    const any = { must: [{ key: 'city', match: { any: ['Oslo', 'Rome', 'Paris'] } }] };
    await expectRefused(server.request('POST', `/collections/${name}/points/count`, { filter: any }), 400, 'Limit exceeded 3 > 2 for "city"');
    expect((await server.client.count(name, { filter: { must: [{ key: 'city', match: { any: ['Oslo', 'Rome'] } }] }, exact: true })).count).toBe(4);
  });

  it('max_timeout — a timeout parameter above it is a 400', async () => {
    const name = await strictCollection({ enabled: true, max_timeout: 5 });
    await expectRefused(server.request('POST', `/collections/${name}/points/query?timeout=10`, { query: [1, 1] }), 400, 'Limit exceeded 10 > 5 for "timeout"');
    expect((await server.request('POST', `/collections/${name}/points/query?timeout=5`, { query: [1, 1] })).status).toBe(200);
  });

  it('read_rate_limit — requests beyond the per-minute budget are 429', async () => {
    const name = await strictCollection({ enabled: true, read_rate_limit: 2 });
    expect((await server.request('POST', `/collections/${name}/points/count`, {})).status).toBe(200);
    expect((await server.request('POST', `/collections/${name}/points/count`, {})).status).toBe(200);
    await expectRefused(server.request('POST', `/collections/${name}/points/count`, {}), 429, 'Read rate limit exceeded');
    // The collection's own routes stay open, so the limit can be read and lifted.
    expect((await server.request('GET', `/collections/${name}`)).status).toBe(200);
    expect(await server.client.updateCollection(name, { strict_mode_config: { enabled: false } })).toBe(true);
    expect((await server.request('POST', `/collections/${name}/points/count`, {})).status).toBe(200);
  });
});

describe('strict mode — writes', () => {
  it('upsert_max_batchsize, max_points_count and max_collection_vector_size_bytes refuse before writing', async () => {
    const name = await strictCollection({ enabled: true, upsert_max_batchsize: 3, max_points_count: 8, max_collection_vector_size_bytes: 10_000 });
    const points = (ids: number[]) => ({ points: ids.map((id) => ({ id, vector: [0.5, id] })) });
    await expectRefused(server.request('PUT', `/collections/${name}/points?wait=true`, points([10, 11, 12, 13])), 400, 'Limit exceeded 4 > 3 for "upsert"');
    // Six points exist: three new ones would make nine.
    await expectRefused(server.request('PUT', `/collections/${name}/points?wait=true`, points([10, 11, 12])), 400, 'Max points count limit of 8 reached');
    expect(await server.client.count(name, { exact: true })).toEqual({ count: 6 });
    // Replacing existing points adds none.
    expect((await server.client.upsert(name, { wait: true, ...points([0, 1, 10]) })).status).toBe('completed');
    expect(await server.client.count(name, { exact: true })).toEqual({ count: 7 });
    expect(await server.client.updateCollection(name, { strict_mode_config: { max_collection_vector_size_bytes: 60 } })).toBe(true);
    // 7 points x 2 floats x 4 bytes = 56; one more is 64.
    await expectRefused(server.request('PUT', `/collections/${name}/points?wait=true`, points([20])), 400, 'Max vector storage size limit of 60 bytes reached');
  });

  it('unindexed_filtering_update false — a delete by filter on an unindexed field is a 400 and deletes nothing', async () => {
    const name = await strictCollection({ enabled: true, unindexed_filtering_update: false, unindexed_filtering_retrieve: true });
    const filter = { must: [{ key: 'city', match: { value: 'Oslo' } }] };
    await expectRefused(server.request('POST', `/collections/${name}/points/delete?wait=true`, { filter }), 400, 'Index required but not found for "city"');
    expect(await server.client.count(name, { exact: true })).toEqual({ count: 6 });
    // Reads by the same filter stay allowed.
    expect(await server.client.count(name, { filter, exact: true })).toEqual({ count: 3 });
  });

  it('max_payload_index_count — one index more than allowed is a 400; replacing one is not', async () => {
    const name = await strictCollection({ enabled: true, max_payload_index_count: 1 });
    await server.client.createPayloadIndex(name, { field_name: 'city', field_schema: 'keyword', wait: true });
    await expectRefused(server.request('PUT', `/collections/${name}/index?wait=true`, { field_name: 'rank', field_schema: 'integer' }), 400, 'maximum number of payload indices (1)');
    expect((await server.request('PUT', `/collections/${name}/index?wait=true`, { field_name: 'city', field_schema: { type: 'keyword', is_tenant: true } })).status).toBe(200);
  });

  it('write_rate_limit — writes beyond the per-minute budget are 429 (client)', async () => {
    const name = await strictCollection({ enabled: true, write_rate_limit: 1 });
    expect((await server.client.upsert(name, { wait: true, points: [{ id: 50, vector: [1, 1] }] })).status).toBe('completed');
    expect((await clientStatus(server.client.upsert(name, { wait: true, points: [{ id: 51, vector: [1, 1] }] }))).status).toBe(429);
    expect(await server.client.count(name, { exact: true })).toEqual({ count: 7 });
  });
});

describe('strict mode — configuration', () => {
  it.each([
    [{ enabled: true, max_query_limit: 0 }, 'strict_mode_config.max_query_limit'],
    [{ enabled: 'yes' }, 'strict_mode_config.enabled'],
    [{ enabled: true, max_resident_memory_percent: 101 }, 'strict_mode_config.max_resident_memory_percent'],
  ])('create — a bad strict_mode_config is a 400 naming the field (%#)', async (strict, field) => {
    const response = await server.request('PUT', '/collections/strict-bad', { vectors: { size: 2, distance: 'Dot' }, strict_mode_config: strict });
    expect(response.status).toBe(400);
    expect(response.body.status.error).toContain(field);
    expect(await server.client.collectionExists('strict-bad')).toEqual({ exists: false });
  });

  it('PATCH — limits merge into the stored config; null leaves a limit as it was', async () => {
    const name = await strictCollection({ enabled: true, max_query_limit: 5, read_rate_limit: 100 });
    expect((await server.request('PATCH', `/collections/${name}`, { strict_mode_config: { max_query_limit: 7, read_rate_limit: null, search_allow_exact: false } })).status).toBe(200);
    expect((await server.client.getCollection(name)).config.strict_mode_config).toEqual({ enabled: true, max_query_limit: 7, read_rate_limit: 100, search_allow_exact: false });
  });
});
