// GET /telemetry (docs/api.md §13.3): Qdrant's TelemetryData shape at each details level, the
// request statistics against the requests this test made, anonymize hiding every collection
// name, the read permission, and 400s naming a bad parameter. Raw HTTP and the official client.
import { describe, expect, it } from 'vitest';
import { anonymizeName } from '../src/monitoring/anonymize.js';
import { createAccessToken, createAuthApp, bearer, loginAdmin } from './support/auth.js';
import { serverForFile } from './support/server.js';

const secretNames = ['customers-eu', 'medical-records'];
const server = serverForFile({
  setUp: async (started) => {
    await started.client.createCollection(secretNames[0]!, { vectors: { size: 4, distance: 'Cosine' }, metadata: { owner: 'finance-team' } });
    await started.client.createCollection(secretNames[1]!, { vectors: { body: { size: 2, distance: 'Dot' } } });
    await started.client.upsert(secretNames[0]!, {
      wait: true,
      points: Array.from({ length: 25 }, (_, id) => ({ id, vector: [1, id, 0, 1] })),
    });
    await started.client.upsert(secretNames[1]!, { wait: true, points: [{ id: 1, vector: { body: [1, 2] } }] });
  },
});

async function telemetry(query = ''): Promise<any> {
  const response = await server.request('GET', `/telemetry${query}`);
  expect(response.status).toBe(200);
  expect(response.body.status).toBe('ok');
  return response.body.result;
}

describe('/telemetry', () => {
  it('telemetry — details_level 0: the app, the number of collections and the REST statistics, no collection entries', async () => {
    const result = await telemetry();
    expect(typeof result.id).toBe('string');
    expect(result.app).toMatchObject({ name: 'quiverdb', version: expect.any(String), jwt_rbac: false });
    expect(Number.isNaN(Date.parse(result.app.startup))).toBe(false);
    expect(result.app.system).toBeUndefined();
    expect(result.collections).toEqual({ number_of_collections: 2 });
    expect(result.requests.rest.responses['PUT /collections/{collection_name}']['200']).toMatchObject({ count: 2 });
    expect(result.requests.grpc).toEqual({ responses: {} });
  });

  it('telemetry — request statistics count each response once, with min <= avg <= max and the last time', async () => {
    const before = (await telemetry()).requests.rest.responses['GET /collections/{collection_name}/exists']?.['200']?.count ?? 0;
    for (let count = 0; count < 3; count += 1) await server.request('GET', `/collections/${secretNames[0]}/exists`);
    const figures = (await telemetry()).requests.rest.responses['GET /collections/{collection_name}/exists']['200'];
    expect(figures.count - before).toBe(3);
    expect(figures.min_duration_micros).toBeLessThanOrEqual(figures.avg_duration_micros);
    expect(figures.avg_duration_micros).toBeLessThanOrEqual(figures.max_duration_micros);
    expect(figures.total_duration_micros).toBeCloseTo(figures.avg_duration_micros * figures.count, 0);
    expect(Number.isNaN(Date.parse(figures.last_responded))).toBe(false);
  });

  it('telemetry — details_level 1: the system and one aggregate per collection (vectors, optimizers_status, params)', async () => {
    const result = await telemetry('?details_level=1');
    expect(result.app.system).toMatchObject({ cores: expect.any(Number), is_docker: expect.any(Boolean), cpu_endian: expect.stringMatching(/little|big/) });
    // Sorted by name: customers-eu (25 vectors), medical-records (1).
    expect(result.collections.collections).toEqual([
      { vectors: 25, optimizers_status: 'ok', params: expect.objectContaining({ vectors: { size: 4, distance: 'Cosine' } }) },
      { vectors: 1, optimizers_status: 'ok', params: expect.objectContaining({ vectors: { body: expect.objectContaining({ size: 2, distance: 'Dot' }) } }) },
    ]);
  });

  it('telemetry — details_level 2: each collection by name with its config and counts, as GET C reports them', async () => {
    const result = await telemetry('?details_level=2');
    const entries = result.collections.collections;
    expect(entries.map((entry: { id: string }) => entry.id)).toEqual(secretNames);
    for (const entry of entries) {
      const info = (await server.request('GET', `/collections/${entry.id}`)).body.result;
      expect(entry.config).toEqual(info.config);
      expect(entry.points_count).toBe(info.points_count);
      expect(entry.indexed_vectors_count).toBe(info.indexed_vectors_count);
    }
    expect(entries[0].vectors_count).toBe(25);
    expect(entries[0].config.metadata).toEqual({ owner: 'finance-team' });
  });

  it('telemetry — anonymize hides every collection name and the metadata; ids are a stable hash', async () => {
    const response = await server.request('GET', '/telemetry?details_level=3&anonymize=true');
    expect(response.status).toBe(200);
    for (const name of [...secretNames, 'finance-team']) expect(response.text).not.toContain(name);
    const ids = response.body.result.collections.collections.map((entry: { id: string }) => entry.id);
    expect(new Set(ids)).toEqual(new Set(secretNames.map(anonymizeName)));
    const again = (await telemetry('?details_level=3&anonymize=true')).collections.collections.map((entry: { id: string }) => entry.id);
    expect(again).toEqual(ids);
    expect(ids.every((id: string) => /^[0-9]+$/.test(id))).toBe(true);
  });

  it('telemetry — a bad parameter is a 400 naming it', async () => {
    for (const [query, field] of [
      ['details_level=-1', 'details_level'],
      ['details_level=many', 'details_level'],
      ['anonymize=perhaps', 'anonymize'],
    ]) {
      const response = await server.request('GET', `/telemetry?${query}`);
      expect(response.status).toBe(400);
      expect(response.body.status.error).toContain(field);
    }
  });

  it('telemetry — the official client reads it', async () => {
    const response = await server.client.api().telemetry({ details_level: 2, anonymize: false });
    const result = response.data.result!;
    expect(result.collections.number_of_collections).toBe(2);
    expect((result.collections.collections ?? []).map((entry) => (entry as { id: string }).id)).toEqual(secretNames);
    expect(result.app).toMatchObject({ name: 'quiverdb' });
  });
});

describe('/telemetry with auth', () => {
  it('telemetry — needs the read permission, as in Qdrant', async () => {
    const { app, dispose } = await createAuthApp();
    try {
      const admin = await loginAdmin(app);
      const reader = await createAccessToken(app, admin, { name: 'dashboard', permission: 'read' });
      expect((await app.inject({ method: 'GET', url: '/telemetry' })).statusCode).toBe(401);
      const allowed = await app.inject({ method: 'GET', url: '/telemetry', headers: bearer(reader.token) });
      expect(allowed.statusCode).toBe(200);
      expect(allowed.json().result.app.jwt_rbac).toBe(true);
    } finally {
      await dispose();
    }
  });
});
