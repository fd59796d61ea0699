// One real server holding the same points twice: all of them in `all`, and split by a hash of
// the id over `s0`, `s1`, `s2`, each a plain collection with the same config. The ShardReader
// here sends a shard's read to `/collections/s{shard}` with app.inject, as a replica would
// answer it (marked internal, as a cluster node's in-process shard reads are); the distributed
// answer must equal what `all` answers.
import { internalRequestHeader, internalRequestToken } from '../../src/auth/internal-request.js';
import { errorStatus, QuiverError, type ErrorKind } from '../../src/errors.js';
import { expect } from 'vitest';
import { distributedRead, type ShardReader } from '../../src/cluster/distributed-read/index.js';
import type { DistributedReadOptions } from '../../src/cluster/distributed-read/lookup-examples.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { mulberry32 } from '../support/seeded-random.js';

export const shardCount = 3;
export const words = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta'];
export const colors = ['red', 'green', 'blue'];

export const collectionConfig = {
  vectors: { dense: { size: 4, distance: 'Cosine' }, euclid: { size: 3, distance: 'Euclid' }, dot: { size: 2, distance: 'Dot' } },
  sparse_vectors: { text: {}, terms: {}, weighted: { modifier: 'idf' }, bm25: { modifier: 'idf' } },
};

/** A small FNV-1a hash of the id's text: the placement the tests use (the merge knows nothing of it). */
export function shardOf(id: number | string): number {
  let hash = 0x811c9dc5;
  for (const character of String(id)) hash = Math.imul(hash ^ character.charCodeAt(0), 0x01000193) >>> 0;
  return hash % shardCount;
}

const uuids = ['0a6f1e3c-2b1d-4c55-9e0b-6a0b5d1c9f01', '5b2c7d8e-9f00-4a11-8b22-3c44d55e6f77', 'f0e1d2c3-b4a5-4968-8776-655443322110'];

export interface TestPoint {
  id: number | string;
  vector: Record<string, unknown>;
  payload: Record<string, unknown>;
}

/** Points in id order (integers, then UUIDs), so one node's slot order is its id order. */
export function makePoints(count: number, seed: number): TestPoint[] {
  const random = mulberry32(seed);
  const round = (value: number) => Math.round(value * 100) / 100;
  const points: TestPoint[] = [];
  const ids: (number | string)[] = [...Array.from({ length: count }, (_, index) => index + 1), ...uuids];
  ids.forEach((id, index) => {
    // Every fifth point repeats an earlier one's vectors: equal scores must tie as one node ties them.
    const twin = index % 5 === 4 ? points[index - 3] : undefined;
    const text = Array.from({ length: 1 + Math.floor(random() * 4) }, () => words[Math.floor(random() * words.length)]).join(' ');
    const vector: Record<string, unknown> = twin
      ? { ...twin.vector }
      : {
          dense: Array.from({ length: 4 }, () => round(random() * 2 - 1)),
          euclid: Array.from({ length: 3 }, () => round(random() * 2 - 1)),
          dot: Array.from({ length: 2 }, () => round(random() * 2 - 1)),
          text: { text, model: 'qdrant/bm25' },
          terms: { indices: [Math.floor(random() * 6), 6 + Math.floor(random() * 6)], values: [round(random() + 0.1), round(random() + 0.1)] },
        };
    if (!twin) {
      vector.weighted = vector.terms;
      vector.bm25 = vector.text;
    }
    // Some points lack a vector, so "without the vector" paths are exercised too.
    if (index % 7 === 6) delete vector.terms;
    points.push({
      id,
      vector,
      payload: { color: colors[Math.floor(random() * colors.length)], rank: Math.floor(random() * 20), text, tags: index % 3 === 0 ? ['x', 'y'] : ['y'] },
    });
  });
  return points;
}

export interface ShardedServer {
  test: TestApp;
  reader: ShardReader;
  /** A read on `all`, as one node answers it: the envelope's result, or the error as QuiverError. */
  single(method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown>;
}

function kindOf(status: number): ErrorKind {
  const kind = (Object.keys(errorStatus) as ErrorKind[]).find((name) => errorStatus[name] === status);
  return kind ?? 'internal';
}

/** `internal`: sent as a cluster node sends a shard read (src/auth/internal-request.ts), so the coordinator's own options are honoured. */
async function inject(test: TestApp, method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown, internal = false): Promise<unknown> {
  const headers = internal ? { [internalRequestHeader]: internalRequestToken } : {};
  const response = await test.app.inject({ method, url, headers, ...(body !== undefined ? { payload: body as object } : {}) });
  const parsed = JSON.parse(response.body);
  if (response.statusCode !== 200) throw new QuiverError(kindOf(response.statusCode), parsed.status?.error ?? response.body);
  return parsed.result;
}

async function setUp(test: TestApp, name: string, points: readonly TestPoint[], config: unknown = collectionConfig): Promise<void> {
  await inject(test, 'PUT', `/collections/${name}`, config);
  await inject(test, 'PUT', `/collections/${name}/index?wait=true`, { field_name: 'color', field_schema: 'keyword' });
  await inject(test, 'PUT', `/collections/${name}/index?wait=true`, { field_name: 'rank', field_schema: { type: 'integer', range: true, lookup: true } });
  // Always one upsert (an empty one too), so every collection's points carry the same version.
  await inject(test, 'PUT', `/collections/${name}/points?wait=true`, { points });
}

export async function startShardedServer(points: readonly TestPoint[]): Promise<ShardedServer> {
  const test = await createTestApp();
  await setUp(test, 'all', points);
  for (let shard = 0; shard < shardCount; shard++) {
    await setUp(
      test,
      `s${shard}`,
      points.filter((point) => shardOf(point.id) === shard),
    );
  }
  const reader: ShardReader = {
    shardCount,
    call: <Result>(shard: number, method: 'GET' | 'POST', path: string, body?: unknown) => inject(test, method, `/collections/s${shard}${path}`, body, true) as Promise<Result>,
  };
  return { test, reader, single: (method, path, body) => inject(test, method, `/collections/all${path}`, body) };
}

/**
 * A second collection on the same server, for `lookup_from`: whole as `name`, split over
 * `${name}0`..`${name}2` by the same placement; the reader reads the split copies.
 */
export async function addShardedCollection(server: ShardedServer, name: string, config: unknown, points: readonly TestPoint[]): Promise<ShardReader> {
  await setUp(server.test, name, points, config);
  for (let shard = 0; shard < shardCount; shard++) {
    await setUp(
      server.test,
      `${name}${shard}`,
      points.filter((point) => shardOf(point.id) === shard),
      config,
    );
  }
  return {
    shardCount,
    call: <Result>(shard: number, method: 'GET' | 'POST', path: string, body?: unknown) => inject(server.test, method, `/collections/${name}${shard}${path}`, body, true) as Promise<Result>,
  };
}

/** A collection's info as one node answers it (a missing one is its 404, as QuiverError). */
export function collectionInfo(server: ShardedServer, name: string): Promise<unknown> {
  return inject(server.test, 'GET', `/collections/${name}`);
}

/** A read's answer as data: its result, or the status and message of the QuiverError it threw. */
export async function outcome(read: () => Promise<unknown>): Promise<unknown> {
  try {
    return { result: await read() };
  } catch (error) {
    if (error instanceof QuiverError) return { status: error.status, message: error.message };
    throw error;
  }
}

/**
 * Expects the distributed answer to equal one node's (`all`'s), result or error alike, and to be
 * of the kind the test means (`status`: an error), so a test never passes on two equal refusals.
 */
export async function expectSameAnswer(
  server: ShardedServer,
  method: 'GET' | 'POST',
  path: string,
  body: unknown,
  answer: 'result' | 'status' = 'result',
  options?: DistributedReadOptions,
): Promise<unknown> {
  const single = await outcome(() => server.single(method, path, body));
  const merged = await outcome(() => distributedRead(server.reader, method, path, body, options));
  const label = `${method} ${path} ${JSON.stringify(body)}`;
  expect(merged, label).toEqual(single);
  expect(single, label).toHaveProperty(answer);
  return single;
}

/** A seeded source of numbers in [0, 1), for the randomised reads. */
export type Random = () => number;
export const pick = <Item>(random: Random, items: readonly Item[]): Item => items[Math.floor(random() * items.length)]!;
/** Two decimals: short JSON, and values one node and the shards read alike. */
export const round = (value: number) => Math.round(value * 100) / 100;
