// The distance matrix over HTTP and through the official client (docs/api.md §3): the sample is
// checked against the candidate points, and every row against a brute force within the sample.
import { afterAll, describe, expect, it } from 'vitest';
import { parseJson } from '../src/json/parse.js';
import { bearer, createAccessToken, createAuthApp, loginAdmin } from './support/auth.js';
import { createTestApp } from './support/app.js';
import { expectSameHits, largerIsBetter, randomVectors, referenceScore, type DistanceName, type ReferenceHit } from './support/search-data.js';
import { serverForFile } from './support/server.js';

type Id = number | bigint | string;

interface Generated {
  id: Id;
  group: number;
  vectors: Record<string, number[]>;
}

const vectorParams: Record<string, { size: number; distance: DistanceName }> = {
  image: { size: 4, distance: 'Euclid' },
  text: { size: 3, distance: 'Cosine' },
  power: { size: 3, distance: 'Dot' },
};

/** 48 points: small ids, ids above 2^53 and UUIDs; every fifth point has no `text` vector. */
function generate(): Generated[] {
  const ids: Id[] = [
    ...Array.from({ length: 36 }, (_, position) => position * 3 + 1),
    ...Array.from({ length: 6 }, (_, position) => (1n << 60n) + BigInt(position * 7)),
    ...Array.from({ length: 6 }, (_, position) => `${position}${position}000000-0000-4000-8000-00000000000${position}`),
  ];
  const image = randomVectors(11, ids.length, 4);
  const text = randomVectors(12, ids.length, 3);
  const power = randomVectors(13, ids.length, 3);
  return ids.map((id, position) => {
    const vectors: Record<string, number[]> = { image: image[position]!, power: power[position]! };
    if (position % 5 !== 4) vectors.text = text[position]!;
    return { id, group: position % 3, vectors };
  });
}

const points = generate();

function idKey(id: Id): string {
  return String(id);
}

function compareIds(left: Id, right: Id): number {
  const leftUuid = typeof left === 'string';
  const rightUuid = typeof right === 'string';
  if (leftUuid !== rightUuid) return leftUuid ? 1 : -1;
  if (leftUuid) return left < right ? -1 : left > right ? 1 : 0;
  return BigInt(left) < BigInt(right) ? -1 : BigInt(left) > BigInt(right) ? 1 : 0;
}

function upsertBody(): string {
  const written = points.map((point) => `{"id": ${typeof point.id === 'string' ? `"${point.id}"` : point.id.toString()}, "vector": ${JSON.stringify(point.vectors)}, "payload": {"group": ${point.group}}}`);
  return `{"points": [${written.join(', ')}]}`;
}

const server = serverForFile({
  setUp: async (started) => {
    await started.client.createCollection('matrix', { vectors: vectorParams });
    const response = await started.request('PUT', '/collections/matrix/points?wait=true', upsertBody());
    if (response.status !== 200) throw new Error(`upsert failed: ${response.text}`);
  },
});

interface RawMatrixRequest {
  sample?: number;
  limit?: number;
  filter?: unknown;
  using?: string;
}

interface Pair {
  a: Id;
  b: Id;
  score: number;
}

/** Either answer, parsed losslessly: pairs carries `pairs`, offsets the other four. */
interface MatrixAnswer {
  pairs: Pair[];
  offsets_row: number[];
  offsets_col: number[];
  scores: number[];
  ids: Id[];
}

async function matrix(format: 'pairs' | 'offsets', body: unknown, collection = 'matrix') {
  const response = await server.request('POST', `/collections/${collection}/points/search/matrix/${format}`, body);
  return { ...response, exact: (response.status === 200 ? (parseJson(response.text) as { result: MatrixAnswer }).result : undefined) as MatrixAnswer };
}

/** The points a request may sample: the filter's (here only by group) holding the vector. */
function candidates(using: string, group?: number): Generated[] {
  return points.filter((point) => point.vectors[using] !== undefined && (group === undefined || point.group === group));
}

/** Brute force within the sample: each point's `limit` nearest others, best first. */
function referenceRows(sample: Generated[], using: string, limit: number): ReferenceHit[][] {
  const distance = vectorParams[using]!.distance;
  const sign = largerIsBetter(distance) ? -1 : 1;
  return sample.map((point) =>
    sample
      .filter((other) => other !== point)
      .map((other) => ({ id: idKey(other.id) as unknown as number, score: referenceScore(distance, point.vectors[using]!, other.vectors[using]!) }))
      .sort((left, right) => sign * (left.score - right.score))
      .slice(0, limit),
  );
}

/** Checks a pairs answer: sample drawn from the candidates, in id order, rows as the brute force. */
function checkPairs(result: { pairs: Pair[] }, pool: Generated[], sampleSize: number, using: string, limit: number): Id[] {
  const byKey = new Map(pool.map((point) => [idKey(point.id), point]));
  const sampleIds: Id[] = [];
  for (const pair of result.pairs) if (sampleIds.length === 0 || idKey(sampleIds[sampleIds.length - 1]!) !== idKey(pair.a)) sampleIds.push(pair.a);
  expect(sampleIds.length).toBe(Math.min(sampleSize, pool.length));
  expect([...sampleIds].sort(compareIds)).toEqual(sampleIds);
  const sample = sampleIds.map((id) => byKey.get(idKey(id))!);
  expect(sample.every((point) => point !== undefined)).toBe(true);
  const expected = referenceRows(sample, using, limit);
  sample.forEach((point, row) => {
    const actual = result.pairs.filter((pair) => idKey(pair.a) === idKey(point.id)).map((pair) => ({ id: idKey(pair.b), score: pair.score }));
    expectSameHits(actual, expected[row]!);
  });
  return sampleIds;
}

describe('search matrix — pairs', () => {
  it('matrix pairs — a sample as large as the candidates takes them all, each row the brute-force neighbours', async () => {
    for (const using of ['image', 'text', 'power']) {
      const response = await matrix('pairs', { sample: 100, limit: 4, using });
      expect(response.status, using).toBe(200);
      const sampleIds = checkPairs(response.exact, candidates(using), 100, using, 4);
      expect(sampleIds.map(idKey)).toEqual(candidates(using).map((point) => point.id).sort(compareIds).map(idKey));
    }
  });

  it('matrix pairs — a smaller sample is drawn from the filtered candidates, the same on every call', async () => {
    const body = { sample: 7, limit: 2, using: 'image', filter: { must: [{ key: 'group', match: { value: 1 } }] } };
    const first = await matrix('pairs', body);
    const second = await matrix('pairs', body);
    expect(second.text).toBe(first.text.replace(/"time":[^,]+/, second.text.match(/"time":[^,]+/)![0]));
    checkPairs(first.exact, candidates('image', 1), 7, 'image', 2);
  });

  it('matrix pairs — defaults are a sample of 10 and 3 neighbours', async () => {
    const response = await matrix('pairs', { using: 'image' });
    expect(response.exact.pairs).toHaveLength(30);
    checkPairs(response.exact, candidates('image'), 10, 'image', 3);
  });

  it('matrix pairs — ids above 2^53 and UUIDs come out exact', async () => {
    // Written as JSON text so the big ids keep their exact literals.
    const literals = points.slice(36).map((point) => (typeof point.id === 'string' ? `"${point.id}"` : point.id.toString()));
    const text = `{"sample": 20, "limit": 1, "using": "image", "filter": {"must": [{"has_id": [${literals.join(', ')}]}]}}`;
    const response = await matrix('pairs', text);
    expect(response.status).toBe(200);
    expect(response.text).toContain(`"a":${(1n << 60n).toString()}`);
    expect(response.text).toContain(`"a":"00000000-0000-4000-8000-000000000000"`);
    const sampleIds = checkPairs(response.exact, points.slice(36), 20, 'image', 1);
    expect(sampleIds.map(idKey)).toEqual(points.slice(36).map((point) => idKey(point.id)));
  });

  it('matrix pairs — fewer than two candidates give an empty matrix', async () => {
    const filter = { must: [{ has_id: [1] }] };
    expect((await matrix('pairs', { using: 'image', filter })).exact).toEqual({ pairs: [] });
    expect((await matrix('offsets', { using: 'image', filter })).exact).toEqual({ offsets_row: [], offsets_col: [], scores: [], ids: [] });
  });
});

describe('search matrix — offsets', () => {
  it('matrix offsets — the same matrix as pairs, written as row and column offsets into ids', async () => {
    const body = { sample: 12, limit: 3, using: 'text' };
    const pairs = (await matrix('pairs', body)).exact.pairs;
    const offsets = (await matrix('offsets', body)).exact;
    expect(offsets.ids).toHaveLength(12);
    expect(offsets.offsets_row).toHaveLength(pairs.length);
    const rebuilt = offsets.offsets_row.map((row, position) => ({ a: offsets.ids[row], b: offsets.ids[offsets.offsets_col[position]!], score: offsets.scores[position] }));
    expect(rebuilt).toEqual(pairs);
  });
});

describe('search matrix — the official client', () => {
  it('matrix — client.searchMatrixPairs and searchMatrixOffsets give what raw requests give', async () => {
    await server.client.createCollection('plain', { vectors: { size: 3, distance: 'Cosine' } });
    const vectors = randomVectors(21, 30, 3);
    await server.client.upsert('plain', { wait: true, points: vectors.map((vector, id) => ({ id, vector, payload: { even: id % 2 === 0 } })) });
    const filter = { must: [{ key: 'even', match: { value: true } }] };
    const pairs = await server.client.searchMatrixPairs('plain', { sample: 8, limit: 2, filter });
    expect(pairs).toEqual((await matrix('pairs', { sample: 8, limit: 2, filter }, 'plain')).body.result);
    const offsets = await server.client.searchMatrixOffsets('plain', { sample: 8, limit: 2, filter });
    expect(offsets).toEqual((await matrix('offsets', { sample: 8, limit: 2, filter }, 'plain')).body.result);
    const pool = vectors.map((vector, id) => ({ id, group: 0, vectors: { text: vector } })).filter((point) => point.id % 2 === 0);
    checkPairs(pairs as { pairs: Pair[] }, pool, 8, 'text', 2);
  });
});

describe('search matrix — refusals', () => {
  it('matrix — bad bodies are 400s naming the field', async () => {
    const cases: [RawMatrixRequest | Record<string, unknown>, string][] = [
      [{ sample: 1 }, 'sample'],
      [{ sample: 10_001, using: 'image' }, 'sample'],
      [{ limit: 0, using: 'image' }, 'limit'],
      [{ limit: 10_001, using: 'image' }, 'limit'],
      [{ using: 'nope' }, 'using'],
      [{ using: 5 }, 'using'],
      [{ using: 'image', filter: { must: [{ key: 'group', range: { gt: 'x' } }] } }, 'filter'],
      [{ using: 'image', filter: { must: [], samples: 3 } }, 'filter.samples'],
    ];
    for (const format of ['pairs', 'offsets'] as const) {
      for (const [body, field] of cases) {
        const response = await matrix(format, body);
        expect(response.status, `${format} ${JSON.stringify(body)}`).toBe(400);
        expect(response.body.status.error, `${format} ${JSON.stringify(body)}`).toContain(field);
      }
    }
  });

  it('matrix — a missing collection is a 404', async () => {
    for (const format of ['pairs', 'offsets'] as const) {
      const response = await matrix(format, {}, 'nowhere');
      expect(response.status).toBe(404);
      expect(response.body.status.error).toBe('Collection not found: nowhere');
    }
  });
});

describe('search matrix — route settings', () => {
  const disposers: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const dispose of disposers) await dispose();
  });

  it('matrix — 412 before the engine is ready', async () => {
    const context = await createTestApp({ open: false });
    disposers.push(() => context.dispose());
    for (const format of ['pairs', 'offsets']) {
      const response = await context.app.inject({ method: 'POST', url: `/collections/any/points/search/matrix/${format}`, payload: {} });
      expect(response.statusCode).toBe(412);
    }
  });

  it('matrix — needs a credential with read permission when auth is on', async () => {
    const context = await createAuthApp();
    disposers.push(() => context.dispose());
    const jwt = await loginAdmin(context.app);
    await context.app.inject({ method: 'PUT', url: '/collections/c', headers: bearer(jwt), payload: { vectors: { size: 1, distance: 'Dot' } } });
    const reader = await createAccessToken(context.app, jwt, { name: 'reader', permission: 'read' });
    for (const format of ['pairs', 'offsets']) {
      const url = `/collections/c/points/search/matrix/${format}`;
      expect((await context.app.inject({ method: 'POST', url, payload: {} })).statusCode).toBe(401);
      const read = await context.app.inject({ method: 'POST', url, headers: bearer(reader.token), payload: {} });
      expect(read.statusCode).toBe(200);
    }
  });
});
