// Restart: write, stop, start over the same directory — collections, configs, ids, payloads,
// vectors and nearest results are identical, from the checkpoint (no rebuild) or, when the
// checkpoint is missing or corrupt, rebuilt from the stored vectors.
import { readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectionDataRange, collectionRecordKey } from '../src/storage/keys.js';
import { encodeJsonRecord } from '../src/storage/codec.js';
import { createTestApp } from './support/app.js';
import { mulberry32 } from './support/seeded-random.js';
import { makeDataDirectory, removeDataDirectory, startServer, type TestServer } from './support/server.js';

const random = mulberry32(42);
const vector = (size: number) => Array.from({ length: size }, () => Math.round((random() * 2 - 1) * 1000) / 1000);

let directory: string;

async function populate(server: TestServer): Promise<void> {
  await server.request('PUT', '/collections/flat', { vectors: { size: 8, distance: 'Euclid' }, metadata: { purpose: 'restart' }, hnsw_config: { m: 8 } });
  await server.request('PUT', '/collections/multi', {
    vectors_config: { image: { size: 4, distance: 'Dot' }, text: { size: 6, distance: 'Cosine' } },
    quantization_config: { scalar: { type: 'int8' } },
  });
  await server.request('PUT', '/collections/city', { vectors: { size: 3, distance: 'Manhattan' } });
  for (let batch = 0; batch < 6; batch += 1) {
    const points = Array.from({ length: 100 }, (_, position) => {
      const number = batch * 100 + position;
      const id = number % 3 === 0 ? `00000000-0000-4000-8000-${number.toString(16).padStart(12, '0')}` : number;
      return { id, vector: vector(8), payload: { number, group: number % 7, nested: { label: `p${number}` } } };
    });
    await server.client.upsert('flat', { wait: true, points });
  }
  // Big ids only survive through the lossless parser: raw text.
  await server.request('PUT', '/collections/flat/points?wait=true', `{"points":[{"id":424242424242424242,"vector":${JSON.stringify(vector(8))},"payload":{"big":true}}]}`);
  await server.client.delete('flat', { wait: true, points: [1, 2, 4, 5, 7] });
  await server.client.upsert('flat', { wait: true, points: [{ id: 1, vector: vector(8), payload: { reborn: true } }] });
  await server.client.upsert('multi', {
    wait: true,
    points: Array.from({ length: 120 }, (_, id) => ({
      id,
      vector: id % 4 === 0 ? { text: vector(6) } : { image: vector(4), text: vector(6) },
      payload: { id },
    })),
  });
  await server.client.updateVectors('multi', { wait: true, points: [{ id: 8, vector: { image: vector(4) } }] });
  await server.client.upsert('city', { wait: true, points: Array.from({ length: 50 }, (_, id) => ({ id, vector: vector(3) })) });
}

const queries = { flat: [vector(8), vector(8), vector(8)], image: [vector(4), vector(4)], text: [vector(6), vector(6)], city: [vector(3)] };

/** Everything a client can observe, plus nearest results (approximate and exact). */
async function observe(server: TestServer): Promise<unknown> {
  const state: Record<string, unknown> = {};
  const names = (await server.client.getCollections()).collections.map((collection) => collection.name);
  state.names = names;
  for (const name of names) {
    const collection = server.app.collections.get(name);
    const ids = [...collection.livePoints()].map((entry) => entry.id).sort((left, right) => String(left).localeCompare(String(right)));
    const records = await server.request('POST', `/collections/${name}/points`, `{"ids":${JSON.stringify(ids, (_key, value) => (typeof value === 'bigint' ? `@@${value}@@` : value)).replace(/"@@(\d+)@@"/g, '$1')},"with_vector":true}`);
    const info = await server.client.getCollection(name);
    // kernel_memory (docs/api.md §18) is left out: a loaded index holds no replaced rows, so its heap differs.
    state[name] = { info: { ...info, status: undefined, indexed_vectors_count: undefined, kernel_memory: undefined }, records: records.text.replace(/"time":[0-9.e+-]+,/, ''), versions: ids.map((id) => collection.pointById(id)?.version) };
  }
  const nearest = async (name: string, vectorName: string, list: number[][]) => {
    const collection = server.app.collections.get(name);
    const results = [];
    for (const query of list) {
      for (const exact of [false, true]) {
        const found = await collection.nearest(vectorName, Float32Array.from(query), 10, { exact });
        results.push({ ids: found.points.map((point) => String(point.id)), scores: found.scores });
      }
    }
    return results;
  };
  state.nearest = {
    flat: await nearest('flat', '', queries.flat),
    image: await nearest('multi', 'image', queries.image),
    text: await nearest('multi', 'text', queries.text),
    city: await nearest('city', '', queries.city),
  };
  return state;
}

async function checkpointFiles(): Promise<string[]> {
  const found: string[] = [];
  const root = join(directory, 'collections');
  for (const collection of await readdir(root)) {
    for (const file of await readdir(join(root, collection))) if (file.endsWith('.qvi')) found.push(join(root, collection, file));
  }
  return found;
}

let before: unknown;

beforeAll(async () => {
  directory = await makeDataDirectory();
  const server = await startServer(directory);
  await populate(server);
  for (const collection of server.app.collections.all()) await collection.waitIndexed();
  before = await observe(server);
  await server.close();
});

afterAll(async () => {
  await removeDataDirectory(directory);
});

describe('restart', () => {
  it('restart — a clean shutdown leaves a checkpoint per vector index covering the last operation', async () => {
    const files = await checkpointFiles();
    expect(files).toHaveLength(4);
    const server = await startServer(directory);
    try {
      for (const collection of server.app.collections.all()) {
        expect(collection.checkpointedOperationId).toBe(collection.lastOperationId);
        expect(collection.lastOperationId).toBeGreaterThan(0);
      }
    } finally {
      await server.close();
    }
  });

  it('start-up — collection routes answer 412 Engine not initialized until every collection is loaded', async () => {
    const testApp = await createTestApp({ directory, open: false });
    try {
      for (const url of ['/collections', '/collections/flat', '/collections/flat/exists']) {
        const response = await testApp.app.inject({ method: 'GET', url });
        expect(response.statusCode, url).toBe(412);
        expect(response.json().status.error).toBe('Engine not initialized');
      }
      await testApp.app.engine.open();
      expect((await testApp.app.inject({ method: 'GET', url: '/collections/flat' })).json().result.points_count).toBe(597);
    } finally {
      await testApp.dispose();
    }
  });

  it('restart — ids, payloads, vectors, configs, versions and nearest results are identical', async () => {
    const server = await startServer(directory);
    try {
      expect(await observe(server)).toEqual(before);
      const big = await server.request('GET', '/collections/flat/points/424242424242424242');
      expect(big.text).toContain('"id":424242424242424242');
    } finally {
      await server.close();
    }
  });

  it('restart — a heap collection reads its rows from the checkpoint file only until it has copied them into memory, with the same answers after', async () => {
    const server = await startServer(directory);
    try {
      for (const name of ['flat', 'multi', 'city']) {
        // A heap index adopts the file's rows at load and copies them in the background
        // (crates/quiver-core/src/index/heap_copy.rs); the mapped figure falls to 0 when it is done.
        const deadline = Date.now() + 30_000;
        let memory = (await server.request('GET', `/collections/${name}`)).body.result.kernel_memory;
        while (memory.mapped_bytes > 0 && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 20));
          memory = (await server.request('GET', `/collections/${name}`)).body.result.kernel_memory;
        }
        expect(memory, name).toEqual({ resident_bytes: expect.any(Number), mapped_bytes: 0, mapped_resident_bytes: 0 });
      }
      expect(await observe(server)).toEqual(before);
    } finally {
      await server.close();
    }
  });

  it('restart — operation ids keep increasing after a restart', async () => {
    const server = await startServer(directory);
    try {
      const last = server.app.collections.get('city').lastOperationId;
      const result = await server.client.upsert('city', { wait: true, points: [{ id: 1000, vector: [1, 2, 3] }] });
      expect(result.operation_id).toBe(last + 1);
      await server.client.delete('city', { wait: true, points: [1000] });
    } finally {
      await server.close();
    }
  });

  it('restart — without checkpoint files every index is rebuilt from the stored vectors, same data and exact results', async () => {
    for (const file of await checkpointFiles()) await rm(file);
    const server = await startServer(directory);
    try {
      // Rebuilt indexes cover no checkpoint yet.
      for (const collection of server.app.collections.all()) expect(collection.checkpointedOperationId).toBe(0);
      const after = (await observe(server)) as { nearest: Record<string, { ids: string[]; scores: number[] }[]> };
      const expected = before as typeof after;
      expect({ ...after, nearest: undefined }).toEqual({ ...expected, nearest: undefined });
      for (const key of Object.keys(expected.nearest)) {
        // Exact results (odd positions) must match; the approximate graph may be built differently.
        const exactAfter = after.nearest[key]!.filter((_, position) => position % 2 === 1);
        const exactBefore = expected.nearest[key]!.filter((_, position) => position % 2 === 1);
        expect(exactAfter, key).toEqual(exactBefore);
      }
    } finally {
      await server.close();
    }
    expect(await checkpointFiles()).toHaveLength(4);
  });

  it('restart — a corrupt checkpoint costs a rebuild, never data', async () => {
    const [file] = await checkpointFiles();
    const bytes = await readFile(file!);
    const middle = Math.floor(bytes.length / 2);
    bytes[middle] = bytes[middle]! ^ 0xff;
    await writeFile(file!, bytes);
    const server = await startServer(directory);
    try {
      const rebuilt = server.app.collections.all().filter((collection) => collection.checkpointedOperationId === 0);
      expect(rebuilt).toHaveLength(1);
      const after = (await observe(server)) as Record<string, unknown>;
      expect({ ...after, nearest: undefined }).toEqual({ ...(before as Record<string, unknown>), nearest: undefined });
    } finally {
      await server.close();
    }
  });

  it('restart — a deletion interrupted by a crash is finished at the next start', async () => {
    const server = await startServer(directory);
    let number: number;
    try {
      await server.client.createCollection('half-deleted', { vectors: { size: 2, distance: 'Dot' } });
      await server.client.upsert('half-deleted', { wait: true, points: [{ id: 1, vector: [1, 2] }] });
      const collection = server.app.collections.get('half-deleted');
      number = collection.number;
      // What DELETE writes first: the record marked as deleting. The crash comes before the rest.
      await server.app.engine.database.put(collectionRecordKey(number), encodeJsonRecord(1, { name: 'half-deleted', state: 'deleting', config: collection.config }));
    } finally {
      await server.close();
    }
    const restarted = await startServer(directory);
    try {
      expect((await restarted.client.collectionExists('half-deleted')).exists).toBe(false);
      const leftovers = [];
      for await (const key of restarted.app.engine.database.keys(collectionDataRange(number))) leftovers.push(key);
      expect(leftovers).toEqual([]);
      expect(await restarted.app.engine.database.get(collectionRecordKey(number))).toBeUndefined();
      await expect(stat(join(directory, 'collections', String(number)))).rejects.toThrow();
      expect((await observe(restarted)) as unknown).toEqual(expect.objectContaining({ names: (before as { names: string[] }).names }));
    } finally {
      await restarted.close();
    }
  });
});
