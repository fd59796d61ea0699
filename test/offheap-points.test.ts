// Points, versions and payloads off the JS heap (docs/api.md §19, docs/architecture.md §16): a
// random sequence of writes (upserts with integer, above-2^53 and UUID ids, every payload
// operation, deletes, re-upserts into reused slots) is applied to two collections, one with
// `on_disk_payload: true` and one with `false`, and to a plain Map written here; both
// collections must answer exactly as the Map does, before and after a clean restart and a
// SIGKILL. Payload-index filters must not decode a single payload.
import { parse as parseLossless, stringify as stringifyLossless } from 'lossless-json';
import { afterAll, describe, expect, it } from 'vitest';
import { payloadDecodeCount } from '../src/engine/point-table.js';
import { startChildServer, waitUntilReady, type ChildServer } from './support/child-server.js';
import { mulberry32 } from './support/seeded-random.js';
import { dataDirectoriesForFile, startServer, type TestServer } from './support/server.js';

const newDirectory = dataDirectoriesForFile();
const collections = ['payload_in_memory', 'payload_on_disk'] as const;

type Id = number | bigint | string;
interface ReferencePoint {
  id: Id;
  payload: Record<string, unknown>;
  vector: number[];
  version: number;
}

/** Unsafe integers stay exact: a bigint both ways. */
function parseNumber(text: string): number | bigint {
  const value = Number(text);
  return /^-?\d+$/.test(text) && !Number.isSafeInteger(value) ? BigInt(text) : value;
}

async function send(url: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : stringifyLossless(body),
  });
  return { status: response.status, body: parseLossless(await response.text(), null, parseNumber) };
}

function keyOf(id: Id): string {
  return String(id);
}

/** The id order of docs/api.md §2: integers ascending, then UUIDs. */
function compareIds(left: Id, right: Id): number {
  if (typeof left === 'string' || typeof right === 'string') {
    if (typeof left !== 'string') return -1;
    if (typeof right !== 'string') return 1;
    return left < right ? -1 : left > right ? 1 : 0;
  }
  const [a, b] = [BigInt(left), BigInt(right)];
  return a < b ? -1 : a > b ? 1 : 0;
}

const idPool: Id[] = [
  ...Array.from({ length: 24 }, (_, index) => index),
  2n ** 53n,
  2n ** 60n + 7n,
  2n ** 64n - 1n,
  '550e8400-e29b-41d4-a716-446655440000',
  'a0000000-0000-4000-8000-00000000000b',
  'ffffffff-ffff-4fff-bfff-ffffffffffff',
];

/** The slow reference: a Map of plain points, each write applied the obvious way. */
class Reference {
  readonly points = new Map<string, ReferencePoint>();

  sorted(): ReferencePoint[] {
    return [...this.points.values()].sort((left, right) => compareIds(left.id, right.id));
  }
}

/** One random write, applied to every collection and to the reference (waits for each). */
async function randomWrite(url: string, reference: Reference, random: () => number, step: number): Promise<void> {
  const pick = (): Id => idPool[Math.floor(random() * idPool.length)]!;
  const existing = [...reference.points.values()];
  const someExisting = (): Id[] => [...new Set(Array.from({ length: 1 + Math.floor(random() * 3) }, () => existing[Math.floor(random() * existing.length)]!.id))];
  const draw = random();
  let request: { method: string; path: string; body: unknown };
  let apply: (version: number) => void;
  if (draw < 0.4 || existing.length === 0) {
    const points = [...new Map(Array.from({ length: 1 + Math.floor(random() * 6) }, () => {
      const id = pick();
      const payload = {
        step,
        tag: ['red', 'green', 'blue'][step % 3],
        big: 2n ** 63n + BigInt(step),
        nested: { when: `2024-0${1 + (step % 9)}-1${step % 10}T10:00:00Z`, list: [step, 'x', { deep: step % 2 === 0 }] },
        'dotted.key': 'as is',
        text: 'ü€'.repeat(step % 5),
      };
      return [keyOf(id), { id, vector: [step % 7, 1, 0 - (step % 3), 0.5] as number[], payload }] as const;
    })).values()];
    request = { method: 'PUT', path: 'points?wait=true', body: { points } };
    apply = (version) => {
      for (const point of points) reference.points.set(keyOf(point.id), { id: point.id, payload: structuredClone(point.payload), vector: point.vector, version });
    };
  } else if (draw < 0.55) {
    const ids = someExisting();
    request = { method: 'POST', path: 'points/payload?wait=true', body: { points: ids, payload: { extra: step, tag: 'set' } } };
    apply = (version) => {
      for (const id of ids) {
        const point = reference.points.get(keyOf(id))!;
        point.payload = { ...point.payload, extra: step, tag: 'set' };
        point.version = version;
      }
    };
  } else if (draw < 0.65) {
    const ids = someExisting();
    request = { method: 'PUT', path: 'points/payload?wait=true', body: { points: ids, payload: { only: step } } };
    apply = (version) => {
      for (const id of ids) Object.assign(reference.points.get(keyOf(id))!, { payload: { only: step }, version });
    };
  } else if (draw < 0.75) {
    const ids = someExisting();
    request = { method: 'POST', path: 'points/payload/delete?wait=true', body: { points: ids, keys: ['tag', 'big'] } };
    apply = (version) => {
      for (const id of ids) {
        const point = reference.points.get(keyOf(id))!;
        const { tag: _tag, big: _big, ...rest } = point.payload;
        point.payload = rest;
        point.version = version;
      }
    };
  } else if (draw < 0.82) {
    const ids = someExisting();
    request = { method: 'POST', path: 'points/payload/clear?wait=true', body: { points: ids } };
    apply = (version) => {
      for (const id of ids) Object.assign(reference.points.get(keyOf(id))!, { payload: {}, version });
    };
  } else {
    const ids = someExisting();
    request = { method: 'POST', path: 'points/delete?wait=true', body: { points: ids } };
    apply = () => {
      for (const id of ids) reference.points.delete(keyOf(id));
    };
  }
  const versions = new Set<number>();
  for (const name of collections) {
    const response = await send(url, request.method, `/collections/${name}/${request.path}`, request.body);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    versions.add(response.body.result.operation_id);
  }
  // Both collections received the same writes, so they agree on every operation id.
  expect(versions.size).toBe(1);
  apply([...versions][0]!);
}

/** Every collection's scroll (payload, vector) and exact search (version) equal the reference. */
async function expectSameAsReference(url: string, reference: Reference): Promise<void> {
  const expected = reference.sorted();
  for (const name of collections) {
    const scrolled = await send(url, 'POST', `/collections/${name}/points/scroll`, { limit: 1000, with_payload: true, with_vector: true });
    expect(scrolled.status).toBe(200);
    expect(scrolled.body.result.points).toEqual(expected.map(({ id, payload, vector }) => ({ id, payload, vector })));
    const searched = await send(url, 'POST', `/collections/${name}/points/query`, { query: [1, 1, 1, 1], limit: 1000, with_payload: true, params: { exact: true } });
    expect(searched.status).toBe(200);
    const versions = new Map(searched.body.result.points.map((point: { id: Id; version: number }) => [keyOf(point.id), point.version]));
    expect(versions).toEqual(new Map(expected.map((point) => [keyOf(point.id), point.version])));
  }
}

async function createCollections(url: string): Promise<void> {
  for (const name of collections) {
    const created = await send(url, 'PUT', `/collections/${name}`, { vectors: { size: 4, distance: 'Dot' }, on_disk_payload: name === 'payload_on_disk' });
    expect(created.status).toBe(200);
  }
}

/** JSON as the official client sees it: numbers parsed as doubles. */
function asClientSees(value: unknown): unknown {
  return JSON.parse(stringifyLossless(value)!);
}

let child: ChildServer | undefined;
afterAll(async () => {
  await child?.kill('SIGKILL');
});

describe('points off the JS heap', () => {
  it('on_disk_payload — true and false answer identically to a Map reference through every payload operation, a restart and slot reuse', async () => {
    const directory = await newDirectory();
    let server: TestServer = await startServer(directory);
    const reference = new Reference();
    const random = mulberry32(19);
    try {
      await createCollections(server.url);
      for (let step = 1; step <= 60; step += 1) {
        await randomWrite(server.url, reference, random, step);
        if (step % 15 === 0) await expectSameAsReference(server.url, reference);
      }
      // The official client reads the same points (its numbers are doubles).
      for (const name of collections) {
        const retrieved = await server.client.retrieve(name, { ids: [0, 1, 2, 3, 'a0000000-0000-4000-8000-00000000000b'], with_payload: true });
        const expected = reference.sorted().filter((point) => ['0', '1', '2', '3', 'a0000000-0000-4000-8000-00000000000b'].includes(keyOf(point.id)));
        expect(retrieved.map(({ id, payload }) => ({ id, payload }))).toEqual(expected.map(({ id, payload }) => ({ id, payload: asClientSees(payload) })));
        await server.client.setPayload(name, { points: [0, 1, 2, 3].filter((id) => reference.points.has(keyOf(id))), payload: { by_client: true }, wait: true });
      }
      for (const id of [0, 1, 2, 3]) {
        const point = reference.points.get(keyOf(id));
        if (point) point.payload = { ...point.payload, by_client: true };
      }
      const versions = await send(server.url, 'POST', `/collections/${collections[0]}/points/query`, { query: [1, 1, 1, 1], limit: 1000, params: { exact: true } });
      for (const point of versions.body.result.points) reference.points.get(keyOf(point.id))!.version = point.version;
      await expectSameAsReference(server.url, reference);

      await server.close();
      server = await startServer(directory);
      await expectSameAsReference(server.url, reference);
      // After the restart, freed slots are reused by new points; answers stay exact.
      for (let step = 61; step <= 100; step += 1) await randomWrite(server.url, reference, random, step);
      await expectSameAsReference(server.url, reference);
    } finally {
      await server.close();
    }
  }, 120_000);

  it('restart — SIGKILL after acknowledged writes keeps every point, payload and version of both payload storages', async () => {
    const directory = await newDirectory();
    child = await startChildServer(directory, { QUIVER__STORAGE__FSYNC: 'true' });
    await waitUntilReady(child.url);
    const reference = new Reference();
    const random = mulberry32(20);
    await createCollections(child.url);
    for (let step = 1; step <= 40; step += 1) await randomWrite(child.url, reference, random, step);
    await child.kill('SIGKILL');
    child = await startChildServer(directory, { QUIVER__STORAGE__FSYNC: 'true' });
    await waitUntilReady(child.url);
    await expectSameAsReference(child.url, reference);
    for (let step = 41; step <= 60; step += 1) await randomWrite(child.url, reference, random, step);
    await expectSameAsReference(child.url, reference);
    await child.kill('SIGKILL');
    child = undefined;
  }, 120_000);

  it('payload indexes — filters on indexed fields (count, scroll, search) decode no payload, a delete by filter only the deleted ones; an unindexed field does', async () => {
    const directory = await newDirectory();
    const server = await startServer(directory);
    try {
      const name = 'decodes';
      expect((await send(server.url, 'PUT', `/collections/${name}`, { vectors: { size: 2, distance: 'Dot' }, on_disk_payload: true })).status).toBe(200);
      expect((await send(server.url, 'PUT', `/collections/${name}/index?wait=true`, { field_name: 'colour', field_schema: 'keyword' })).status).toBe(200);
      expect((await send(server.url, 'PUT', `/collections/${name}/index?wait=true`, { field_name: 'rank', field_schema: 'integer' })).status).toBe(200);
      const points = Array.from({ length: 300 }, (_, id) => ({ id, vector: [1, id / 300], payload: { colour: id % 3 === 0 ? 'red' : 'blue', rank: id, note: `point ${id}` } }));
      expect((await send(server.url, 'PUT', `/collections/${name}/points?wait=true`, { points })).status).toBe(200);
      const red = { must: [{ key: 'colour', match: { value: 'red' } }, { key: 'rank', range: { gte: 30 } }] };
      const expectedRed = points.filter((point) => point.payload.colour === 'red' && point.id >= 30).map((point) => point.id);

      const before = payloadDecodeCount();
      const counted = await send(server.url, 'POST', `/collections/${name}/points/count`, { filter: red, exact: true });
      expect(counted.body.result.count).toBe(expectedRed.length);
      const scrolled = await send(server.url, 'POST', `/collections/${name}/points/scroll`, { filter: red, limit: 1000, with_payload: false });
      expect(scrolled.body.result.points.map((point: { id: number }) => point.id)).toEqual(expectedRed);
      const searched = await send(server.url, 'POST', `/collections/${name}/points/query`, { query: [1, 0], filter: red, limit: 5, with_payload: false });
      expect(searched.body.result.points).toHaveLength(5);
      expect(payloadDecodeCount() - before).toBe(0);
      // A delete by an indexed filter selects without decoding; only the deleted points' payloads
      // are read, to take their values out of the payload indexes.
      const deleted = await send(server.url, 'POST', `/collections/${name}/points/delete?wait=true`, { filter: { must: [{ key: 'rank', range: { lt: 3 } }] } });
      expect(deleted.status).toBe(200);
      expect(payloadDecodeCount() - before).toBeLessThanOrEqual(3);

      // A condition on an unindexed field has to read payloads: the counter sees it.
      const unindexed = await send(server.url, 'POST', `/collections/${name}/points/count`, { filter: { must: [{ key: 'note', match: { value: 'point 7' } }] }, exact: true });
      expect(unindexed.body.result.count).toBe(1);
      expect(payloadDecodeCount() - before).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  }, 60_000);
});
