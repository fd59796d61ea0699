// On-disk vectors (docs/api.md §18, docs/architecture.md §15): `on_disk: true` keeps a vector's
// originals in memory-mapped files instead of the heap arena. Answers must equal the heap
// arena's and an exact reference computed here; GET C and the metrics report the mapped bytes;
// restart and SIGKILL bring the collection back from the checkpoint and the store.
import { mkdtemp, open, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startChildServer, waitUntilReady } from './support/child-server.js';
import { call } from './support/http-call.js';
import { clusteredDataset, exactTopIds, graphInUseConfig, recallOf, referenceScore } from './support/search-data.js';
import { serverForFile } from './support/server.js';
import { waitGreen as waitGreenOf } from './support/wait-green.js';

const server = serverForFile();
const dimension = 32;

const dataset = (count: number, seed: number) => clusteredDataset({ count, seed, dimension, clusters: 10, queries: 15, stride: 53 });

const waitGreen = (name: string) => waitGreenOf(server.client, name);

describe('on-disk vectors', () => {
  const { points, queries } = dataset(2000, 9);

  it('on_disk — the JS client creates it with int8 codes; rescored answers keep recall ≥ 0.9 with exact scores, and with_vector equals the heap twin', async () => {
    const client = server.client;
    await client.createCollection('mapped', { vectors: { size: dimension, distance: 'Cosine', on_disk: true }, quantization_config: { scalar: { type: 'int8' } }, ...graphInUseConfig });
    await client.createCollection('heap', { vectors: { size: dimension, distance: 'Cosine' }, ...graphInUseConfig });
    await client.upsert('mapped', { wait: true, points });
    await client.upsert('heap', { wait: true, points });
    await waitGreen('mapped');
    const info = await client.getCollection('mapped');
    expect((info.config.params.vectors as { on_disk?: boolean }).on_disk).toBe(true);
    const truth = queries.map((query) => exactTopIds('Cosine', points, query, 10));
    const found: number[][] = [];
    for (const query of queries) {
      const { points: hits } = await client.query('mapped', { query, limit: 10, params: { quantization: { oversampling: 4 } } });
      found.push(hits.map((hit) => Number(hit.id)));
      // Rescored from the mapped originals: each score is the float cosine.
      for (const hit of hits) expect(hit.score).toBeCloseTo(referenceScore('Cosine', query, points[Number(hit.id)]!.vector), 5);
    }
    expect(recallOf(found, truth)).toBeGreaterThanOrEqual(0.9);
    const ids = [0, 1, 999, 1999];
    const fromDisk = await client.retrieve('mapped', { ids, with_vector: true });
    const fromHeap = await client.retrieve('heap', { ids, with_vector: true });
    expect(fromDisk.map((record) => record.vector)).toEqual(fromHeap.map((record) => record.vector));
  });

  it('GET C and /metrics — the mapped bytes are reported apart from the heap, 0 for a heap collection', async () => {
    // Both collections fully built, so their figures compare like with like (a graph still
    // linking holds fewer links and queued copies of vectors; CI once caught the heap one mid-build).
    await waitGreen('heap');
    await waitGreen('mapped');
    const mapped = await server.request('GET', '/collections/mapped');
    const heap = await server.request('GET', '/collections/heap');
    const mappedMemory = mapped.body.result.kernel_memory;
    const heapMemory = heap.body.result.kernel_memory;
    expect(mappedMemory.mapped_bytes).toBeGreaterThanOrEqual(points.length * dimension * 4);
    expect(mappedMemory.mapped_resident_bytes).toBeGreaterThan(0);
    expect(mappedMemory.mapped_resident_bytes).toBeLessThanOrEqual(mappedMemory.mapped_bytes);
    expect(heapMemory).toEqual({ resident_bytes: expect.any(Number), mapped_bytes: 0, mapped_resident_bytes: 0 });
    // The originals are not in the heap figure: the mapped collection holds codes + graph only.
    expect(heapMemory.resident_bytes - mappedMemory.resident_bytes).toBeGreaterThan(points.length * dimension * 2);
    const metrics = await server.request('GET', '/metrics');
    const text = typeof metrics.body === 'string' ? metrics.body : metrics.text;
    const line = String(text)
      .split('\n')
      .find((candidate) => candidate.startsWith('quiverdb_collection_kernel_memory_bytes{') && candidate.includes('collection="mapped"') && candidate.includes('type="mapped"'));
    expect(line, 'the mapped series of the on-disk collection').toBeDefined();
    expect(Number(line!.split(' ').at(-1))).toBe(mappedMemory.mapped_bytes);
  });

  it('on_disk without codes — raw HTTP: the graph walks the mapped originals and exact search equals the reference', async () => {
    expect((await server.request('PUT', '/collections/plain', { vectors: { size: dimension, distance: 'Euclid', on_disk: true }, ...graphInUseConfig })).status).toBe(200);
    expect((await server.request('PUT', '/collections/plain/points?wait=true', { points })).status).toBe(200);
    await waitGreen('plain');
    const found: number[][] = [];
    const truth = queries.map((query) => exactTopIds('Euclid', points, query, 10));
    for (const [position, query] of queries.entries()) {
      const exact = await server.request('POST', '/collections/plain/points/search', { vector: query, limit: 10, params: { exact: true } });
      expect(exact.body.result.map((hit: { id: number }) => hit.id)).toEqual(truth[position]);
      const walked = await server.request('POST', '/collections/plain/points/search', { vector: query, limit: 10 });
      found.push(walked.body.result.map((hit: { id: number }) => hit.id));
    }
    expect(recallOf(found, truth)).toBeGreaterThanOrEqual(0.9);
  });

  it('restart and SIGKILL — an on-disk collection comes back from its checkpoint and the store with every vector and the reference answers', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'quiver-on-disk-'));
    const environment = { QUIVER__STORAGE__CHECKPOINT_OPERATIONS: '3' };
    let child = await startChildServer(directory, environment);
    try {
      await waitUntilReady(child.url);
      await call(child.url, 'PUT', '/collections/kept', { vectors: { size: dimension, distance: 'Euclid', on_disk: true }, quantization_config: { scalar: { type: 'int8' } }, ...graphInUseConfig });
      for (let start = 0; start < 1000; start += 250) {
        expect((await call(child.url, 'PUT', '/collections/kept/points?wait=true', { points: points.slice(start, start + 250) })).status).toBe(200);
      }
      await child.kill('SIGTERM');
      child = await startChildServer(directory, environment);
      await waitUntilReady(child.url);
      for (let start = 1000; start < points.length; start += 250) {
        expect((await call(child.url, 'PUT', '/collections/kept/points?wait=true', { points: points.slice(start, start + 250) })).status).toBe(200);
      }
      // Some writes after the last checkpoint: replayed from the store at the next start.
      expect((await call(child.url, 'POST', '/collections/kept/points/delete?wait=true', { points: [5, 6, 7] })).status).toBe(200);
      await child.kill('SIGKILL');
      child = await startChildServer(directory, environment);
      await waitUntilReady(child.url);
      const info = await call(child.url, 'GET', '/collections/kept');
      expect(info.body.result.points_count).toBe(points.length - 3);
      expect(info.body.result.config.params.vectors.on_disk).toBe(true);
      expect(info.body.result.kernel_memory.mapped_bytes).toBeGreaterThanOrEqual((points.length - 3) * dimension * 4);
      const live = points.filter((point) => ![5, 6, 7].includes(point.id));
      const records = await call(child.url, 'POST', '/collections/kept/points', { ids: [0, 5, 1500, 1999], with_vector: true });
      expect(records.body.result.map((record: { id: number }) => record.id).sort((left: number, right: number) => left - right)).toEqual([0, 1500, 1999]);
      for (const record of records.body.result as { id: number; vector: number[] }[]) {
        record.vector.forEach((value, position) => expect(value).toBeCloseTo(points[record.id]!.vector[position]!, 5));
      }
      for (const query of queries.slice(0, 8)) {
        const exact = await call(child.url, 'POST', '/collections/kept/points/search', { vector: query, limit: 10, params: { exact: true } });
        expect(exact.body.result.map((hit: { id: number }) => hit.id)).toEqual(exactTopIds('Euclid', live, query, 10));
      }
    } finally {
      await child.kill('SIGKILL');
      await rm(directory, { recursive: true, force: true });
    }
  }, 120_000);

  it('clean restart — an on_disk collection reads its rows in place from its format 5 checkpoint, and writes new rows to working files', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'quiver-on-disk-adopted-'));
    let child = await startChildServer(directory);
    try {
      await waitUntilReady(child.url);
      await call(child.url, 'PUT', '/collections/adopted', { vectors: { size: dimension, distance: 'Cosine', on_disk: true }, ...graphInUseConfig });
      const first = points.slice(0, 1000);
      for (let start = 0; start < first.length; start += 250) {
        expect((await call(child.url, 'PUT', '/collections/adopted/points?wait=true', { points: first.slice(start, start + 250) })).status).toBe(200);
      }
      await child.kill('SIGTERM');
      // The clean stop's checkpoint is format 5 (docs/architecture.md §5.3).
      const files = (await readdir(directory, { recursive: true })).filter((name) => name.endsWith('.qvi'));
      expect(files).toHaveLength(1);
      const header = Buffer.alloc(12);
      const handle = await open(join(directory, files[0]!), 'r');
      await handle.read(header, 0, 12, 0);
      await handle.close();
      expect([header.subarray(0, 8).toString('latin1'), header.readUInt32LE(8)]).toEqual(['QUIVERIX', 5]);

      child = await startChildServer(directory);
      await waitUntilReady(child.url);
      const restarted = (await call(child.url, 'GET', '/collections/adopted')).body.result;
      // Exactly the loaded rows are mapped: the checkpoint's own, no working file yet.
      expect(restarted.kernel_memory.mapped_bytes).toBe(first.length * dimension * 4);
      for (const query of queries.slice(0, 6)) {
        const exact = await call(child.url, 'POST', '/collections/adopted/points/search', { vector: query, limit: 10, params: { exact: true } });
        expect(exact.body.result.map((hit: { id: number }) => hit.id)).toEqual(exactTopIds('Cosine', first, query, 10));
      }
      // New points and a replaced one go to working files; every answer stays exact.
      const later = points.slice(1000, 1100).concat([{ ...points[1500]!, id: 3 }]);
      expect((await call(child.url, 'PUT', '/collections/adopted/points?wait=true', { points: later })).status).toBe(200);
      const grown = (await call(child.url, 'GET', '/collections/adopted')).body.result;
      expect(grown.kernel_memory.mapped_bytes).toBeGreaterThan(first.length * dimension * 4);
      const now = first.filter((point) => point.id !== 3).concat(later);
      for (const query of queries.slice(0, 6)) {
        const exact = await call(child.url, 'POST', '/collections/adopted/points/search', { vector: query, limit: 10, params: { exact: true } });
        expect(exact.body.result.map((hit: { id: number }) => hit.id)).toEqual(exactTopIds('Cosine', now, query, 10));
      }
    } finally {
      await child.kill('SIGKILL');
      await rm(directory, { recursive: true, force: true });
    }
  }, 120_000);

  it('PATCH on_disk — stored and echoed at once, acting at the next start: the heap index is loaded into mapped files with the same answers', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'quiver-on-disk-patch-'));
    let child = await startChildServer(directory);
    try {
      await waitUntilReady(child.url);
      await call(child.url, 'PUT', '/collections/moved', { vectors: { size: dimension, distance: 'Euclid' } });
      expect((await call(child.url, 'PUT', '/collections/moved/points?wait=true', { points: points.slice(0, 500) })).status).toBe(200);
      const patched = await call(child.url, 'PATCH', '/collections/moved', { vectors: { '': { on_disk: true } } });
      expect(patched.status).toBe(200);
      const before = await call(child.url, 'GET', '/collections/moved');
      expect(before.body.result.config.params.vectors.on_disk).toBe(true);
      expect(before.body.result.kernel_memory.mapped_bytes).toBe(0);
      await child.kill('SIGTERM');
      child = await startChildServer(directory);
      await waitUntilReady(child.url);
      const after = await call(child.url, 'GET', '/collections/moved');
      expect(after.body.result.kernel_memory.mapped_bytes).toBeGreaterThanOrEqual(500 * dimension * 4);
      for (const query of queries.slice(0, 5)) {
        const exact = await call(child.url, 'POST', '/collections/moved/points/search', { vector: query, limit: 10, params: { exact: true } });
        expect(exact.body.result.map((hit: { id: number }) => hit.id)).toEqual(exactTopIds('Euclid', points.slice(0, 500), query, 10));
      }
    } finally {
      await child.kill('SIGKILL');
      await rm(directory, { recursive: true, force: true });
    }
  }, 120_000);
});
