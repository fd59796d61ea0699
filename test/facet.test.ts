// Facet counts over HTTP and through the official client (docs/api.md §3), checked against a
// slow reference that walks every point of the generated data.
import { afterAll, describe, expect, it } from 'vitest';
import { bearer, createAccessToken, createAuthApp, loginAdmin } from './support/auth.js';
import { createTestApp } from './support/app.js';
import { mulberry32 } from './support/seeded-random.js';
import { serverForFile } from './support/server.js';

const colours = ['red', 'green', 'blue', 'amber', 'Zinc', 'élan', 'ezra'];
const uuids = ['5c56c793-69f3-4fbf-87e6-c4bf54c28c26', '936da01f-9abd-4d9d-80c7-02af85c822a8', 'f47ac10b-58cc-4372-a567-0e02b2c3d479'];

interface Generated {
  id: number;
  payload: Record<string, unknown>;
}

/** 600 points whose fields take every shape a facet must handle: arrays with repeats, missing
 * fields, values of the wrong kind, integers in float form, UUIDs in other spellings. */
function generate(): Generated[] {
  const next = mulberry32(1234);
  const pick = <Value>(list: readonly Value[]): Value => list[Math.floor(next() * list.length)]!;
  return Array.from({ length: 600 }, (_, id) => {
    const payload: Record<string, unknown> = { group: id % 4 };
    const shape = next();
    if (shape < 0.6) payload.colour = pick(colours);
    else if (shape < 0.85) payload.colour = [pick(colours), pick(colours), pick(colours)];
    else if (shape < 0.93) payload.colour = 7; // not a keyword: never counted
    if (next() < 0.8) payload.size = next() < 0.2 ? [Math.floor(next() * 5), Math.floor(next() * 5)] : Math.floor(next() * 12);
    if (id % 50 === 0) payload.size = 2.5; // not an integer: never counted
    if (next() < 0.7) payload.flag = next() < 0.5;
    if (next() < 0.5) {
      const uuid = pick(uuids);
      payload.owner = id % 3 === 0 ? uuid.toUpperCase() : id % 3 === 1 ? uuid.replaceAll('-', '') : uuid;
    }
    payload.items = [{ kind: pick(['a', 'b']) }, { kind: pick(['a', 'c']) }];
    return { id, payload };
  });
}

const points = generate();

/** The reference: every point walked, each distinct value counted once per point. */
function referenceCounts(field: string, canonical: (value: unknown) => string | number | boolean | undefined, keep: (point: Generated) => boolean = () => true): { value: unknown; count: number }[] {
  const counts = new Map<string | number | boolean, number>();
  for (const point of points) {
    if (!keep(point)) continue;
    const raw = field === 'items[].kind' ? (point.payload.items as { kind: string }[]).map((item) => item.kind) : point.payload[field];
    const values = new Set((Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).map(canonical).filter((value) => value !== undefined));
    for (const value of values) counts.set(value!, (counts.get(value!) ?? 0) + 1);
  }
  const order = (left: unknown, right: unknown): number => {
    if (typeof left === 'string' && typeof right === 'string') return Buffer.compare(Buffer.from(left), Buffer.from(right));
    return Number(left) - Number(right);
  };
  return [...counts].map(([value, count]) => ({ value, count })).sort((left, right) => right.count - left.count || order(left.value, right.value));
}

const asKeyword = (value: unknown) => (typeof value === 'string' ? value : undefined);
const asInteger = (value: unknown) => (typeof value === 'number' && Number.isInteger(value) ? value : undefined);
const asBool = (value: unknown) => (typeof value === 'boolean' ? value : undefined);
const asUuid = (value: unknown) => {
  if (typeof value !== 'string') return undefined;
  const hex = value.toLowerCase().replaceAll('-', '');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
};

const server = serverForFile({
  setUp: async (started) => {
    await started.client.createCollection('shop', { vectors: { size: 2, distance: 'Dot' } });
    await started.client.upsert('shop', { wait: true, points: points.map((point) => ({ id: point.id, vector: [1, point.id], payload: point.payload })) });
    for (const [field, schema] of [
      ['colour', 'keyword'],
      ['size', 'integer'],
      ['flag', 'bool'],
      ['owner', 'uuid'],
      ['items[].kind', 'keyword'],
      ['group', 'float'],
    ] as const) {
      await started.client.createPayloadIndex('shop', { field_name: field, field_schema: schema, wait: true });
    }
  },
});

async function facet(body: unknown, collection = 'shop') {
  return server.request('POST', `/collections/${collection}/facet`, body);
}

describe('facet — counts', () => {
  it('facet — keyword counts equal the reference, count descending then value ascending', async () => {
    const response = await facet({ key: 'colour', limit: 100 });
    expect(response.status).toBe(200);
    expect(response.body.result.hits).toEqual(referenceCounts('colour', asKeyword));
  });

  it('facet — limit defaults to 10 and keeps the first hits', async () => {
    const expected = referenceCounts('size', asInteger);
    expect(expected.length).toBeGreaterThan(10);
    expect((await facet({ key: 'size' })).body.result.hits).toEqual(expected.slice(0, 10));
    expect((await facet({ key: 'size', limit: 3 })).body.result.hits).toEqual(expected.slice(0, 3));
  });

  it('facet — a filter restricts the points counted', async () => {
    const filter = { must: [{ key: 'group', match: { value: 1 } }], must_not: [{ key: 'flag', match: { value: true } }] };
    const keep = (point: Generated) => point.payload.group === 1 && point.payload.flag !== true;
    const response = await facet({ key: 'colour', limit: 100, filter });
    expect(response.body.result.hits).toEqual(referenceCounts('colour', asKeyword, keep));
  });

  it('facet — a point holding a value several times counts once for it', async () => {
    const repeated = points.find((point) => Array.isArray(point.payload.colour) && new Set(point.payload.colour as string[]).size < 3)!;
    const filter = { must: [{ has_id: [repeated.id] }] };
    const distinct = [...new Set(repeated.payload.colour as string[])].sort();
    const hits = (await facet({ key: 'colour', filter })).body.result.hits;
    expect(hits.map((hit: { value: string }) => hit.value).sort()).toEqual(distinct);
    expect(hits.every((hit: { count: number }) => hit.count === 1)).toBe(true);
  });

  it('facet — integer, bool, uuid and array paths count their own kind of value only', async () => {
    expect((await facet({ key: 'size', limit: 100 })).body.result.hits).toEqual(referenceCounts('size', asInteger));
    expect((await facet({ key: 'flag' })).body.result.hits).toEqual(referenceCounts('flag', asBool));
    expect((await facet({ key: 'owner' })).body.result.hits).toEqual(referenceCounts('owner', asUuid));
    expect((await facet({ key: 'items[].kind' })).body.result.hits).toEqual(referenceCounts('items[].kind', asKeyword));
  });

  it('facet — exact and approximate give the same counts', async () => {
    const exact = await facet({ key: 'colour', exact: true, limit: 100 });
    const approximate = await facet({ key: 'colour', exact: false, limit: 100 });
    expect(approximate.body.result).toEqual(exact.body.result);
  });

  it('facet — a filter no point passes gives no hits', async () => {
    const response = await facet({ key: 'colour', filter: { must: [{ key: 'group', match: { value: 99 } }] } });
    expect(response.body.result).toEqual({ hits: [] });
  });

  it('facet — integers above 2^53 come back exact', async () => {
    await server.client.createCollection('big', { vectors: { size: 1, distance: 'Dot' } });
    const body = '{"points": [{"id": 1, "vector": [1], "payload": {"n": 9007199254740993}}, {"id": 2, "vector": [1], "payload": {"n": [9007199254740993, 5]}}]}';
    expect((await server.request('PUT', '/collections/big/points?wait=true', body)).status).toBe(200);
    await server.client.createPayloadIndex('big', { field_name: 'n', field_schema: 'integer', wait: true });
    const response = await facet({ key: 'n' }, 'big');
    expect(response.text).toContain('"hits":[{"value":9007199254740993,"count":2},{"value":5,"count":1}]');
  });

  it('facet — follows payload changes', async () => {
    await server.client.createCollection('moving', { vectors: { size: 1, distance: 'Dot' } });
    await server.client.createPayloadIndex('moving', { field_name: 'k', field_schema: 'keyword', wait: true });
    await server.client.upsert('moving', { wait: true, points: [1, 2, 3].map((id) => ({ id, vector: [1], payload: { k: 'x' } })) });
    await server.client.setPayload('moving', { wait: true, points: [2], payload: { k: 'y' } });
    await server.client.delete('moving', { wait: true, points: [3] });
    expect((await facet({ key: 'k' }, 'moving')).body.result.hits).toEqual([
      { value: 'x', count: 1 },
      { value: 'y', count: 1 },
    ]);
  });
});

describe('facet — the official client', () => {
  it('facet — client.facet gives what the raw request gives', async () => {
    const filter = { must: [{ key: 'size', range: { gte: 3 } }] };
    const result = await server.client.facet('shop', { key: 'colour', limit: 5, filter, exact: true });
    const raw = await facet({ key: 'colour', limit: 5, filter, exact: true });
    expect(result).toEqual(raw.body.result);
    const keep = (point: Generated) => [point.payload.size].flat().some((size) => typeof size === 'number' && size >= 3);
    expect(result.hits).toEqual(referenceCounts('colour', asKeyword, keep).slice(0, 5));
  });
});

describe('facet — refusals', () => {
  it('facet — a field without a suitable index is a 400 naming it', async () => {
    for (const key of ['unindexed', 'group']) {
      const response = await facet({ key });
      expect(response.status, key).toBe(400);
      expect(response.body.status.error).toContain(`No appropriate index for faceting: \`${key}\``);
    }
  });

  it('facet — an integer index without lookup cannot facet', async () => {
    await server.client.createCollection('ranges', { vectors: { size: 1, distance: 'Dot' } });
    await server.request('PUT', '/collections/ranges/index?wait=true', { field_name: 'n', field_schema: { type: 'integer', lookup: false, range: true } });
    const response = await facet({ key: 'n' }, 'ranges');
    expect(response.status).toBe(400);
    expect(response.body.status.error).toMatch(/^key: No appropriate index for faceting/);
  });

  it('facet — bad bodies are 400s naming the field', async () => {
    const cases: [unknown, string][] = [
      [{}, 'key'],
      [{ key: 5 }, 'key'],
      [{ key: 'colour', limit: 0 }, 'limit'],
      [{ key: 'colour', limit: 10_001 }, 'limit'],
      [{ key: 'colour', exact: 'yes' }, 'exact'],
      [{ key: 'colour', filter: { must: [], colour: 'red' } }, 'filter.colour'],
      [{ key: 'colour', filter: { must: [{ key: 'size', range: { gt: 'x' } }] } }, 'filter'],
      [{ key: 'a..b' }, 'key'],
    ];
    for (const [body, field] of cases) {
      const response = await facet(body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.status.error, JSON.stringify(body)).toContain(field);
    }
  });

  it('facet — a missing collection is a 404', async () => {
    const response = await facet({ key: 'colour' }, 'nowhere');
    expect(response.status).toBe(404);
    expect(response.body.status.error).toBe('Collection not found: nowhere');
  });
});

describe('facet — route settings', () => {
  const disposers: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const dispose of disposers) await dispose();
  });

  it('facet — 412 before the engine is ready', async () => {
    const context = await createTestApp({ open: false });
    disposers.push(() => context.dispose());
    const response = await context.app.inject({ method: 'POST', url: '/collections/any/facet', payload: { key: 'k' } });
    expect(response.statusCode).toBe(412);
    expect(response.json().status.error).toBe('Engine not initialized');
  });

  it('facet — needs a credential with read permission when auth is on', async () => {
    const context = await createAuthApp();
    disposers.push(() => context.dispose());
    const jwt = await loginAdmin(context.app);
    await context.app.inject({ method: 'PUT', url: '/collections/c', headers: bearer(jwt), payload: { vectors: { size: 1, distance: 'Dot' } } });
    await context.app.inject({ method: 'PUT', url: '/collections/c/index?wait=true', headers: bearer(jwt), payload: { field_name: 'k', field_schema: 'keyword' } });
    const reader = await createAccessToken(context.app, jwt, { name: 'reader', permission: 'read' });
    const anonymous = await context.app.inject({ method: 'POST', url: '/collections/c/facet', payload: { key: 'k' } });
    expect(anonymous.statusCode).toBe(401);
    const read = await context.app.inject({ method: 'POST', url: '/collections/c/facet', headers: bearer(reader.token), payload: { key: 'k' } });
    expect(read.statusCode).toBe(200);
    expect(read.json().result).toEqual({ hits: [] });
  });
});
