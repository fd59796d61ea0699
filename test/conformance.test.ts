// Wire-contract conformance (API.md §1-§4, spec §4 and §7): every endpoint's envelope and result
// shape, the contract's error messages and codes, checked both with raw HTTP and through the
// official Qdrant JS client, plus hostile bodies on every write endpoint (each a 400 naming the
// field, never a 500, and the collection left unchanged).
import { QdrantClient } from '@qdrant/js-client-rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from './support/app.js';
import { adminPassword, adminUsername, createAccessToken, createAuthApp, jwtSecret, loginAdmin } from './support/auth.js';
import { makeDataDirectory, removeDataDirectory, startServer, type TestServer } from './support/server.js';

let server: TestServer;
let directory: string;

beforeAll(async () => {
  directory = await makeDataDirectory();
  server = await startServer(directory);
});

afterAll(async () => {
  await server?.close();
  if (directory) await removeDataDirectory(directory);
});

type Response = { status: number; body: any; text: string };

/** The success envelope, exactly its four keys; returns `result`. */
function expectSuccess(response: Response): any {
  expect(response.status, response.text).toBe(200);
  expect(Object.keys(response.body).sort()).toEqual(['result', 'status', 'time', 'usage']);
  expect(response.body.usage).toEqual({ hardware: null });
  expect(typeof response.body.time).toBe('number');
  expect(response.body.time).toBeGreaterThanOrEqual(0);
  expect(response.body.status).toBe('ok');
  expect(response.body.result).not.toBeNull();
  return response.body.result;
}

/** The error envelope, exactly `{time, status: {error}}`, with the given code and message. */
function expectError(response: Response, status: number, message?: string | RegExp): string {
  expect(response.status, response.text).toBe(status);
  expect(Object.keys(response.body).sort()).toEqual(['status', 'time']);
  expect(typeof response.body.time).toBe('number');
  expect(Object.keys(response.body.status)).toEqual(['error']);
  const error = response.body.status.error as string;
  expect(typeof error).toBe('string');
  if (typeof message === 'string') expect(error).toBe(message);
  else if (message) expect(error).toMatch(message);
  return error;
}

function expectWriteResult(result: any, wait: boolean): number {
  expect(Object.keys(result).sort()).toEqual(['operation_id', 'status']);
  expect(Number.isSafeInteger(result.operation_id)).toBe(true);
  expect(result.operation_id).toBeGreaterThanOrEqual(0);
  expect(result.status).toBe(wait ? 'completed' : 'acknowledged');
  return result.operation_id;
}

/** The HTTP status of a rejected client call (the client throws on every non-2xx). */
async function clientStatus(call: Promise<unknown>): Promise<{ status: number; data: any }> {
  try {
    await call;
  } catch (error) {
    const failure = error as { status?: number; data?: any };
    return { status: failure.status ?? -1, data: failure.data };
  }
  throw new Error('the client call succeeded');
}

const dimension = 4;
const basePoints = [
  { id: 1, vector: [1, 0, 0, 0], payload: { city: 'Berlin', rank: 1, tags: ['a', 'b'], nested: { level: 1, other: 'x' } } },
  { id: 2, vector: [0, 1, 0, 0], payload: { city: 'London', rank: 2 } },
  { id: 3, vector: [0, 0, 1, 0], payload: { city: 'Paris', rank: 3 } },
  { id: 4, vector: [0, 0, 0, 1], payload: { city: 'Rome', rank: 4 } },
  { id: 5, vector: [1, 1, 0, 0], payload: { city: 'Madrid', rank: 5 } },
];

async function createWithPoints(name: string): Promise<void> {
  expectSuccess(await server.request('PUT', `/collections/${name}`, { vectors: { size: dimension, distance: 'Cosine' } }));
  expectSuccess(await server.request('PUT', `/collections/${name}/points?wait=true`, { points: basePoints }));
}

/** Everything observable about a collection's points: ids, payloads and vectors, by id order. */
async function snapshot(name: string): Promise<unknown> {
  const scrolled = expectSuccess(await server.request('POST', `/collections/${name}/points/scroll`, { limit: 1000, with_payload: true, with_vector: true }));
  const info = expectSuccess(await server.request('GET', `/collections/${name}`));
  return { points: scrolled.points, points_count: info.points_count, payload_schema: info.payload_schema };
}

/** Holds the kernel's vector updates back, as a busy kernel would, until the returned release. */
function holdKernelUpdates(collectionName: string): () => void {
  const index = server.app.collections.get(collectionName).vectorIndex('');
  const kernelUpsert = index.upsert.bind(index);
  let open: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  index.upsert = async (slots, vectors) => {
    await gate;
    return kernelUpsert(slots, vectors);
  };
  return () => {
    open();
    index.upsert = kernelUpsert;
  };
}

describe('GET / and routing', () => {
  it('GET / — health check is not enveloped', async () => {
    const response = await server.request('GET', '/');
    expect(response.status).toBe(200);
    expect(response.body.title).toBe('quiverdb - vector search engine');
    expect(response.body).not.toHaveProperty('result');
  });

  it('unknown route — 404 with the error envelope', async () => {
    expectError(await server.request('GET', '/no/such/thing'), 404);
    expectError(await server.request('POST', '/collections/x/points/nothing', {}), 404);
  });

  it('trailing slash — ignored on collection and point routes', async () => {
    await createWithPoints('trailing');
    expect(expectSuccess(await server.request('GET', '/collections/'))).toHaveProperty('collections');
    expect(expectSuccess(await server.request('GET', '/collections/trailing/')).points_count).toBe(5);
    expect(expectSuccess(await server.request('POST', '/collections/trailing/points/count/', {})).count).toBe(5);
  });

  it('an over-long path parameter or a malformed URL — 400 with the error envelope (not fastify\'s own body)', async () => {
    expectError(await server.request('GET', `/collections/trailing/points/${'1'.repeat(2000)}`), 400, 'Bad request: a path parameter is longer than 1024 characters');
    expectError(await server.request('DELETE', `/collections/trailing/index/${'x'.repeat(2000)}`), 400, /path parameter is longer/);
    expectError(await server.request('GET', '/collections/%E0%A4%A'), 400, /^Bad request: /);
  });

  it('spec §4.6 groups — 501 with the error envelope', async () => {
    expectError(await server.request('GET', '/aliases'), 501);
    expectError(await server.request('POST', '/collections/trailing/points/recommend', {}), 501);
  });
});

describe('collections', () => {
  it('PUT C — true; 409 Collection already exists: {name}', async () => {
    expect(expectSuccess(await server.request('PUT', '/collections/c-create', { vectors_config: { size: 3, distance: 'Dot' } }))).toBe(true);
    expectError(await server.request('PUT', '/collections/c-create', { vectors_config: { size: 3, distance: 'Dot' } }), 409, 'Collection already exists: c-create');
  });

  it('PUT C — 400 vectors_config is required without vectors_config, vectors or sparse_vectors', async () => {
    expectError(await server.request('PUT', '/collections/c-novectors', {}), 400, 'vectors_config is required');
    expectError(await server.request('PUT', '/collections/c-novectors', { hnsw_config: { m: 8 } }), 400, 'vectors_config is required');
    expectError(await server.request('PUT', '/collections/c-novectors', { vectors_config: null }), 400, 'vectors_config is required');
    expect(expectSuccess(await server.request('GET', '/collections/c-novectors/exists'))).toEqual({ exists: false });
  });

  it('GET C — CollectionInfo has every field API.md §4 lists', async () => {
    await createWithPoints('c-info');
    const info = expectSuccess(await server.request('GET', '/collections/c-info'));
    for (const key of ['status', 'optimizer_status', 'indexed_vectors_count', 'points_count', 'segments_count', 'config', 'payload_schema']) expect(info).toHaveProperty(key);
    expect(['green', 'yellow', 'grey', 'red']).toContain(info.status);
    expect(info.optimizer_status).toBe('ok');
    expect(info.points_count).toBe(5);
    expect(Number.isInteger(info.indexed_vectors_count)).toBe(true);
    expect(Number.isInteger(info.segments_count)).toBe(true);
    for (const key of ['params', 'hnsw_config', 'optimizer_config', 'wal_config', 'quantization_config']) expect(info.config).toHaveProperty(key);
    for (const key of ['vectors', 'shard_number', 'replication_factor', 'write_consistency_factor', 'on_disk_payload']) expect(info.config.params).toHaveProperty(key);
    expect(info.config.params.vectors).toEqual({ size: dimension, distance: 'Cosine' });
    expect(info.config.hnsw_config).toMatchObject({ m: 16, ef_construct: 100, full_scan_threshold: 10000 });
    // The fields the Qdrant client types mark as required in the nested configs.
    for (const key of ['deleted_threshold', 'vacuum_min_vector_number', 'default_segment_number', 'flush_interval_sec']) expect(info.config.optimizer_config).toHaveProperty(key);
    for (const key of ['wal_capacity_mb', 'wal_segments_ahead']) expect(info.config.wal_config).toHaveProperty(key);
    expect(info.payload_schema).toEqual({});
  });

  it('GET C — 404 Collection not found: {name} on every collection route', async () => {
    const message = 'Collection not found: c-missing';
    const routes: [string, string, unknown?][] = [
      ['GET', '/collections/c-missing'],
      ['PATCH', '/collections/c-missing', { optimizers_config: { indexing_threshold: 100 } }],
      ['PUT', '/collections/c-missing/points', { points: [{ id: 1, vector: [1, 2, 3, 4] }] }],
      ['POST', '/collections/c-missing/points', { ids: [1] }],
      ['GET', '/collections/c-missing/points/1'],
      ['POST', '/collections/c-missing/points/delete', { points: [1] }],
      ['PUT', '/collections/c-missing/points/vectors', { points: [{ id: 1, vector: [1, 2, 3, 4] }] }],
      ['POST', '/collections/c-missing/points/payload', { payload: { a: 1 }, points: [1] }],
      ['PUT', '/collections/c-missing/points/payload', { payload: { a: 1 }, points: [1] }],
      ['POST', '/collections/c-missing/points/payload/delete', { keys: ['a'], points: [1] }],
      ['POST', '/collections/c-missing/points/payload/clear', { points: [1] }],
      ['PUT', '/collections/c-missing/index', { field_name: 'a', field_schema: 'keyword' }],
      ['DELETE', '/collections/c-missing/index/a'],
      ['POST', '/collections/c-missing/points/count', {}],
      ['POST', '/collections/c-missing/points/search', { vector: [1, 2, 3, 4], limit: 3 }],
      ['POST', '/collections/c-missing/points/search/batch', { searches: [{ vector: [1, 2, 3, 4], limit: 3 }] }],
      ['POST', '/collections/c-missing/points/query', { query: [1, 2, 3, 4] }],
      ['POST', '/collections/c-missing/points/query/batch', { searches: [{ query: [1, 2, 3, 4] }] }],
      ['POST', '/collections/c-missing/points/scroll', {}],
    ];
    for (const [method, path, body] of routes) {
      const response = await server.request(method, path, body);
      expect(`${method} ${path} ${response.status} ${response.body?.status?.error}`).toBe(`${method} ${path} 404 ${message}`);
      expectError(response, 404, message);
    }
  });

  it('GET /collections — sorted by name, each entry exactly {name}', async () => {
    for (const name of ['c-zeta', 'c-alpha', 'c-Mid']) expectSuccess(await server.request('PUT', `/collections/${name}`, { vectors: { size: 2, distance: 'Euclid' } }));
    const result = expectSuccess(await server.request('GET', '/collections'));
    expect(Object.keys(result)).toEqual(['collections']);
    const names = result.collections.map((entry: { name: string }) => entry.name);
    expect(names).toEqual([...names].sort((left: string, right: string) => (left < right ? -1 : left > right ? 1 : 0)));
    for (const entry of result.collections) expect(Object.keys(entry)).toEqual(['name']);
    expect(names).toEqual(expect.arrayContaining(['c-zeta', 'c-alpha', 'c-Mid']));
  });

  it('PATCH C — true; exists — {exists: bool}', async () => {
    expectSuccess(await server.request('PUT', '/collections/c-patch', { vectors: { size: 2, distance: 'Euclid' } }));
    expect(expectSuccess(await server.request('PATCH', '/collections/c-patch', { optimizers_config: { indexing_threshold: 100 }, metadata: { team: 'x' } }))).toBe(true);
    const info = expectSuccess(await server.request('GET', '/collections/c-patch'));
    expect(info.config.metadata).toEqual({ team: 'x' });
    expect(expectSuccess(await server.request('GET', '/collections/c-patch/exists'))).toEqual({ exists: true });
    expect(expectSuccess(await server.request('GET', '/collections/c-never/exists'))).toEqual({ exists: false });
  });

  it('DELETE C — true when it existed, false (200) when it did not', async () => {
    expectSuccess(await server.request('PUT', '/collections/c-delete', { vectors: { size: 2, distance: 'Euclid' } }));
    expect(expectSuccess(await server.request('DELETE', '/collections/c-delete'))).toBe(true);
    expect(expectSuccess(await server.request('DELETE', '/collections/c-delete'))).toBe(false);
    expect(expectSuccess(await server.request('GET', '/collections/c-delete/exists'))).toEqual({ exists: false });
    expectError(await server.request('GET', '/collections/c-delete'), 404, 'Collection not found: c-delete');
  });

  it('collection marked for deletion — 412 Collection {name} is marked for deletion', async () => {
    expectSuccess(await server.request('PUT', '/collections/c-marked', { vectors: { size: 2, distance: 'Euclid' } }));
    // The window between marking and removal is too short to hit over HTTP: mark it directly.
    server.app.collections.get('c-marked').markForDeletion();
    const message = 'Collection c-marked is marked for deletion';
    expectError(await server.request('GET', '/collections/c-marked'), 412, message);
    expectError(await server.request('PUT', '/collections/c-marked/points?wait=true', { points: [{ id: 1, vector: [1, 2] }] }), 412, message);
    expectError(await server.request('POST', '/collections/c-marked/points/search', { vector: [1, 2], limit: 1 }), 412, message);
    expectError(await server.request('PUT', '/collections/c-marked', { vectors: { size: 2, distance: 'Euclid' } }), 412, message);
    expectError(await server.request('DELETE', '/collections/c-marked'), 412, message);
  });
});

describe('internal failures (spec §7.2: 500 messages start with the operation)', () => {
  it.each([
    ['upsert', 'PUT', 'points?wait=true', { points: [{ id: 1, vector: [1, 2] }] }, 'Upsert failed: disk on fire'],
    ['retrieve', 'POST', 'points', { ids: [1] }, 'Search failed: disk on fire'],
    ['deletePoints', 'POST', 'points/delete?wait=true', { points: [1] }, 'Delete failed: disk on fire'],
    ['updatePayloads', 'POST', 'points/payload?wait=true', { payload: { a: 1 }, points: [1] }, 'Payload operation failed: disk on fire'],
    ['info', 'GET', '', undefined, 'Collection operation failed: disk on fire'],
  ] as const)('an unexpected throw in %s answers 500 "%s"', async (method, verb, path, body, message) => {
    const name = `boom-${method.toLowerCase()}`;
    expectSuccess(await server.request('PUT', `/collections/${name}`, { vectors: { size: 2, distance: 'Dot' } }));
    const collection = server.app.collections.get(name) as unknown as Record<string, unknown>;
    const original = collection[method];
    collection[method] = () => {
      throw new Error('disk on fire');
    };
    try {
      expectError(await server.request(verb, `/collections/${name}${path === '' ? '' : `/${path}`}`, body), 500, message);
    } finally {
      collection[method] = original;
    }
    expectSuccess(await server.request('GET', `/collections/${name}`));
  });
});

describe('request bodies (API.md §1: every client input error is a 400)', () => {
  it('a body over the size limit, a non-JSON content type and an empty required body are 400s with the error envelope', async () => {
    const small = await createTestApp({ overrides: { service: { max_request_size_mb: 0.001 } } });
    try {
      await small.app.inject({ method: 'PUT', url: '/collections/c', payload: { vectors: { size: 2, distance: 'Dot' } } });
      const points = Array.from({ length: 100 }, (_, id) => ({ id, vector: [1, 2] }));
      const tooLarge = await small.app.inject({ method: 'PUT', url: '/collections/c/points?wait=true', payload: { points } });
      expect(tooLarge.statusCode).toBe(400);
      expect(tooLarge.json()).toEqual({ time: expect.any(Number), status: { error: 'Request body is larger than the limit of 1048 bytes' } });
      const plain = await small.app.inject({ method: 'POST', url: '/collections/c/points/count', payload: '{}', headers: { 'content-type': 'text/plain' } });
      expect(plain.statusCode).toBe(400);
      expect(plain.json().status.error).toMatch(/Content-Type/);
      const empty = await small.app.inject({ method: 'PUT', url: '/collections/c/points', headers: { 'content-type': 'application/json' } });
      expect(empty.statusCode).toBe(400);
      expect(empty.json().status.error).toMatch(/body/);
      expect((await small.app.inject({ method: 'POST', url: '/collections/c/points/count', payload: {} })).json().result).toEqual({ count: 0 });
    } finally {
      await small.dispose();
    }
  });
});

describe('engine not initialized (spec §7.2 rule 1)', () => {
  it('every collection and point route answers 412 Engine not initialized; GET / answers 200', async () => {
    const loading = await createTestApp({ open: false });
    try {
      const routes: [string, string, unknown?][] = [
        ['GET', '/collections'],
        ['GET', '/collections/any'],
        ['PUT', '/collections/any', { vectors: { size: 2, distance: 'Dot' } }],
        ['PATCH', '/collections/any', {}],
        ['DELETE', '/collections/any'],
        ['GET', '/collections/any/exists'],
        ['PUT', '/collections/any/points', { points: [] }],
        ['POST', '/collections/any/points', { ids: [1] }],
        ['GET', '/collections/any/points/1'],
        ['POST', '/collections/any/points/delete', { points: [1] }],
        ['PUT', '/collections/any/points/vectors', { points: [{ id: 1, vector: [1, 2] }] }],
        ['POST', '/collections/any/points/payload', { payload: {}, points: [1] }],
        ['PUT', '/collections/any/points/payload', { payload: {}, points: [1] }],
        ['POST', '/collections/any/points/payload/delete', { keys: ['a'], points: [1] }],
        ['POST', '/collections/any/points/payload/clear', { points: [1] }],
        ['PUT', '/collections/any/index', { field_name: 'a' }],
        ['DELETE', '/collections/any/index/a'],
        ['POST', '/collections/any/points/count', {}],
        ['POST', '/collections/any/points/search', { vector: [1, 2], limit: 1 }],
        ['POST', '/collections/any/points/search/batch', { searches: [] }],
        ['POST', '/collections/any/points/query', {}],
        ['POST', '/collections/any/points/query/batch', { searches: [] }],
        ['POST', '/collections/any/points/scroll', {}],
      ];
      for (const [method, url, body] of routes) {
        const response = await loading.app.inject({ method: method as 'GET', url, ...(body === undefined ? {} : { payload: body as object }) });
        expect(`${method} ${url} ${response.statusCode}`).toBe(`${method} ${url} 412`);
        expect(response.json()).toEqual({ time: expect.any(Number), status: { error: 'Engine not initialized' } });
      }
      expect((await loading.app.inject({ method: 'GET', url: '/' })).statusCode).toBe(200);
    } finally {
      await loading.dispose();
    }
  });
});

describe('points — raw HTTP shapes', () => {
  const name = 'p-raw';
  beforeAll(async () => {
    await createWithPoints(name);
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
    const before = await snapshot(name);
    for (const wait of [true, false]) {
      const response = await server.request('PUT', `/collections/${name}/points?wait=${wait}`, {
        points: [{ id: 20, vector: [1, 2, 3, 4] }, { id: 21, vector: [1, 2, 3] }],
      });
      expect(expectError(response, 400)).toMatch(/points\[1\]\.vector.*expected 4, got 3/);
    }
    expect(await snapshot(name)).toEqual(before);
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

  it('score_threshold — keeps score > t for Cosine (a score equal to t is dropped, API.md §4)', async () => {
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

  it('payload delete — a filter is refused with 400 (spec §4.5); keys and points are required', async () => {
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
    const release = holdKernelUpdates(name);
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

describe('points — through the official client', () => {
  const name = 'p-client';
  beforeAll(async () => {
    expect(await server.client.createCollection(name, { vectors: { size: dimension, distance: 'Dot' } })).toBe(true);
  });

  it('collectionExists, getCollection, getCollections', async () => {
    expect(await server.client.collectionExists(name)).toEqual({ exists: true });
    expect(await server.client.collectionExists('p-client-none')).toEqual({ exists: false });
    const info = await server.client.getCollection(name);
    expect(info.config.params.vectors).toEqual({ size: dimension, distance: 'Dot' });
    const listed = await server.client.getCollections();
    expect(listed.collections.map((entry) => entry.name)).toContain(name);
  });

  it('upsert, retrieve, count, scroll', async () => {
    const upserted = await server.client.upsert(name, { wait: true, points: basePoints });
    expect(upserted).toEqual({ operation_id: expect.any(Number), status: 'completed' });
    // The client waits by default; wait=false is the acknowledged form.
    const acknowledged = await server.client.upsert(name, { wait: false, points: [{ id: 6, vector: [2, 2, 2, 2], payload: { city: 'Oslo' } }] });
    expect(acknowledged.status).toBe('acknowledged');
    const records = await server.client.retrieve(name, { ids: [1, 6], with_vector: true });
    expect(records.map((record) => record.id).sort()).toEqual([1, 6]);
    expect(records.find((record) => record.id === 6)).toEqual({ id: 6, payload: { city: 'Oslo' }, vector: [2, 2, 2, 2] });
    expect(await server.client.count(name, { exact: true })).toEqual({ count: 6 });
    const page = await server.client.scroll(name, { limit: 4, with_payload: false });
    expect(page.points.map((point) => point.id)).toEqual([1, 2, 3, 4]);
    expect(page.next_page_offset).toBe(5);
  });

  it('an acknowledged upsert reads back whole before the kernel has it (never the new payload without its vector)', async () => {
    const release = holdKernelUpdates(name);
    try {
      expect((await server.client.upsert(name, { wait: false, points: [{ id: 7, vector: [3, 3, 3, 3], payload: { city: 'Bergen' } }] })).status).toBe('acknowledged');
      expect(await server.client.retrieve(name, { ids: [7], with_vector: true })).toEqual([{ id: 7, payload: { city: 'Bergen' }, vector: [3, 3, 3, 3] }]);
      expect((await server.request('GET', `/collections/${name}/points/7`)).body.result).toEqual({ id: 7, payload: { city: 'Bergen' }, vector: [3, 3, 3, 3] });
    } finally {
      release();
    }
  });

  it('an acknowledged vector update reads back its new vector before the kernel has it', async () => {
    const release = holdKernelUpdates(name);
    try {
      expect((await server.client.updateVectors(name, { wait: false, points: [{ id: 7, vector: [0, 0, 0, 5] }] })).status).toBe('acknowledged');
      expect(await server.client.retrieve(name, { ids: [7], with_vector: true, with_payload: false })).toEqual([{ id: 7, vector: [0, 0, 0, 5] }]);
    } finally {
      release();
    }
    await server.client.delete(name, { wait: true, points: [7] });
    expect(await server.client.retrieve(name, { ids: [7] })).toEqual([]);
  });

  it('search, searchBatch, query, queryBatch', async () => {
    const found = await server.client.search(name, { vector: [0, 0, 0, 1], limit: 1, with_payload: true });
    expect(found[0]).toEqual({ id: 6, version: expect.any(Number), score: 2, payload: { city: 'Oslo' } });
    const batches = await server.client.searchBatch(name, { searches: [{ vector: [1, 0, 0, 0], limit: 1 }, { vector: [0, 1, 0, 0], limit: 1 }] });
    expect(batches.map((batch) => batch.length)).toEqual([1, 1]);
    const queried = await server.client.query(name, { query: [0, 0, 1, 0], limit: 2 });
    expect(queried.points.map((point) => point.id)).toEqual([6, 3]);
    const queriedBatch = await server.client.queryBatch(name, { searches: [{ query: [1, 0, 0, 0], limit: 1 }, { limit: 2 }] });
    expect(queriedBatch.map((entry) => entry.points.length)).toEqual([1, 2]);
  });

  it('setPayload, deletePayload, clearPayload, createPayloadIndex', async () => {
    expect((await server.client.setPayload(name, { wait: true, points: [2], payload: { color: 'red' } })).status).toBe('completed');
    expect((await server.client.retrieve(name, { ids: [2] }))[0]!.payload).toEqual({ city: 'London', rank: 2, color: 'red' });
    expect((await server.client.deletePayload(name, { wait: true, points: [2], keys: ['color', 'rank'] })).status).toBe('completed');
    expect((await server.client.retrieve(name, { ids: [2] }))[0]!.payload).toEqual({ city: 'London' });
    expect((await server.client.clearPayload(name, { wait: true, points: [2] })).status).toBe('completed');
    expect((await server.client.retrieve(name, { ids: [2] }))[0]!.payload).toEqual({});
    const indexed = await server.client.createPayloadIndex(name, { wait: true, field_name: 'city', field_schema: 'keyword' });
    expect(indexed).toEqual({ operation_id: expect.any(Number), status: 'completed' });
    expect((await server.client.getCollection(name)).payload_schema.city).toMatchObject({ data_type: 'keyword' });
  });

  it('updateVectors, delete', async () => {
    expect((await server.client.updateVectors(name, { wait: true, points: [{ id: 5, vector: [0, 0, 0, 9] }] })).status).toBe('completed');
    expect((await server.client.retrieve(name, { ids: [5], with_vector: true, with_payload: false }))[0]).toEqual({ id: 5, vector: [0, 0, 0, 9] });
    expect((await server.client.delete(name, { wait: true, points: [5, 6] })).status).toBe('completed');
    expect(await server.client.count(name)).toEqual({ count: 4 });
  });

  it('client errors carry the contract status codes', async () => {
    expect((await clientStatus(server.client.getCollection('p-client-none'))).status).toBe(404);
    expect((await clientStatus(server.client.createCollection(name, { vectors: { size: 4, distance: 'Dot' } }))).status).toBe(409);
    expect((await clientStatus(server.client.upsert(name, { wait: true, points: [{ id: 1, vector: [1, 2] }] }))).status).toBe(400);
  });

  it('overwritePayload, updateCollection, deletePayloadIndex', async () => {
    expect((await server.client.overwritePayload(name, { wait: true, points: [3], payload: { only: 1 } })).status).toBe('completed');
    expect((await server.client.retrieve(name, { ids: [3] }))[0]!.payload).toEqual({ only: 1 });
    expect(await server.client.updateCollection(name, { optimizers_config: { indexing_threshold: 2000 } })).toBe(true);
    expect((await server.client.getCollection(name)).config.optimizer_config.indexing_threshold).toBe(2000);
    expect((await server.client.deletePayloadIndex(name, 'city', { wait: true })).status).toBe('completed');
    expect((await server.client.getCollection(name)).payload_schema).toEqual({});
  });

  it('upsert update_mode — insert_only keeps an existing point, update_only skips a missing one', async () => {
    await server.client.upsert(name, { wait: true, points: [{ id: 40, vector: [1, 1, 1, 1], payload: { v: 1 } }] });
    expectWriteResult(expectSuccess(await server.request('PUT', `/collections/${name}/points?wait=true`, { points: [{ id: 40, vector: [2, 2, 2, 2], payload: { v: 2 } }], update_mode: 'insert_only' })), true);
    expect((await server.client.retrieve(name, { ids: [40] }))[0]!.payload).toEqual({ v: 1 });
    expectWriteResult(expectSuccess(await server.request('PUT', `/collections/${name}/points?wait=true&update_mode=update_only`, { points: [{ id: 41, vector: [2, 2, 2, 2] }] })), true);
    expect(await server.client.retrieve(name, { ids: [41] })).toEqual([]);
    await server.client.delete(name, { wait: true, points: [40] });
  });

  it('deleteCollection — true, then false', async () => {
    expectSuccess(await server.request('PUT', '/collections/p-client-gone', { vectors: { size: 2, distance: 'Dot' } }));
    expect(await server.client.deleteCollection('p-client-gone')).toBe(true);
    expect(await server.client.deleteCollection('p-client-gone')).toBe(false);
  });
});

describe('hostile bodies — 400 naming the field, collection unchanged', () => {
  const name = 'hostile';
  beforeAll(async () => {
    await createWithPoints(name);
  });

  const nestedFilter = (depth: number): unknown => {
    let filter: unknown = { must: [{ key: 'city', match: { value: 'Berlin' } }] };
    for (let level = 0; level < depth; level += 1) filter = { must: [filter] };
    return filter;
  };

  // [method, path, body, a word the message must contain]
  const cases: [string, string, unknown, string][] = [
    // upsert
    ['PUT', 'points', { points: 'all' }, 'points'],
    ['PUT', 'points', { points: null }, 'points'],
    ['PUT', 'points', { points: [null] }, 'points[0]'],
    ['PUT', 'points', { points: [{ id: -1, vector: [1, 2, 3, 4] }] }, 'points[0].id'],
    ['PUT', 'points', { points: [{ id: 1.5, vector: [1, 2, 3, 4] }] }, 'points[0].id'],
    ['PUT', 'points', { points: [{ id: 'NaN', vector: [1, 2, 3, 4] }] }, 'points[0].id'],
    ['PUT', 'points', { points: [{ id: 1e300, vector: [1, 2, 3, 4] }] }, 'points[0].id'],
    ['PUT', 'points', { points: [{ id: null, vector: [1, 2, 3, 4] }] }, 'points[0].id'],
    ['PUT', 'points', { points: [{ id: 1 }] }, 'points[0].vector'],
    ['PUT', 'points', { points: [{ id: 1, vector: null }] }, 'points[0].vector'],
    ['PUT', 'points', { points: [{ id: 1, vector: ['NaN', 0, 0, 0] }] }, 'points[0].vector[0]'],
    ['PUT', 'points', { points: [{ id: 1, vector: [1, 2, 3, '4'] }] }, 'points[0].vector[3]'],
    ['PUT', 'points', { points: [{ id: 1, vector: [1e39, 0, 0, 0] }] }, 'points[0].vector[0]'],
    ['PUT', 'points', { points: [{ id: 1, vector: [] }] }, 'points[0].vector'],
    ['PUT', 'points', { points: [{ id: 1, vector: [1, 2, 3, 4], payload: [1, 2] }] }, 'points[0].payload'],
    ['PUT', 'points', { points: [{ id: 1, vector: [1, 2, 3, 4], payload: 'text' }] }, 'points[0].payload'],
    ['PUT', 'points', { points: [{ id: 1, vector: [1, 2, 3, 4], extra: 1 }] }, 'points[0]'],
    ['PUT', 'points', { batch: { ids: [1, 2], vectors: [[1, 2, 3, 4]] } }, 'batch.vectors'],
    ['PUT', 'points', { batch: { ids: 'x', vectors: [] } }, 'batch.ids'],
    ['PUT', 'points', { batch: { ids: [1], vectors: [[1, 2, 3, 4]], payloads: [1] } }, 'batch.payloads[0]: expected object'],
    ['PUT', 'points', { points: [{ id: 1, vector: [1, 2, 3, 4] }], update_mode: 'sometimes' }, 'update_mode: expected one of "upsert", "insert_only", "update_only" (got "sometimes")'],
    ['PUT', 'points', {}, 'points'],
    ['PUT', 'points', [], 'body'],
    // retrieve (a read, but a body all the same)
    ['POST', 'points', { ids: 'all' }, 'ids'],
    ['POST', 'points', { ids: [-5] }, 'ids'],
    ['POST', 'points', { ids: [1], with_payload: 5 }, 'with_payload'],
    // delete points
    ['POST', 'points/delete', { points: '1' }, 'points'],
    ['POST', 'points/delete', { points: [null] }, 'points'],
    ['POST', 'points/delete', { points: [1], filter: { must: [] } }, 'points'],
    ['POST', 'points/delete', {}, 'points'],
    ['POST', 'points/delete', { filter: { must: 'everything' } }, 'filter.must'],
    ['POST', 'points/delete', { filter: { bogus: [] } }, 'filter'],
    ['POST', 'points/delete', { filter: [] }, 'filter'],
    ['POST', 'points/delete', { filter: nestedFilter(40) }, 'filter'],
    ['POST', 'points/delete', { filter: { must: [{ key: 'rank', range: { gt: 'NaN' } }] } }, 'filter.must[0].range'],
    ['POST', 'points/delete', { filter: { must: [{ key: 'rank', match: { value: null } }] } }, 'filter.must[0].match'],
    // update vectors
    ['PUT', 'points/vectors', { points: [] }, 'points'],
    ['PUT', 'points/vectors', { points: [{ id: 1, vector: 'x' }] }, 'points[0].vector'],
    ['PUT', 'points/vectors', { points: [{ id: 'x', vector: [1, 2, 3, 4] }] }, 'points[0].id'],
    ['PUT', 'points/vectors', { points: [{ id: 1, vector: [1, 2, 3, 4] }, { id: 2, vector: [1, 2] }] }, 'points[1].vector'],
    // set / overwrite payload
    ['POST', 'points/payload', { payload: null, points: [1] }, 'payload'],
    ['POST', 'points/payload', { payload: [1], points: [1] }, 'payload'],
    ['POST', 'points/payload', { payload: { a: 1 } }, 'points'],
    ['POST', 'points/payload', { payload: { a: 1 }, points: [-1] }, 'points'],
    ['POST', 'points/payload', { payload: { a: 1 }, points: [1], key: 5 }, 'key'],
    ['POST', 'points/payload', { payload: { a: 1 }, points: [1], key: 'a..b' }, 'key'],
    ['POST', 'points/payload', { payload: { a: 1 }, filter: { must: { key: 5 } } }, 'filter.must'],
    ['PUT', 'points/payload', { payload: 'text', points: [1] }, 'payload'],
    ['PUT', 'points/payload', { points: [1] }, 'payload'],
    ['PUT', 'points/payload', { payload: { a: 1 }, points: [{}] }, 'points'],
    // delete payload keys
    ['POST', 'points/payload/delete', { keys: 'city', points: [1] }, 'keys'],
    ['POST', 'points/payload/delete', { keys: [1], points: [1] }, 'keys[0]'],
    ['POST', 'points/payload/delete', { keys: null, points: [1] }, 'keys'],
    ['POST', 'points/payload/delete', { keys: ['city'], points: ['nope'] }, 'points'],
    // clear payload
    ['POST', 'points/payload/clear', { points: {} }, 'points'],
    ['POST', 'points/payload/clear', { filter: 5 }, 'filter'],
    ['POST', 'points/payload/clear', {}, 'points'],
    // payload index
    ['PUT', 'index', { field_name: 5, field_schema: 'keyword' }, 'field_name'],
    ['PUT', 'index', { field_schema: 'keyword' }, 'field_name'],
    ['PUT', 'index', { field_name: 'city', field_schema: 'bogus' }, 'field_schema'],
    ['PUT', 'index', { field_name: 'city', field_schema: { type: 'integer', lookup: 'yes' } }, 'field_schema'],
    ['PUT', 'index', { field_name: 'city', field_schema: 7 }, 'field_schema'],
    ['PUT', 'index', { field_name: '', field_schema: 'keyword' }, 'field_name'],
    // reads with hostile limits and filters
    ['POST', 'points/search', { vector: [1, 0, 0, 0], limit: -1 }, 'limit: expected integer to be greater or equal to 1 (got -1)'],
    ['POST', 'points/search', { vector: [1, 0, 0, 0], limit: '10' }, 'limit'],
    ['POST', 'points/search', { vector: [1, 0, 0, 0], limit: 1e20 }, 'limit'],
    ['POST', 'points/search', { vector: [1, 0, 0, 0], limit: 2, offset: -3 }, 'offset'],
    ['POST', 'points/search', { vector: ['NaN', 0, 0, 0], limit: 2 }, 'vector'],
    ['POST', 'points/search', { vector: 'x', limit: 2 }, 'vector'],
    ['POST', 'points/search', { vector: [1, 0, 0, 0], limit: 2, score_threshold: 'high' }, 'score_threshold'],
    ['POST', 'points/search', { vector: [1, 0, 0, 0], limit: 2, filter: nestedFilter(40) }, 'filter'],
    ['POST', 'points/search/batch', { searches: [{ vector: [1, 0, 0, 0], limit: -2 }] }, 'searches[0].limit'],
    ['POST', 'points/search/batch', { searches: null }, 'searches'],
    ['POST', 'points/search/batch', { searches: [{ vector: [1, 0, 0, 0], limit: 1 }, { vector: [0, 1e39, 0, 0], limit: 1 }] }, 'searches[1].vector[1]'],
    ['POST', 'points/query', { query: [1, 0, 0, 0], limit: -1 }, 'limit'],
    ['POST', 'points/query', { query: [1, 0, 0, 0], limit: 1e20 }, 'limit'],
    ['POST', 'points/query', { query: 'x' }, 'query'],
    ['POST', 'points/query', { query: [1e39, 0, 0, 0] }, 'query'],
    ['POST', 'points/query', { prefetch: { query: { nearest: 'not-an-id' } }, query: { fusion: 'rrf' } }, 'prefetch[0].query.nearest'],
    ['POST', 'points/query', { query: { recommend: { positive: [-4] } } }, 'query.recommend.positive[0]'],
    ['POST', 'points/query', { query: { recommend: { positive: [1], negative: [[1e39, 0, 0, 0]] } } }, 'query.recommend.negative[0]'],
    ['POST', 'points/query', { query: { recommend: { positive: [1], negative: [[1, 0, 0, 0]], strategy: 'best_score' } }, params: { exact: 'yes' } }, 'params'],
    ['POST', 'points/query/batch', { searches: [{ query: 'x' }] }, 'searches[0].query'],
    ['POST', 'points/query', { query: { order_by: '' } }, 'query.order_by: expected string length greater or equal to 1'],
    ['POST', 'points/query', { query: { nearest: [1, 0, 0, 0], extra: 1 } }, 'query'],
    ['POST', 'points/query', { query: { fusion: 'max' }, prefetch: { query: [1, 0, 0, 0] } }, 'query.fusion'],
    ['PUT', 'points', { points: [{ id: 1, vector: [1, 2, 3, 4] }], update_mode: 5 }, 'update_mode'],
    ['POST', 'points/search', { vector: [1e39, 0, 0, 0], limit: 2 }, 'vector'],
    ['POST', 'points/scroll', { limit: -1 }, 'limit'],
    ['POST', 'points/scroll', { limit: 0 }, 'limit'],
    ['POST', 'points/scroll', { limit: 1e20 }, 'limit'],
    ['POST', 'points/scroll', { offset: -1 }, 'offset'],
    ['POST', 'points/scroll', { filter: { must: [{ key: 'rank', range: { gt: [] } }] } }, 'filter.must[0].range'],
    ['POST', 'points/count', { exact: 'yes' }, 'exact'],
    ['POST', 'points/count?timeout=soon', {}, 'timeout'],
    ['POST', 'points/search?timeout=-5', { vector: [1, 0, 0, 0], limit: 1 }, 'timeout'],
    ['PUT', 'index', { field_name: 'city', field_schema: { type: 'text', min_token_len: -1 } }, 'field_schema'],
    ['PUT', 'index', { field_name: 'city', field_schema: { type: 'text', tokenizer: 'emoji' } }, 'field_schema'],
    ['POST', 'points/count', { filter: nestedFilter(40) }, 'filter'],
    ['POST', 'points/count', { filter: { should: [{ has_id: 'all' }] } }, 'filter.should[0]'],
  ];

  it.each(cases)('%s %s, case %# — 400 naming the field', async (method, path, body, field) => {
    const before = await snapshot(name);
    for (const wait of ['true', 'false']) {
      const response = await server.request(method, `/collections/${name}/${path}?wait=${wait}`, body);
      const message = expectError(response, 400);
      expect(message).toContain(field);
    }
    expect(await snapshot(name)).toEqual(before);
  });

  it('PUT C — hostile collection configs are 400s naming the field and create nothing', async () => {
    const configs: [unknown, string][] = [
      [{ vectors: { size: '4', distance: 'Cosine' } }, 'vectors.size'],
      [{ vectors: { size: -1, distance: 'Cosine' } }, 'vectors.size'],
      [{ vectors: { size: 0, distance: 'Cosine' } }, 'vectors.size'],
      [{ vectors: { size: 1e20, distance: 'Cosine' } }, 'vectors.size'],
      [{ vectors: { size: 65537, distance: 'Cosine' } }, 'vectors.size'],
      [{ vectors: { size: 4, distance: 'Cosinus' } }, 'vectors.distance'],
      [{ vectors: { size: 4 } }, 'vectors.distance'],
      [{ vectors: [] }, 'vectors'],
      [{ vectors: 'dense' }, 'vectors'],
      [{ vectors: { image: { size: 'x', distance: 'Dot' } } }, 'vectors.image.size'],
      [{ vectors_config: { size: 4, distance: 'Dot' }, hnsw_config: { m: 'x' } }, 'hnsw_config.m'],
      [{ vectors_config: { size: 4, distance: 'Dot' }, shard_number: -1 }, 'shard_number'],
      [{ vectors_config: { size: 4, distance: 'Dot' }, on_disk_payload: 'yes' }, 'on_disk_payload'],
      [{ vectors_config: { size: 4, distance: 'Dot' }, bogus: 1 }, 'bogus'],
      [[], 'body'],
    ];
    for (const [config, field] of configs) {
      const response = await server.request('PUT', '/collections/hostile-config', config);
      const message = expectError(response, 400);
      expect(`${JSON.stringify(config)} -> ${message}`).toContain(field);
    }
    expect(expectSuccess(await server.request('GET', '/collections/hostile-config/exists'))).toEqual({ exists: false });
  });

  it('PATCH C — hostile updates are 400s naming the field and change nothing', async () => {
    const before = expectSuccess(await server.request('GET', `/collections/${name}`)).config;
    const updates: [unknown, string][] = [
      [{ hnsw_config: { m: -1 } }, 'hnsw_config.m'],
      [{ optimizers_config: { indexing_threshold: 'x' } }, 'optimizers_config.indexing_threshold'],
      [{ vectors: { '': { on_disk: 'x' } } }, 'on_disk'],
      [{ bogus: true }, 'bogus'],
    ];
    for (const [update, field] of updates) {
      const message = expectError(await server.request('PATCH', `/collections/${name}`, update), 400);
      expect(`${JSON.stringify(update)} -> ${message}`).toContain(field);
    }
    expect(expectSuccess(await server.request('GET', `/collections/${name}`)).config).toEqual(before);
  });

  const deepObject = (levels: number) => `${'{"child":'.repeat(levels)}{"leaf":1}${'}'.repeat(levels)}`;
  const deepArray = (levels: number) => `${'['.repeat(levels)}1${']'.repeat(levels)}`;

  it.each([
    ['PUT', 'points', (deep: string) => `{"points":[{"id":9,"vector":[1,2,3,4],"payload":${deep}}]}`],
    ['POST', 'points/payload', (deep: string) => `{"points":[1],"payload":{"a":${deep}}}`],
    ['PUT', 'points/payload', (deep: string) => `{"points":[1],"payload":{"a":${deep}}}`],
    ['POST', 'points/count', (deep: string) => `{"filter":{"must":[{"key":"a","match":{"value":${deep}}}]}}`],
    ['POST', 'points/query', (deep: string) => `{"query":${deep}}`],
  ] as const)('%s %s — a body nested thousands of levels deep is a 400, never a stack overflow 500', async (method, path, body) => {
    const before = await snapshot(name);
    for (const levels of [300, 5_000, 50_000]) {
      for (const deep of [deepObject(levels), deepArray(levels)]) {
        const message = expectError(await server.request(method, `/collections/${name}/${path}?wait=true`, body(deep)), 400);
        expect(message).toBe('Format error in JSON body: the body is nested deeper than 256 levels');
      }
    }
    expect(await snapshot(name)).toEqual(before);
  });

  it('a payload nested just under the bound (250 levels) is still accepted and returned whole', async () => {
    expectSuccess(await server.request('PUT', `/collections/hostile-nested/`, { vectors: { size: 2, distance: 'Dot' } }));
    expectSuccess(await server.request('PUT', '/collections/hostile-nested/points?wait=true', `{"points":[{"id":1,"vector":[1,2],"payload":${deepObject(250)}}]}`));
    expect(JSON.stringify(expectSuccess(await server.request('GET', '/collections/hostile-nested/points/1')).payload)).toBe(deepObject(250));
  });

  it('a metadata object nested very deeply is a 400 and creates nothing', async () => {
    const response = await server.request('PUT', '/collections/hostile-deep', `{"vectors":{"size":2,"distance":"Dot"},"metadata":${deepObject(50_000)}}`);
    expectError(response, 400, /nested deeper than/);
    expect(expectSuccess(await server.request('GET', '/collections/hostile-deep/exists'))).toEqual({ exists: false });
  });

  it('a number beyond the double range (1e400) is a 400, not stored as null', async () => {
    const before = await snapshot(name);
    expectError(await server.request('PUT', `/collections/${name}/points?wait=true`, '{"points":[{"id":1,"vector":[1,2,3,4],"payload":{"big":1e400}}]}'), 400, /1e400 is out of range/);
    expectError(await server.request('POST', `/collections/${name}/points/payload?wait=true`, '{"points":[1],"payload":{"big":-1e400}}'), 400, /-1e400 is out of range/);
    expectError(await server.request('POST', `/collections/${name}/points/search`, '{"vector":[1,0,0,0],"limit":1,"score_threshold":1e400}'), 400, /out of range/);
    expect(await snapshot(name)).toEqual(before);
  });
});

describe('auth group with auth off (API.md §7)', () => {
  it('GET /auth/admin/exists — the standard envelope with result false', async () => {
    expect(expectSuccess(await server.request('GET', '/auth/admin/exists'))).toBe(false);
  });

  it.each([
    ['GET', '/auth/access_tokens'],
    ['DELETE', '/auth/access_token/1'],
    ['POST', '/auth/access_token/1/rotate'],
  ])('%s %s — 403 {status: "error", message: "Access token API requires auth_enabled=true"}', async (method, path) => {
    const response = await server.request(method, path);
    expect(response.status).toBe(403);
    expect(response.body).toEqual({ status: 'error', message: 'Access token API requires auth_enabled=true' });
  });
});

describe('auth group with auth on (API.md §7, spec §2.4, §4.1-4.4, §7.3)', () => {
  let secured: TestServer;
  let securedDirectory: string;
  let adminJwt: string;

  beforeAll(async () => {
    securedDirectory = await makeDataDirectory();
    secured = await startServer(securedDirectory, { auth: { enabled: true, admin_username: adminUsername, admin_password: adminPassword, jwt_secret: jwtSecret } });
  });

  afterAll(async () => {
    await secured?.close();
    if (securedDirectory) await removeDataDirectory(securedDirectory);
  });

  async function call(method: string, path: string, headers: Record<string, string> = {}, body?: unknown): Promise<Response> {
    const response = await fetch(`${secured.url}${path}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? undefined : JSON.parse(text), text };
  }

  const recordKeys = ['created_at', 'description', 'expired_at', 'id', 'name', 'permission', 'will_expire'];
  const rfc3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

  it('public routes need no credential; everything else is 401 Invalid or missing authorization token', async () => {
    expect((await call('GET', '/')).status).toBe(200);
    expect(expectSuccess(await call('GET', '/auth/admin/exists'))).toBe(true);
    expectError(await call('GET', '/collections'), 401, 'Invalid or missing authorization token');
    expectError(await call('GET', '/collections', { authorization: 'Bearer qv_not-a-token' }), 401, 'Invalid or missing authorization token');
    const tokens = await call('GET', '/auth/access_tokens');
    expect(tokens.status).toBe(401);
    expect(tokens.body).toEqual({ status: 'error', message: 'Invalid or missing authorization token' });
  });

  it('POST /auth/login — {status, token, token_type, expires_at}; a wrong password is an auth-envelope 401', async () => {
    const wrong = await call('POST', '/auth/login', {}, { username: adminUsername, password: 'wrong password' });
    expect(wrong.status).toBe(401);
    expect(Object.keys(wrong.body).sort()).toEqual(['message', 'status']);
    expect(wrong.body.status).toBe('error');
    const invalid = await call('POST', '/auth/login', {}, {});
    expect(invalid.status).toBe(400);
    expect(invalid.body.status).toBe('error');
    expect(invalid.body.message).toContain('username');
    const login = await call('POST', '/auth/login', {}, { username: adminUsername, password: adminPassword });
    expect(login.status).toBe(200);
    expect(Object.keys(login.body).sort()).toEqual(['expires_at', 'status', 'token', 'token_type']);
    expect(login.body).toMatchObject({ status: 'success', token_type: 'Bearer' });
    expect(login.body.expires_at).toMatch(rfc3339);
    adminJwt = login.body.token;
    expect(expectSuccess(await call('GET', '/collections', { authorization: `Bearer ${adminJwt}` }))).toEqual({ collections: [] });
  });

  it('access tokens — create, list (never raw values), use, permission 403, rotate, delete', async () => {
    const admin = { authorization: `Bearer ${adminJwt}` };
    const created = await call('POST', '/auth/access_token', admin, { name: 'reader', description: 'reads', permission: 'read' });
    expect(created.status).toBe(200);
    expect(Object.keys(created.body).sort()).toEqual([...recordKeys, 'token'].sort());
    expect(created.body).toMatchObject({ name: 'reader', description: 'reads', permission: 'read', expired_at: null, will_expire: false });
    expect(Number.isInteger(created.body.id)).toBe(true);
    expect(created.body.created_at).toMatch(rfc3339);
    expect(created.body.token).toMatch(/^qv_[A-Za-z0-9_-]{43}$/);

    const listed = await call('GET', '/auth/access_tokens', admin);
    expect(listed.status).toBe(200);
    expect(Array.isArray(listed.body)).toBe(true);
    for (const record of listed.body) expect(Object.keys(record).sort()).toEqual(recordKeys);
    expect(listed.text).not.toContain(created.body.token);

    // Qdrant clients send `api-key`; the official client must work with a token.
    const address = new URL(secured.url);
    const client = new QdrantClient({ host: address.hostname, port: Number(address.port), https: false, apiKey: created.body.token, checkCompatibility: false });
    expect(await client.getCollections()).toEqual({ collections: [] });
    expect((await clientStatus(client.createCollection('denied', { vectors: { size: 2, distance: 'Dot' } }))).status).toBe(403);
    expectError(await call('PUT', '/collections/denied', { 'api-key': created.body.token }, { vectors: { size: 2, distance: 'Dot' } }), 403);
    const forbidden = await call('GET', '/auth/access_tokens', { 'api-key': created.body.token });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.status).toBe('error');

    const rotated = await call('POST', `/auth/access_token/${created.body.id}/rotate`, admin);
    expect(rotated.status).toBe(200);
    const { token: newToken, ...rotatedRecord } = rotated.body;
    const { token: oldToken, ...createdRecord } = created.body;
    expect(rotatedRecord).toEqual(createdRecord);
    expect(newToken).not.toBe(oldToken);
    expectError(await call('GET', '/collections', { 'api-key': oldToken }), 401, 'Invalid or missing authorization token');
    expectSuccess(await call('GET', '/collections', { authorization: `Bearer ${newToken}` }));

    const deleted = await call('DELETE', `/auth/access_token/${created.body.id}`, admin);
    expect(deleted.status).toBe(200);
    expect(Object.keys(deleted.body).sort()).toEqual(['message', 'status']);
    expect(deleted.body.status).toBe('success');
    expectError(await call('GET', '/collections', { authorization: `Bearer ${newToken}` }), 401, 'Invalid or missing authorization token');
    for (const [method, path] of [['DELETE', `/auth/access_token/${created.body.id}`], ['POST', `/auth/access_token/${created.body.id}/rotate`]] as const) {
      const missing = await call(method, path, admin);
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ status: 'error', message: 'Access token not found' });
    }
  });

  it('rotating an expired token — 400 Cannot rotate an expired access token', async () => {
    const clock = { now_ms: Date.now() };
    const authApp = await createAuthApp({ clock });
    try {
      const jwt = await loginAdmin(authApp.app);
      const expiring = await createAccessToken(authApp.app, jwt, { name: 'short', permission: 'read', expires_at: new Date(clock.now_ms + 3_600_000).toISOString() });
      clock.now_ms += 2 * 3_600_000;
      const refreshedJwt = await loginAdmin(authApp.app);
      const response = await authApp.app.inject({ method: 'POST', url: `/auth/access_token/${expiring.id}/rotate`, headers: { authorization: `Bearer ${refreshedJwt}` } });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({ status: 'error', message: 'Cannot rotate an expired access token' });
      const used = await authApp.app.inject({ method: 'GET', url: '/collections', headers: { 'api-key': expiring.token } });
      expect(used.statusCode).toBe(401);
    } finally {
      await authApp.dispose();
    }
  });
});
