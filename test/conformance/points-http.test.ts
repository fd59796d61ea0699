// Point routes with raw HTTP (docs/api.md §1-§3): the exact envelope and result shapes of every
// point, payload, index, count, search and scroll endpoint, and their 400 messages.
import { beforeAll, describe, expect, it } from 'vitest';
import { basePoints, createWithPoints, holdKernelUpdates, snapshot } from '../support/base-points.js';
import { expectError, expectSuccess, expectWriteResult } from '../support/envelope.js';
import { serverForFile } from '../support/server.js';

const server = serverForFile();

describe('points — raw HTTP shapes', () => {
  const name = 'p-raw';
  beforeAll(async () => {
    await createWithPoints(server, name);
  });

  it('PUT C/points — write result completed with wait=true, acknowledged without; operation ids increase', async () => {
    const first = expectWriteResult(expectSuccess(await server.request('PUT', `/collections/${name}/points?wait=true`, { points: [{ id: 10, vector: [1, 2, 3, 4] }] })), true);
    const second = expectWriteResult(expectSuccess(await server.request('PUT', `/collections/${name}/points`, { points: [{ id: 11, vector: [1, 2, 3, 4] }] })), false);
    expect(second).toBeGreaterThan(first);
    const third = expectWriteResult(expectSuccess(await server.request('PUT', `/collections/${name}/points?wait=false`, { batch: { ids: [12], vectors: [[4, 3, 2, 1]] } })), false);
    expect(third).toBeGreaterThan(second);
    expectWriteResult(expectSuccess(await server.request('POST', `/collections/${name}/points/delete?wait=true`, { points: [10, 11, 12] })), true);
  });

  it('PUT C/points — dimension mismatch is 400 "expected N, got M" and nothing is written', async () => {
    const before = await snapshot(server, name);
    for (const wait of [true, false]) {
      const response = await server.request('PUT', `/collections/${name}/points?wait=${wait}`, {
        points: [{ id: 20, vector: [1, 2, 3, 4] }, { id: 21, vector: [1, 2, 3] }],
      });
      expect(expectError(response, 400)).toMatch(/points\[1\]\.vector.*expected 4, got 3/);
    }
    expect(await snapshot(server, name)).toEqual(before);
  });

  it('POST C/points — Records, with_payload default true, with_vector default false, unknown ids left out', async () => {
    const records = expectSuccess(await server.request('POST', `/collections/${name}/points`, { ids: [2, 1, 999] }));
    expect(records.map((record: any) => record.id).sort()).toEqual([1, 2]);
    for (const record of records) expect(Object.keys(record).sort()).toEqual(['id', 'payload']);
    const withVectors = expectSuccess(await server.request('POST', `/collections/${name}/points`, { ids: [1], with_payload: false, with_vector: true }));
    expect(Object.keys(withVectors[0]).sort()).toEqual(['id', 'vector']);
    expect(withVectors[0].vector).toEqual([1, 0, 0, 0]);
    const alias = expectSuccess(await server.request('POST', `/collections/${name}/points`, { ids: [1], with_payload: ['city'], with_vectors: true }));
    expect(alias[0]).toEqual({ id: 1, payload: { city: 'Berlin' }, vector: [1, 0, 0, 0] });
    const excluded = expectSuccess(await server.request('POST', `/collections/${name}/points`, { ids: [1], with_payload: { exclude: ['tags', 'nested.other'] } }));
    expect(excluded[0].payload).toEqual({ city: 'Berlin', rank: 1, nested: { level: 1 } });
  });

  it('POST C/points — ids is required', async () => {
    expect(expectError(await server.request('POST', `/collections/${name}/points`, {}), 400)).toContain('ids');
  });

  it('GET C/points/{id} — Record with payload and vector; 404 Point with id N does not exist', async () => {
    const record = expectSuccess(await server.request('GET', `/collections/${name}/points/2`));
    expect(record).toEqual({ id: 2, payload: { city: 'London', rank: 2 }, vector: [0, 1, 0, 0] });
    expectError(await server.request('GET', `/collections/${name}/points/777`), 404, 'Point with id 777 does not exist');
    expectError(await server.request('GET', `/collections/${name}/points/not-an-id`), 400, /not a valid point ID/);
    // Like Qdrant: an unsigned 64-bit integer when the text is one, else a UUID (32 digits beyond 2^64 are the simple form).
    expectSuccess(await server.request('PUT', `/collections/${name}/points?wait=true`, { points: [{ id: '12345678-9012-3456-7890-123456789012', vector: [1, 1, 1, 1] }] }));
    expect(expectSuccess(await server.request('GET', `/collections/${name}/points/12345678901234567890123456789012`)).id).toBe('12345678-9012-3456-7890-123456789012');
    expectError(await server.request('GET', `/collections/${name}/points/18446744073709551616`), 400, /not a valid point ID/);
    expectSuccess(await server.request('POST', `/collections/${name}/points/delete?wait=true`, { points: ['12345678-9012-3456-7890-123456789012'] }));
  });

  it('POST C/points/count — {count}; exact default; filter', async () => {
    expect(expectSuccess(await server.request('POST', `/collections/${name}/points/count`, {}))).toEqual({ count: 5 });
    expect(expectSuccess(await server.request('POST', `/collections/${name}/points/count`, { exact: false }))).toEqual({ count: 5 });
    expect(expectSuccess(await server.request('POST', `/collections/${name}/points/count`, { filter: { must: [{ key: 'rank', range: { gte: 4 } }] } }))).toEqual({ count: 2 });
  });

  it('POST C/points/scroll — offset inclusive, next_page_offset the next id or null', async () => {
    const first = expectSuccess(await server.request('POST', `/collections/${name}/points/scroll`, { limit: 2 }));
    expect(Object.keys(first).sort()).toEqual(['next_page_offset', 'points']);
    expect(first.points.map((point: any) => point.id)).toEqual([1, 2]);
    expect(first.next_page_offset).toBe(3);
    for (const point of first.points) expect(Object.keys(point).sort()).toEqual(['id', 'payload']);
    const last = expectSuccess(await server.request('POST', `/collections/${name}/points/scroll`, { offset: 3, limit: 10, with_payload: false }));
    expect(last.points.map((point: any) => point.id)).toEqual([3, 4, 5]);
    expect(last.next_page_offset).toBeNull();
    for (const point of last.points) expect(Object.keys(point)).toEqual(['id']);
    const defaults = expectSuccess(await server.request('POST', `/collections/${name}/points/scroll`, {}));
    expect(defaults.points).toHaveLength(5);
  });

  it('POST C/points/scroll — order_by needs a range index; then order_value on each record', async () => {
    expectError(await server.request('POST', `/collections/${name}/points/scroll`, { order_by: 'rank' }), 400);
    expectSuccess(await server.request('PUT', `/collections/${name}/index?wait=true`, { field_name: 'rank', field_schema: 'integer' }));
    const ordered = expectSuccess(await server.request('POST', `/collections/${name}/points/scroll`, { order_by: { key: 'rank', direction: 'desc' }, limit: 2 }));
    expect(ordered.points.map((point: any) => point.id)).toEqual([5, 4]);
    expect(ordered.points.map((point: any) => point.order_value)).toEqual([5, 4]);
    expect(ordered.next_page_offset).toBeNull();
    expectError(await server.request('POST', `/collections/${name}/points/scroll`, { order_by: 'rank', offset: 1 }), 400);
    const info = expectSuccess(await server.request('GET', `/collections/${name}`));
    expect(info.payload_schema.rank).toMatchObject({ data_type: 'integer', points: 5 });
    expectWriteResult(expectSuccess(await server.request('DELETE', `/collections/${name}/index/rank?wait=true`)), true);
    expect(expectSuccess(await server.request('GET', `/collections/${name}`)).payload_schema).toEqual({});
  });

  it('POST C/points/search — [ScoredPoint] with id, version, score; payload/vector only when asked', async () => {
    const scored = expectSuccess(await server.request('POST', `/collections/${name}/points/search`, { vector: [1, 0, 0, 0], limit: 2 }));
    expect(scored).toHaveLength(2);
    expect(scored[0].id).toBe(1);
    for (const point of scored) {
      expect(Object.keys(point).sort()).toEqual(['id', 'score', 'version']);
      expect(Number.isInteger(point.version)).toBe(true);
    }
    const full = expectSuccess(await server.request('POST', `/collections/${name}/points/search`, { vector: [1, 0, 0, 0], top: 1, with_payload: true, with_vector: true }));
    expect(Object.keys(full[0]).sort()).toEqual(['id', 'payload', 'score', 'vector', 'version']);
    expect(full[0].score).toBeCloseTo(1, 5);
  });

  it('POST C/points/search — dimension mismatch 400 expected N, got M; limit required', async () => {
    // The field is the search request's own: `vector`, not the query API's `query`.
    expectError(await server.request('POST', `/collections/${name}/points/search`, { vector: [1, 0], limit: 2 }), 400, /^Wrong input: Vector dimension error: vector: expected 4, got 2$/);
    const batch = { searches: [{ vector: [1, 0, 0, 0], limit: 1 }, { vector: [1, 0], limit: 1 }] };
    expectError(await server.request('POST', `/collections/${name}/points/search/batch`, batch), 400, /searches\[1\]\.vector: expected 4, got 2$/);
    const queries = { searches: [{ query: [1, 0, 0, 0], limit: 1 }, { query: [1, 0], limit: 1 }] };
    expectError(await server.request('POST', `/collections/${name}/points/query/batch`, queries), 400, /searches\[1\]\.query: expected 4, got 2$/);
    expect(expectError(await server.request('POST', `/collections/${name}/points/search`, { vector: [1, 0, 0, 0] }), 400)).toContain('limit');
    expect(expectError(await server.request('POST', `/collections/${name}/points/search`, { limit: 2 }), 400)).toContain('vector');
  });

  it('score_threshold — keeps score > t for Cosine (a score equal to t is dropped, docs/api.md §4)', async () => {
    const strict = expectSuccess(await server.request('POST', `/collections/${name}/points/search`, { vector: [1, 0, 0, 0], limit: 10, score_threshold: 1 }));
    expect(strict).toEqual([]);
    const loose = expectSuccess(await server.request('POST', `/collections/${name}/points/search`, { vector: [1, 0, 0, 0], limit: 10, score_threshold: 0.5 }));
    expect(loose.map((point: any) => point.id)).toEqual([1, 5]);
    const queried = expectSuccess(await server.request('POST', `/collections/${name}/points/query`, { query: [1, 0, 0, 0], score_threshold: 0.5 }));
    expect(queried.points.map((point: any) => point.id)).toEqual([1, 5]);
  });

  it('ScoredPoint.version — the operation id that last wrote the point', async () => {
    const written = expectWriteResult(expectSuccess(await server.request('POST', `/collections/${name}/points/payload?wait=true`, { payload: { touched: true }, points: [2] })), true);
    const [found] = expectSuccess(await server.request('POST', `/collections/${name}/points/search`, { vector: [0, 1, 0, 0], limit: 1 }));
    expect(found).toMatchObject({ id: 2, version: written });
    expectSuccess(await server.request('POST', `/collections/${name}/points/payload/delete?wait=true`, { keys: ['touched'], points: [2] }));
  });

  it('POST C/points/search/batch — [[ScoredPoint]]', async () => {
    const batches = expectSuccess(await server.request('POST', `/collections/${name}/points/search/batch`, { searches: [{ vector: [1, 0, 0, 0], limit: 1 }, { vector: [0, 0, 0, 1], limit: 2 }] }));
    expect(batches).toHaveLength(2);
    expect(batches[0].map((point: any) => point.id)).toEqual([1]);
    expect(batches[1][0].id).toBe(4);
    expect(Object.keys(batches[1][0]).sort()).toEqual(['id', 'score', 'version']);
  });

  it('POST C/points/query — {points: [ScoredPoint]}; no query pages by id', async () => {
    const result = expectSuccess(await server.request('POST', `/collections/${name}/points/query`, { query: [0, 1, 0, 0], limit: 1 }));
    expect(Object.keys(result)).toEqual(['points']);
    expect(result.points[0].id).toBe(2);
    expect(Object.keys(result.points[0]).sort()).toEqual(['id', 'score', 'version']);
    const byId = expectSuccess(await server.request('POST', `/collections/${name}/points/query`, { limit: 3 }));
    expect(byId.points.map((point: any) => point.id)).toEqual([1, 2, 3]);
    expectError(await server.request('POST', `/collections/${name}/points/query`, { query: [1, 0, 0] }), 400, /query: expected 4, got 3$/);
  });

  it('POST C/points/query/batch — [{points}]', async () => {
    const result = expectSuccess(await server.request('POST', `/collections/${name}/points/query/batch`, { searches: [{ query: [1, 0, 0, 0], limit: 1 }, { query: [0, 0, 1, 0], limit: 1, with_payload: true }] }));
    expect(result).toHaveLength(2);
    for (const entry of result) expect(Object.keys(entry)).toEqual(['points']);
    expect(result[1].points[0]).toMatchObject({ id: 3, payload: { city: 'Paris', rank: 3 } });
  });

  it('payload writes — set merges (null deletes a key), overwrite replaces, delete keys, clear', async () => {
    const path = `/collections/${name}/points/payload`;
    expectWriteResult(expectSuccess(await server.request('POST', `${path}?wait=true`, { payload: { extra: 1, rank: null }, points: [3] })), true);
    expect(expectSuccess(await server.request('GET', `/collections/${name}/points/3`)).payload).toEqual({ city: 'Paris', extra: 1 });
    expectWriteResult(expectSuccess(await server.request('PUT', `${path}?wait=true`, { payload: { only: true }, points: [3] })), true);
    expect(expectSuccess(await server.request('GET', `/collections/${name}/points/3`)).payload).toEqual({ only: true });
    expectWriteResult(expectSuccess(await server.request('POST', `${path}/delete?wait=true`, { keys: ['only', 'absent'], points: [3] })), true);
    expect(expectSuccess(await server.request('GET', `/collections/${name}/points/3`)).payload).toEqual({});
    expectWriteResult(expectSuccess(await server.request('POST', `${path}?wait=true`, { payload: { restored: 'yes' }, filter: { must: [{ has_id: [3] }] } })), true);
    expectWriteResult(expectSuccess(await server.request('POST', `${path}/clear?wait=true`, { points: [3] })), true);
    expect(expectSuccess(await server.request('GET', `/collections/${name}/points/3`)).payload).toEqual({});
    expectSuccess(await server.request('PUT', `${path}?wait=true`, { payload: basePoints[2]!.payload, points: [3] }));
  });

  it('payload delete — a filter is refused with 400 (docs/api.md §3.3); keys and points are required', async () => {
    const path = `/collections/${name}/points/payload/delete`;
    expect(expectError(await server.request('POST', path, { keys: ['city'], filter: { must: [{ has_id: [1] }] } }), 400)).toContain('filter');
    expect(expectError(await server.request('POST', path, { keys: ['city'] }), 400)).toContain('points');
    expect(expectError(await server.request('POST', path, { points: [1] }), 400)).toContain('keys');
  });

  it('payload writes and vector updates on a missing point — 404', async () => {
    expectError(await server.request('POST', `/collections/${name}/points/payload?wait=true`, { payload: { a: 1 }, points: [888] }), 404, /888/);
    expectError(await server.request('PUT', `/collections/${name}/points/vectors?wait=true`, { points: [{ id: 888, vector: [1, 0, 0, 0] }] }), 404, /888/);
  });

  it('PUT C/points/vectors — write result; replaces the vector only', async () => {
    expectWriteResult(expectSuccess(await server.request('PUT', `/collections/${name}/points/vectors?wait=true`, { points: [{ id: 4, vector: [0, 0, 1, 1] }] })), true);
    const record = expectSuccess(await server.request('GET', `/collections/${name}/points/4`));
    expect(record.payload).toEqual({ city: 'Rome', rank: 4 });
    expect(record.vector[2]).toBeCloseTo(Math.SQRT1_2, 5);
    expectSuccess(await server.request('PUT', `/collections/${name}/points/vectors?wait=true`, { points: [{ id: 4, vector: [0, 0, 0, 1] }] }));
    expectError(await server.request('PUT', `/collections/${name}/points/vectors`, { points: [{ id: 4, vector: [0, 0, 1] }] }), 400, /expected 4, got 3/);
  });

  it('Cosine — an acknowledged upsert reads back normalised before the kernel has it, as after', async () => {
    const release = holdKernelUpdates(server, name);
    let early: unknown;
    try {
      expectWriteResult(expectSuccess(await server.request('PUT', `/collections/${name}/points?wait=false`, { points: [{ id: 50, vector: [3, 0, 4, 0] }] })), false);
      early = expectSuccess(await server.request('POST', `/collections/${name}/points`, { ids: [50], with_vector: true }));
    } finally {
      release();
    }
    expect(early).toEqual([{ id: 50, payload: {}, vector: [0.6, 0, 0.8, 0] }]);
    // A waited write queues behind the held one, so after it the kernel has the vector.
    expectSuccess(await server.request('POST', `/collections/${name}/points/delete?wait=true`, { points: [99_999] }));
    expect(expectSuccess(await server.request('POST', `/collections/${name}/points`, { ids: [50], with_vector: true }))).toEqual(early);
    expectSuccess(await server.request('POST', `/collections/${name}/points/delete?wait=true`, { points: [50] }));
  });

  it('POST C/points/delete — unknown ids are not an error; filter form', async () => {
    expectSuccess(await server.request('PUT', `/collections/${name}/points?wait=true`, { points: [{ id: 30, vector: [1, 2, 3, 4], payload: { temp: true } }] }));
    expectWriteResult(expectSuccess(await server.request('POST', `/collections/${name}/points/delete?wait=true`, { points: [31, 32] })), true);
    expectWriteResult(expectSuccess(await server.request('POST', `/collections/${name}/points/delete?wait=true`, { filter: { must: [{ key: 'temp', match: { value: true } }] } })), true);
    expect(expectSuccess(await server.request('POST', `/collections/${name}/points/count`, {}))).toEqual({ count: 5 });
  });

  it('malformed JSON — 400 with the error envelope', async () => {
    expectError(await server.request('PUT', `/collections/${name}/points`, '{"points": ['), 400);
  });
});
