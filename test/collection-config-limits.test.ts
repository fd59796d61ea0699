// Issue 18 item 7: PATCH validates every HNSW field exactly as create does (one schema, the
// kernel's ranges), and a stored collection that cannot load (here: a record written by an older
// build with m = 100000) never stops the start: it is listed, reported red with the reason,
// refused in the envelope, deletable, and the other collections serve.
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJsonRecord, encodeJsonRecord } from '../src/storage/codec.js';
import { openDatabase } from '../src/storage/database.js';
import { collectionNumberFromRecordKey, collectionRecordRange } from '../src/storage/keys.js';
import { expectError, expectSuccess } from './support/envelope.js';
import { makeDataDirectory, removeDataDirectory, startServer, type TestServer } from './support/server.js';

let server: TestServer;
let directory: string;

beforeAll(async () => {
  directory = await makeDataDirectory();
  server = await startServer(directory);
  for (const name of ['good', 'bad']) {
    await server.client.createCollection(name, { vectors: { size: 2, distance: 'Dot' } });
    await server.client.upsert(name, { wait: true, points: [{ id: 1, vector: [1, 0] }, { id: 2, vector: [0, 1] }] });
  }
});

afterAll(async () => {
  await server.close();
  await removeDataDirectory(directory);
});

const outOfRange: [string, Record<string, number>, string][] = [
  ['m', { m: 1 }, 'hnsw_config.m: expected integer to be greater or equal to 2 (got 1)'],
  ['m', { m: 100000 }, 'hnsw_config.m: expected integer to be less or equal to 128 (got 100000)'],
  ['ef_construct', { ef_construct: 4097 }, 'hnsw_config.ef_construct: expected integer to be less or equal to 4096 (got 4097)'],
  ['max_indexing_threads', { max_indexing_threads: 257 }, 'hnsw_config.max_indexing_threads: expected integer to be less or equal to 256 (got 257)'],
];

describe('one schema for create and PATCH', () => {
  for (const [field, hnsw, message] of outOfRange) {
    it(`config — ${field} ${Object.values(hnsw)[0]} is the same 400 on PUT and on PATCH`, async () => {
      const created = expectError(await server.request('PUT', '/collections/fresh', { vectors: { size: 2, distance: 'Dot' }, hnsw_config: hnsw }), 400);
      const patched = expectError(await server.request('PATCH', '/collections/good', { hnsw_config: hnsw }), 400);
      expect(created).toBe(`Validation error in body ${message}`);
      expect(patched).toBe(created);
    });
  }

  it("config — a vector's own hnsw_config is held to the same ranges on PATCH", async () => {
    const message = expectError(await server.request('PATCH', '/collections/good', { vectors: { '': { hnsw_config: { m: 100000 } } } }), 400);
    expect(message).toContain('m');
    expect(message).toContain('128');
  });

  it('config — the official client is refused an out-of-range PATCH and the stored config is unchanged', async () => {
    const refusal = await server.client.updateCollection('good', { hnsw_config: { ef_construct: 4097 } }).catch((error: unknown) => error);
    expect((refusal as { status?: number }).status).toBe(400);
    const info = await server.client.getCollection('good');
    expect(info.config.hnsw_config.ef_construct).toBe(100);
  });

  it('config — in-range values still apply through PATCH', async () => {
    await server.client.updateCollection('good', { hnsw_config: { m: 128, ef_construct: 4096, max_indexing_threads: 256 } });
    const info = await server.client.getCollection('good');
    expect(info.config.hnsw_config).toMatchObject({ m: 128, ef_construct: 4096, max_indexing_threads: 256 });
  });
});

describe('a collection that cannot load', () => {
  it('load failure — the start goes on; the broken collection is red with the reason, the other serves', async () => {
    await server.close();
    // What an older build's PATCH could store: m = 100000, which the kernel refuses to build
    // with; without its checkpoint file the index must be rebuilt at the next start.
    const database = await openDatabase({ directory });
    for await (const [key, value] of database.iterator(collectionRecordRange)) {
      const record = decodeJsonRecord(value, [1], 'collection record').value as { name: string; config: { hnsw_config: { m: number } } };
      if (record.name !== 'bad') continue;
      record.config.hnsw_config.m = 100000;
      await database.put(key, encodeJsonRecord(1, record));
      const collectionDirectory = join(directory, 'collections', String(collectionNumberFromRecordKey(key)));
      for (const file of await readdir(collectionDirectory)) if (file.endsWith('.qvi')) await rm(join(collectionDirectory, file));
    }
    await database.close();

    server = await startServer(directory);
    const names = (expectSuccess(await server.request('GET', '/collections')) as { collections: { name: string }[] }).collections.map((entry) => entry.name);
    expect(names).toEqual(['bad', 'good']);
    const bad = expectSuccess(await server.request('GET', '/collections/bad'));
    expect(bad.status).toBe('red');
    expect(bad.optimizer_status.error).toMatch(/^could not be loaded at start: .*m must be 0 \(no graph\) or 2\.\.=128, got 100000/);
    const good = await server.client.query('good', { query: [1, 0], limit: 1 });
    expect(good.points.map((hit) => hit.id)).toEqual([1]);
    expect((await server.request('GET', '/collections/bad/exists')).body.result).toEqual({ exists: true });
  });

  it('load failure — operations on it are refused in the envelope with the reason', async () => {
    const message = expectError(await server.request('POST', '/collections/bad/points/search', { vector: [1, 0], limit: 1 }), 500);
    expect(message).toMatch(/^Collection operation failed: collection bad could not be loaded at start: .*m must be 0 \(no graph\) or 2\.\.=128/);
    expectError(await server.request('PUT', '/collections/bad', { vectors: { size: 2, distance: 'Dot' } }), 409);
  });

  it('load failure — it can be deleted and created anew', async () => {
    expect(await server.client.deleteCollection('bad')).toBe(true);
    await server.client.createCollection('bad', { vectors: { size: 2, distance: 'Dot' } });
    expect((await server.client.getCollection('bad')).status).toBe('green');
  });
});
