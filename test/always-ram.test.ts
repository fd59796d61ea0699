// `always_ram` acted on (docs/api.md §15): the quantized codes of an `on_disk` vector whose
// `always_ram` is false live in mapped memory beside the originals, reported as mapped in
// `kernel_memory`; everywhere else they stay in RAM. Answers are checked against an exact
// reference computed here, and across a placement switch of one collection (same graph, same
// codes) they must be identical to the bit.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startChildServer, waitUntilReady } from './support/child-server.js';
import { call } from './support/http-call.js';
import { clusteredDataset, exactTopIds, graphInUseConfig, recallOf, referenceScore } from './support/search-data.js';
import { serverForFile } from './support/server.js';
import { waitGreen } from './support/wait-green.js';

const server = serverForFile();
const dimension = 32;
const { points, queries } = clusteredDataset({ count: 2000, seed: 19, dimension, clusters: 10, queries: 15, stride: 53 });
const truth = queries.map((query) => exactTopIds('Cosine', points, query, 10));
/** A code row: 32 int8 values and the f32 correction (docs/architecture.md §12). */
const int8CodeBytes = points.length * (dimension + 4);

interface KernelMemory {
  resident_bytes: number;
  mapped_bytes: number;
  mapped_resident_bytes: number;
}

type Answer = { id: number; score: number }[];

/**
 * Every query's hits (id and score) through raw HTTP, from the in-process server or a child's URL.
 * Binary codes of 32-d vectors tell few neighbours apart (32 or 64 bits), so their walk collects
 * more candidates for the rescoring to pick from.
 */
async function answers(collection: string, using?: string, url?: string, oversampling = 4): Promise<Answer[]> {
  const found: Answer[] = [];
  for (const query of queries) {
    const body = { query, limit: 10, ...(using ? { using } : {}), params: { hnsw_ef: 256, quantization: { oversampling } } };
    const response = url ? await call(url, 'POST', `/collections/${collection}/points/query`, body) : await server.request('POST', `/collections/${collection}/points/query`, body);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    found.push((response.body.result.points as { id: number; score: number }[]).map((hit) => ({ id: hit.id, score: hit.score })));
  }
  return found;
}

/** Rescored answers: exact float scores, and recall against the exact reference ≥ 0.95. */
function expectRescoredAndRecalled(found: Answer[]): void {
  found.forEach((hits, position) => {
    for (const hit of hits) expect(hit.score).toBeCloseTo(referenceScore('Cosine', queries[position]!, points[hit.id]!.vector), 5);
  });
  expect(recallOf(found.map((hits) => hits.map((hit) => hit.id)), truth)).toBeGreaterThanOrEqual(0.95);
}

async function kernelMemory(collection: string, url?: string): Promise<KernelMemory> {
  const response = url ? await call(url, 'GET', `/collections/${collection}`) : await server.request('GET', `/collections/${collection}`);
  return response.body.result.kernel_memory as KernelMemory;
}

describe('always_ram', () => {
  let mappedAnswers: Answer[] = [];
  let mappedMemory: KernelMemory;

  it('always_ram false — the JS client creates an on_disk int8 collection; rescored answers are exact-scored with recall ≥ 0.95', async () => {
    const client = server.client;
    await client.createCollection('codes', {
      vectors: { size: dimension, distance: 'Cosine', on_disk: true },
      quantization_config: { scalar: { type: 'int8', always_ram: false } },
      ...graphInUseConfig,
    });
    await client.upsert('codes', { wait: true, points });
    await waitGreen(client, 'codes');
    const info = await client.getCollection('codes');
    expect(info.config.quantization_config).toEqual({ scalar: { type: 'int8', always_ram: false } });
    mappedAnswers = await answers('codes');
    expectRescoredAndRecalled(mappedAnswers);
    mappedMemory = await kernelMemory('codes');
    // The arena (2000 × 32 floats) and the codes are both mapped; part of it is in RAM now.
    expect(mappedMemory.mapped_bytes).toBeGreaterThanOrEqual(points.length * dimension * 4 + int8CodeBytes);
    expect(mappedMemory.mapped_resident_bytes).toBeGreaterThan(0);
    expect(mappedMemory.mapped_resident_bytes).toBeLessThanOrEqual(mappedMemory.mapped_bytes);
  });

  it('PATCH always_ram true then false — the codes move between heap and mapped memory, answers identical to the bit', async () => {
    const client = server.client;
    await client.updateCollection('codes', { quantization_config: { scalar: { type: 'int8', always_ram: true } } });
    await waitGreen(client, 'codes');
    const inRam = await kernelMemory('codes');
    // No write in between: the arena and the graph's links are unchanged, only the codes moved.
    // The heap figure also holds the searches' scratch lists, which only ever grow, so the heap
    // rises by at least what left the mapped figure (and falls back by most of it below).
    const moved = mappedMemory.mapped_bytes - inRam.mapped_bytes;
    expect(moved).toBeGreaterThanOrEqual(int8CodeBytes);
    expect(inRam.resident_bytes - mappedMemory.resident_bytes).toBeGreaterThanOrEqual(moved);
    expect(await answers('codes')).toEqual(mappedAnswers);
    await client.updateCollection('codes', { quantization_config: { scalar: { type: 'int8', always_ram: false } } });
    await waitGreen(client, 'codes');
    const back = await kernelMemory('codes');
    expect(back.mapped_bytes).toBe(mappedMemory.mapped_bytes);
    expect(inRam.resident_bytes - back.resident_bytes).toBeGreaterThanOrEqual(moved / 2);
    expect(await answers('codes')).toEqual(mappedAnswers);
    expect((await client.getCollection('codes')).config.quantization_config).toEqual({ scalar: { type: 'int8', always_ram: false } });
  });

  it('binary, per named vector — raw HTTP: the vector’s own always_ram false wins over the collection’s true; PATCH of the vector moves its codes back', async () => {
    const created = await server.request('PUT', '/collections/named', {
      vectors: {
        mapped: { size: dimension, distance: 'Cosine', on_disk: true, quantization_config: { binary: { encoding: 'two_bits', always_ram: false } } },
        kept: { size: dimension, distance: 'Cosine', on_disk: true },
      },
      quantization_config: { binary: { always_ram: true } },
      ...graphInUseConfig,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const upserted = await server.request('PUT', '/collections/named/points?wait=true', {
      points: points.map((point) => ({ id: point.id, vector: { mapped: point.vector, kept: point.vector } })),
    });
    expect(upserted.status).toBe(200);
    await waitGreen(server.client, 'named');
    const before = await kernelMemory('named');
    const mapped = await answers('named', 'mapped', undefined, 20);
    const kept = await answers('named', 'kept', undefined, 20);
    expectRescoredAndRecalled(mapped);
    expectRescoredAndRecalled(kept);
    const patched = await server.request('PATCH', '/collections/named', { vectors: { mapped: { quantization_config: { binary: { encoding: 'two_bits', always_ram: true } } } } });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    await waitGreen(server.client, 'named');
    const after = await kernelMemory('named');
    // two_bits at 32-d: one 8-byte code per point, on the heap now and no longer mapped.
    const moved = before.mapped_bytes - after.mapped_bytes;
    expect(moved).toBeGreaterThanOrEqual(points.length * 8);
    expect(after.resident_bytes - before.resident_bytes).toBeGreaterThanOrEqual(moved);
    expect(await answers('named', 'mapped', undefined, 20)).toEqual(mapped);
    expect(await answers('named', 'kept', undefined, 20)).toEqual(kept);
  });

  it('a vector in RAM keeps its codes in RAM whatever always_ram says; absent keeps them in RAM on_disk too', async () => {
    await server.request('PUT', '/collections/heap', { vectors: { size: dimension, distance: 'Cosine' }, quantization_config: { scalar: { type: 'int8', always_ram: false } }, ...graphInUseConfig });
    await server.request('PUT', '/collections/absent', { vectors: { size: dimension, distance: 'Cosine', on_disk: true }, quantization_config: { scalar: { type: 'int8' } }, ...graphInUseConfig });
    for (const name of ['heap', 'absent']) {
      expect((await server.request('PUT', `/collections/${name}/points?wait=true`, { points })).status).toBe(200);
      await waitGreen(server.client, name);
      expectRescoredAndRecalled(await answers(name));
    }
    expect((await kernelMemory('heap')).mapped_bytes).toBe(0);
    // on_disk with always_ram absent: only the arena is mapped (the codes stay on the heap).
    const absent = await kernelMemory('absent');
    expect(absent.mapped_bytes).toBeLessThan(mappedMemory.mapped_bytes);
    expect(mappedMemory.mapped_bytes - absent.mapped_bytes).toBeGreaterThanOrEqual(int8CodeBytes);
  });

  it('bad values — a 400 naming the field, at create and PATCH, through raw HTTP and the JS client', async () => {
    const cases: [unknown, RegExp][] = [
      [{ scalar: { type: 'int8', always_ram: 'yes' } }, /quantization_config\.scalar\.always_ram/],
      [{ scalar: { type: 'int8', always_ram: 1 } }, /quantization_config\.scalar\.always_ram/],
      [{ binary: { always_ram: 'no' } }, /quantization_config\.binary\.always_ram/],
    ];
    for (const [quantization, message] of cases) {
      const response = await server.request('PUT', '/collections/refused', { vectors: { size: 4, distance: 'Dot', on_disk: true }, quantization_config: quantization });
      expect(response.status, JSON.stringify(quantization)).toBe(400);
      expect(response.body.status.error).toMatch(message);
      const patched = await server.request('PATCH', '/collections/codes', { quantization_config: quantization });
      expect(patched.status, JSON.stringify(quantization)).toBe(400);
      expect(patched.body.status.error).toMatch(message);
    }
    expect((await server.request('GET', '/collections/refused')).status).toBe(404);
    const client = server.client;
    const refused = client.createCollection('refused', { vectors: { size: 4, distance: 'Dot' }, quantization_config: { scalar: { type: 'int8', always_ram: 'yes' as unknown as boolean } } });
    await expect(refused).rejects.toMatchObject({ status: 400 });
    // The rejected PATCHes changed nothing.
    expect((await client.getCollection('codes')).config.quantization_config).toEqual({ scalar: { type: 'int8', always_ram: false } });
  });

  it('restart after SIGTERM and SIGKILL — mapped codes are rebuilt from the stored vectors and the collection keeps answering', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'quiver-always-ram-'));
    const environment = { QUIVER__STORAGE__CHECKPOINT_OPERATIONS: '3' };
    let child = await startChildServer(directory, environment);
    try {
      await waitUntilReady(child.url);
      const created = await call(child.url, 'PUT', '/collections/kept', {
        vectors: {
          int8: { size: dimension, distance: 'Cosine', on_disk: true, quantization_config: { scalar: { type: 'int8', always_ram: false } } },
          binary: { size: dimension, distance: 'Cosine', on_disk: true, quantization_config: { binary: { always_ram: false } } },
        },
        ...graphInUseConfig,
      });
      expect(created.status).toBe(200);
      const named = points.map((point) => ({ id: point.id, vector: { int8: point.vector, binary: point.vector } }));
      for (let start = 0; start < 1000; start += 250) {
        expect((await call(child.url, 'PUT', '/collections/kept/points?wait=true', { points: named.slice(start, start + 250) })).status).toBe(200);
      }
      await child.kill('SIGTERM');
      child = await startChildServer(directory, environment);
      await waitUntilReady(child.url);
      for (let start = 1000; start < named.length; start += 250) {
        expect((await call(child.url, 'PUT', '/collections/kept/points?wait=true', { points: named.slice(start, start + 250) })).status).toBe(200);
      }
      await waitGreen(child.url, 'kept');
      const beforeKill = await kernelMemory('kept', child.url);
      await child.kill('SIGKILL');
      child = await startChildServer(directory, environment);
      await waitUntilReady(child.url);
      await waitGreen(child.url, 'kept');
      const info = await call(child.url, 'GET', '/collections/kept');
      expect(info.body.result.points_count).toBe(points.length);
      expect(info.body.result.config.params.vectors.int8.quantization_config).toEqual({ scalar: { type: 'int8', always_ram: false } });
      const memory = info.body.result.kernel_memory as KernelMemory;
      // Two mapped arenas and both vectors' codes, rebuilt in mapped memory after the kill.
      expect(memory.mapped_bytes).toBeGreaterThanOrEqual(2 * points.length * dimension * 4 + int8CodeBytes + points.length * 4);
      // Not the same figure as before the kill: the rows each checkpoint held are read in place
      // from it (counted row by row, docs/architecture.md §15) and the later ones fill working
      // files from their first segment, so the layout differs; but never more than both vectors'
      // rows over what was mapped before.
      expect(memory.mapped_bytes).toBeLessThanOrEqual(beforeKill.mapped_bytes + 2 * points.length * dimension * 4);
      expectRescoredAndRecalled(await answers('kept', 'int8', child.url));
      expectRescoredAndRecalled(await answers('kept', 'binary', child.url, 20));
    } finally {
      await child.kill('SIGKILL');
      await rm(directory, { recursive: true, force: true });
    }
  }, 120_000);
});
