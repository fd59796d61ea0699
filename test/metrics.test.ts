// GET /metrics (docs/api.md §13.2): the text parses with a Prometheus text-format parser, and
// after real requests the families hold what a slow reference (the requests this test made,
// the points it wrote) says they must; route labels are templates, never raw paths.
import { describe, expect, it } from 'vitest';
import { createTestApp } from './support/app.js';
import { createAuthApp, createAccessToken, bearer, loginAdmin } from './support/auth.js';
import { parseMetrics, samples, value, type Families } from './support/prometheus.js';
import { mulberry32 } from './support/seeded-random.js';
import { serverForFile } from './support/server.js';

// A checkpoint after every write, so the checkpoint families have something to show.
const server = serverForFile({ overrides: { storage: { checkpoint_operations: 1 } } });
const random = mulberry32(16);

async function scrape(): Promise<{ families: Families; contentType: string | null; text: string }> {
  const response = await fetch(`${server.url}/metrics`);
  expect(response.status).toBe(200);
  const text = await response.text();
  return { families: parseMetrics(text), contentType: response.headers.get('content-type'), text };
}

function vectors(count: number, dimension: number): number[][] {
  return Array.from({ length: count }, () => Array.from({ length: dimension }, () => random() * 2 - 1));
}

describe('/metrics', () => {
  it('metrics — Prometheus text format 0.0.4 that parses, with the default process families and the app info', async () => {
    const { families, contentType, text } = await scrape();
    expect(contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
    // Every sample line is `name{labels} value`: the grammar a scraper reads.
    for (const line of text.split('\n')) {
      if (line === '' || line.startsWith('#')) continue;
      expect(line).toMatch(/^[a-zA-Z_:][a-zA-Z0-9_:]*(\{.*\})? [-+0-9.eEInfNa]+$/);
    }
    expect(families.get('process_cpu_user_seconds_total')?.type).toBe('COUNTER');
    expect(families.get('nodejs_heap_size_used_bytes')?.type).toBe('GAUGE');
    expect(samples(families, 'quiverdb_app_info')[0]?.labels).toMatchObject({ api_version: '1.19.0' });
    expect(value(families, 'quiverdb_ready')).toBe(1);
  });

  it('metrics — requests are counted per method, route template and status; errors by kind; unknown paths share one label', async () => {
    const before = (await scrape()).families;
    const counted = (families: Families, labels: Record<string, string>) => value(families, 'quiverdb_http_requests_total', labels) ?? 0;
    const itemRoute = { method: 'GET', route: '/collections/{collection_name}' };

    for (let attempt = 0; attempt < 3; attempt += 1) expect((await server.request('GET', '/collections/missing-one')).status).toBe(404);
    expect((await server.request('GET', '/no/such/path')).status).toBe(404);
    expect((await server.request('GET', '/no/such/other/path/42')).status).toBe(404);
    expect((await server.request('GET', '/collections')).status).toBe(200);

    const after = (await scrape()).families;
    expect(counted(after, { ...itemRoute, status: '404' }) - counted(before, { ...itemRoute, status: '404' })).toBe(3);
    expect(counted(after, { method: 'GET', route: '/collections', status: '200' }) - counted(before, { method: 'GET', route: '/collections', status: '200' })).toBe(1);
    expect(counted(after, { method: 'GET', route: 'unmatched', status: '404' }) - counted(before, { method: 'GET', route: 'unmatched', status: '404' })).toBe(2);
    const errors = (families: Families) => value(families, 'quiverdb_http_errors_total', { kind: 'not_found', status: '404' }) ?? 0;
    expect(errors(after) - errors(before)).toBe(5);

    // A malformed body (the framework's error, mapped as the error handler maps it) is invalid_input.
    const invalid = (families: Families) => value(families, 'quiverdb_http_errors_total', { kind: 'invalid_input', status: '400' }) ?? 0;
    expect((await server.request('POST', '/collections/missing-one/points/search', '{"vector": [1,')).status).toBe(400);
    const refused = (await scrape()).families;
    expect(invalid(refused) - invalid(after)).toBe(1);
    // The histogram counts the same responses as the counter.
    expect(after.get('quiverdb_http_request_duration_seconds')?.type).toBe('HISTOGRAM');
    const histogramCount = value(after, 'quiverdb_http_request_duration_seconds_count', { ...itemRoute, status: '404' });
    expect(histogramCount).toBe(counted(after, { ...itemRoute, status: '404' }));
    expect(value(after, 'quiverdb_http_request_duration_seconds_bucket', { ...itemRoute, status: '404', le: '+Inf' })).toBe(histogramCount);
    expect(value(after, 'quiverdb_http_request_duration_seconds_sum', { ...itemRoute, status: '404' })).toBeGreaterThan(0);

    // Bounded labels: every route label is a registered template or `unmatched`, never a raw path.
    const templates = new Set(server.app.registeredRoutes.map((route) => route.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}')));
    for (const sample of samples(after, 'quiverdb_http_requests_total')) {
      const route = sample.labels!.route!;
      expect(route === 'unmatched' || templates.has(route), route).toBe(true);
    }
  });

  it('metrics — collections, points, vectors per name, indexed vs total, kernel memory, checkpoints and storage size follow the data', async () => {
    const dimension = 8;
    expect(
      await server.client.createCollection('measured', {
        vectors: { text: { size: dimension, distance: 'Cosine' }, image: { size: 4, distance: 'Dot' } },
        sparse_vectors: { keywords: {} },
        // 1 KB: the graph of `text` is used from 33 vectors on.
        optimizers_config: { indexing_threshold: 1 },
      }),
    ).toBe(true);
    // Slow reference: what this test wrote.
    const textVectors = vectors(300, dimension);
    const points = textVectors.map((text, id) => ({
      id,
      vector: id % 3 === 0 ? { text, image: [1, 0, 0, id] } : id % 5 === 0 ? { text, keywords: { indices: [1, 7], values: [0.5, 0.25] } } : { text },
    }));
    for (let start = 0; start < points.length; start += 100) await server.client.upsert('measured', { wait: true, points: points.slice(start, start + 100) });
    await server.app.collections.get('measured').waitIndexed();
    const expected = {
      points: points.length,
      text: points.length,
      image: points.filter((point) => 'image' in point.vector).length,
      keywords: points.filter((point) => 'keywords' in point.vector).length,
    };

    const { families } = await scrape();
    expect(value(families, 'quiverdb_collections')).toBe(server.app.collections.all().length);
    expect(value(families, 'quiverdb_collection_points', { collection: 'measured' })).toBe(expected.points);
    expect(value(families, 'quiverdb_collection_vectors', { collection: 'measured', vector: 'text', kind: 'dense' })).toBe(expected.text);
    expect(value(families, 'quiverdb_collection_vectors', { collection: 'measured', vector: 'image', kind: 'dense' })).toBe(expected.image);
    expect(value(families, 'quiverdb_collection_vectors', { collection: 'measured', vector: 'keywords', kind: 'sparse' })).toBe(expected.keywords);
    // waitIndexed: every vector is linked, none is left in the exact-scan tail.
    expect(value(families, 'quiverdb_collection_indexed_vectors', { collection: 'measured', vector: 'text' })).toBe(expected.text);
    expect(value(families, 'quiverdb_collection_graph_build_queue', { collection: 'measured', vector: 'text' })).toBe(0);
    expect(value(families, 'quiverdb_collection_kernel_memory_bytes', { collection: 'measured', type: 'resident' })).toBeGreaterThan(0);
    expect(value(families, 'quiverdb_collection_kernel_memory_bytes', { collection: 'measured', type: 'mapped' })).toBe(0);
    // At most the background checkpoint the last write scheduled (checkpoint_operations is 1).
    expect(value(families, 'quiverdb_collection_update_queue_length', { collection: 'measured' })).toBeLessThanOrEqual(1);
    expect(value(families, 'quiverdb_collection_kernel_fault', { collection: 'measured' })).toBe(0);
    expect(value(families, 'quiverdb_storage_bytes')).toBeGreaterThanOrEqual(0);

    // checkpoint_operations is 1: a checkpoint follows the writes (taken in the background).
    const collection = server.app.collections.get('measured');
    await collection.checkpoint('test');
    const checkpointed = (await scrape()).families;
    expect(value(checkpointed, 'quiverdb_collection_checkpoints_saved', { collection: 'measured' })).toBe(collection.statistics().checkpointsSaved);
    expect(value(checkpointed, 'quiverdb_collection_checkpoints_saved', { collection: 'measured' })).toBeGreaterThan(0);
    expect(value(checkpointed, 'quiverdb_collection_checkpoint_age_seconds', { collection: 'measured' })).toBeGreaterThanOrEqual(0);
    expect(value(checkpointed, 'quiverdb_collection_checkpoint_duration_seconds', { collection: 'measured' })).toBeGreaterThanOrEqual(0);

    // A deleted collection's series disappear with it.
    expect(await server.client.deleteCollection('measured')).toBe(true);
    const deleted = (await scrape()).families;
    expect(samples(deleted, 'quiverdb_collection_points', { collection: 'measured' })).toEqual([]);
    expect(samples(deleted, 'quiverdb_collection_vectors', { collection: 'measured' })).toEqual([]);
  });

  it('metrics — the official client reads /metrics as text', async () => {
    const response = await server.client.api().metrics({});
    const text = typeof response.data === 'string' ? response.data : String(response.data);
    expect(parseMetrics(text).has('quiverdb_http_requests_total')).toBe(true);
  });

  it('metrics — filtered reads are counted as kept or resolved, and the kept sets their bytes', async () => {
    expect((await server.request('PUT', '/collections/kept-answers', { vectors: { size: 2, distance: 'Dot' } })).status).toBe(200);
    const points = Array.from({ length: 100 }, (_, id) => ({ id, vector: [1, id], payload: { even: id % 2 === 0 } }));
    expect((await server.request('PUT', '/collections/kept-answers/points?wait=true', { points })).status).toBe(200);
    const reads = (families: Families, outcome: string) => value(families, 'quiverdb_filter_answer_reads', { outcome }) ?? 0;
    const before = (await scrape()).families;
    // Asked three times at one state: resolved, resolved and kept, then read from the kept set.
    const body = { vector: [1, 1], limit: 3, filter: { must: [{ key: 'even', match: { value: true } }] } };
    for (let ask = 0; ask < 3; ask += 1) expect((await server.request('POST', '/collections/kept-answers/points/search', body)).status).toBe(200);
    const after = (await scrape()).families;
    expect(reads(after, 'resolved') - reads(before, 'resolved')).toBe(2);
    expect(reads(after, 'kept') - reads(before, 'kept')).toBe(1);
    // 100 slots round up to whole 32-bit words: at least 16 bytes more are kept.
    expect(value(after, 'quiverdb_filter_answers_kept_bytes')! - value(before, 'quiverdb_filter_answers_kept_bytes')!).toBeGreaterThanOrEqual(16);
  });

  it('metrics — extra collectors (the extension point for other modules) are computed at scrape time', async () => {
    const { app, dispose } = await createTestApp();
    try {
      let calls = 0;
      app.metrics.registerExtraCollector({
        name: 'quiverdb_test_extra',
        help: 'a test family',
        labelNames: ['part'],
        collect: () => {
          calls += 1;
          return [{ labels: { part: 'a' }, value: calls }];
        },
      });
      const first = parseMetrics((await app.inject({ method: 'GET', url: '/metrics' })).body);
      const second = parseMetrics((await app.inject({ method: 'GET', url: '/metrics' })).body);
      expect(value(first, 'quiverdb_test_extra', { part: 'a' })).toBe(1);
      expect(value(second, 'quiverdb_test_extra', { part: 'a' })).toBe(2);
    } finally {
      await dispose();
    }
  });

  it('metrics — each app has its own registry: two apps in one process count their own requests', async () => {
    const one = await createTestApp();
    const two = await createTestApp();
    try {
      for (let count = 0; count < 4; count += 1) await one.app.inject({ method: 'GET', url: '/collections' });
      const route = { method: 'GET', route: '/collections', status: '200' };
      expect(value(parseMetrics((await one.app.inject({ method: 'GET', url: '/metrics' })).body), 'quiverdb_http_requests_total', route)).toBe(4);
      expect(value(parseMetrics((await two.app.inject({ method: 'GET', url: '/metrics' })).body), 'quiverdb_http_requests_total', route)).toBeUndefined();
    } finally {
      await one.dispose();
      await two.dispose();
    }
  });

  it('metrics — while the engine loads it answers (quiverdb_ready 0) instead of 412', async () => {
    const { app, dispose } = await createTestApp({ open: false });
    try {
      const response = await app.inject({ method: 'GET', url: '/metrics' });
      expect(response.statusCode).toBe(200);
      expect(value(parseMetrics(response.body), 'quiverdb_ready')).toBe(0);
      expect(value(parseMetrics(response.body), 'quiverdb_collections')).toBe(0);
      // /readyz's 503 is an answer, not an error.
      expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(503);
      const after = parseMetrics((await app.inject({ method: 'GET', url: '/metrics' })).body);
      expect(value(after, 'quiverdb_http_requests_total', { method: 'GET', route: '/readyz', status: '503' })).toBe(1);
      expect(samples(after, 'quiverdb_http_errors_total', { status: '503' })).toEqual([]);
    } finally {
      await dispose();
    }
  });
});

describe('/metrics with auth', () => {
  it('metrics — with auth on it needs the read permission, and refused credentials are counted', async () => {
    const { app, dispose } = await createAuthApp();
    try {
      const admin = await loginAdmin(app);
      const reader = await createAccessToken(app, admin, { name: 'scraper', permission: 'read' });
      expect((await app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(401);
      expect((await app.inject({ method: 'GET', url: '/metrics', headers: bearer('not-a-token') })).statusCode).toBe(401);
      const allowed = await app.inject({ method: 'GET', url: '/metrics', headers: bearer(reader.token) });
      expect(allowed.statusCode).toBe(200);
      const families = parseMetrics(allowed.body);
      expect(value(families, 'quiverdb_auth_failures_total', { reason: 'unauthorized' })).toBe(2);
      expect(value(families, 'quiverdb_http_errors_total', { kind: 'unauthorized', status: '401' })).toBe(2);
      // A read token may not create a collection: forbidden.
      expect((await app.inject({ method: 'PUT', url: '/collections/c', headers: bearer(reader.token), payload: { vectors: { size: 2, distance: 'Dot' } } })).statusCode).toBe(403);
      const later = parseMetrics((await app.inject({ method: 'GET', url: '/metrics', headers: bearer(reader.token) })).body);
      expect(value(later, 'quiverdb_auth_failures_total', { reason: 'forbidden' })).toBe(1);
    } finally {
      await dispose();
    }
  });

  it('metrics — service.metrics_public opens /metrics (only) to scrapers without a credential', async () => {
    const { app, dispose } = await createAuthApp({ overrides: { service: { metrics_public: true } } });
    try {
      const response = await app.inject({ method: 'GET', url: '/metrics' });
      expect(response.statusCode).toBe(200);
      expect(parseMetrics(response.body).has('quiverdb_collections')).toBe(true);
      expect((await app.inject({ method: 'GET', url: '/telemetry' })).statusCode).toBe(401);
      expect((await app.inject({ method: 'GET', url: '/collections' })).statusCode).toBe(401);
    } finally {
      await dispose();
    }
  });
});
