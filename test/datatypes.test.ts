// Dense vector datatypes (docs/api.md §21, docs/architecture.md §18): `float16` and `uint8` are
// stored in 2 and 1 bytes per component; with_vector gives the stored values back (float16
// rounded, uint8 the integers sent); scores are those of the stored values, checked against a
// slow reference written here; values that do not fit are a 400 naming the component.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startChildServer, waitUntilReady } from './support/child-server.js';
import { call } from './support/http-call.js';
import { bruteForce, clusteredVectors, exactTopIds, graphInUseConfig, recallOf, referenceScore, type DistanceName } from './support/search-data.js';
import { serverForFile } from './support/server.js';
import { waitGreen } from './support/wait-green.js';

const server = serverForFile();
const dimension = 24;

/** Every finite float16, decoded from its bits by the definition, sorted: the rounding reference. */
const float16Values: { value: number; bits: number }[] = (() => {
  const values: { value: number; bits: number }[] = [];
  for (let bits = 0; bits < 0x8000; bits++) {
    const exponent = bits >> 10;
    const mantissa = bits & 0x3ff;
    if (exponent === 31) continue;
    const magnitude = exponent === 0 ? mantissa * 2 ** -24 : (1 + mantissa / 1024) * 2 ** (exponent - 15);
    values.push({ value: magnitude, bits }, { value: -magnitude, bits: bits | 0x8000 });
  }
  return values.sort((left, right) => left.value - right.value);
})();

/** The nearest float16 to `value` (ties to the even bit pattern), by search over every value. */
function nearestFloat16(value: number): number {
  let low = 0;
  let high = float16Values.length - 1;
  while (high - low > 1) {
    const middle = (low + high) >> 1;
    if (float16Values[middle]!.value <= value) low = middle;
    else high = middle;
  }
  const [below, above] = [float16Values[low]!, float16Values[high]!];
  const [toBelow, toAbove] = [Math.abs(value - below.value), Math.abs(above.value - value)];
  if (toBelow !== toAbove) return toBelow < toAbove ? below.value : above.value;
  return (below.bits & 1) === 0 ? below.value : above.value;
}

/** As the kernel stores a vector: Cosine scaled to unit length in float32, then rounded. */
function storedFloat16(distance: DistanceName, vector: number[]): number[] {
  const fround = vector.map(Math.fround);
  if (distance !== 'Cosine') return fround.map(nearestFloat16);
  const norm = Math.fround(Math.sqrt(fround.reduce((sum, value) => sum + value * value, 0)));
  return fround.map((value) => nearestFloat16(Math.fround(value * Math.fround(1 / norm))));
}

const float16Vectors = clusteredVectors(21, 1500, dimension, 12);
const uint8Vectors = clusteredVectors(22, 1500, dimension, 12).map((vector) => vector.map((value) => Math.min(255, Math.max(0, Math.round(value * 20 + 128)))));
/** Values as float32 (the server prints the shortest float32 form, e.g. 0.061279297). */
const asFloat32 = (values: unknown) => (values as number[]).map(Math.fround);

const queriesOf = (vectors: number[][]) => vectors.filter((_, position) => position % 97 === 3).map((vector) => vector.map((value, position) => value + (position % 3) - 1));

describe('float16 and uint8 vectors', () => {
  it('uint8 — raw HTTP: GET C shows the datatype, with_vector gives the integers back, and Cosine scores are the cosine of the integers', async () => {
    const created = await server.request('PUT', '/collections/bytes', { vectors: { size: dimension, distance: 'Cosine', datatype: 'uint8' }, ...graphInUseConfig });
    expect(created.status).toBe(200);
    const points = uint8Vectors.map((vector, id) => ({ id, vector }));
    for (let start = 0; start < points.length; start += 500) {
      expect((await server.request('PUT', '/collections/bytes/points?wait=true', { points: points.slice(start, start + 500) })).status).toBe(200);
    }
    const info = (await server.request('GET', '/collections/bytes')).body.result;
    expect(info.config.params.vectors.datatype).toBe('uint8');
    const records = (await server.request('POST', '/collections/bytes/points', { ids: [0, 7, 1499], with_vector: true })).body.result;
    for (const record of records as { id: number; vector: number[] }[]) expect(record.vector).toEqual(uint8Vectors[record.id]);
    const queries = queriesOf(uint8Vectors);
    const found: number[][] = [];
    const truth: number[][] = [];
    for (const query of queries) {
      const reference = bruteForce('Cosine', query, uint8Vectors, 10);
      const exact = (await server.request('POST', '/collections/bytes/points/search', { vector: query, limit: 10, params: { exact: true } })).body.result;
      exact.forEach((hit: { id: number; score: number }, position: number) => {
        expect(hit.score).toBeCloseTo(reference[position]!.score, 4);
        expect(hit.score).toBeCloseTo(referenceScore('Cosine', query, uint8Vectors[hit.id]!), 4);
      });
      const walked = (await server.request('POST', '/collections/bytes/points/search', { vector: query, limit: 10 })).body.result;
      found.push(walked.map((hit: { id: number }) => hit.id));
      truth.push(reference.map((hit) => hit.id));
    }
    expect(recallOf(found, truth)).toBeGreaterThanOrEqual(0.9);
  });

  it('uint8 — values outside 0..255 or not integers are a 400 naming points[i].vector[j], and nothing of the batch is written', async () => {
    const before = (await server.request('POST', '/collections/bytes/points/count', { exact: true })).body.result.count;
    const good = (id: number) => ({ id: 10_000 + id, vector: Array.from({ length: dimension }, (_, position) => (position * 7) % 256) });
    for (const bad of [256, -1, 2.5]) {
      const points = [good(0), good(1), good(2), { ...good(3), vector: good(3).vector.map((value, position) => (position === 5 ? bad : value)) }];
      const response = await server.request('PUT', '/collections/bytes/points?wait=true', { points });
      expect(response.status).toBe(400);
      expect(response.body.status.error).toMatch(/points\[3\]\.vector\[5\]/);
      expect(response.body.status.error).toMatch(/uint8/);
    }
    const batch = await server.request('PUT', '/collections/bytes/points?wait=true', { batch: { ids: [20_000], vectors: [good(0).vector.map((value, position) => (position === 2 ? 300 : value))] } });
    expect(batch.status).toBe(400);
    expect((await server.request('POST', '/collections/bytes/points/count', { exact: true })).body.result.count).toBe(before);
  });

  it('float16 — the JS client creates it; with_vector gives the values rounded to float16 and exact scores are those of the rounded values', async () => {
    const client = server.client;
    await client.createCollection('halves', { vectors: { size: dimension, distance: 'Euclid', datatype: 'float16' }, ...graphInUseConfig });
    await client.createCollection('halves_cosine', { vectors: { size: dimension, distance: 'Cosine', datatype: 'float16' } });
    const points = float16Vectors.map((vector, id) => ({ id, vector }));
    for (let start = 0; start < points.length; start += 500) {
      await client.upsert('halves', { wait: true, points: points.slice(start, start + 500) });
      await client.upsert('halves_cosine', { wait: true, points: points.slice(start, start + 500) });
    }
    const info = await client.getCollection('halves');
    expect((info.config.params.vectors as { datatype?: string }).datatype).toBe('float16');
    for (const [name, distance] of [['halves', 'Euclid'], ['halves_cosine', 'Cosine']] as const) {
      const records = await client.retrieve(name, { ids: [0, 3, 1499], with_vector: true });
      for (const record of records) expect(asFloat32(record.vector)).toEqual(storedFloat16(distance, float16Vectors[Number(record.id)]!));
    }
    const stored = float16Vectors.map((vector) => storedFloat16('Euclid', vector));
    const queries = queriesOf(float16Vectors);
    const found: number[][] = [];
    for (const query of queries) {
      const exact = await client.query('halves', { query, limit: 10, params: { exact: true } });
      const reference = bruteForce('Euclid', query, stored, 10);
      exact.points.forEach((hit, position) => expect(hit.score).toBeCloseTo(reference[position]!.score, 3));
      found.push((await client.query('halves', { query, limit: 10 })).points.map((hit) => Number(hit.id)));
    }
    expect(recallOf(found, queries.map((query) => exactTopIds('Euclid', float16Vectors.map((vector, id) => ({ id, vector })), query, 10)))).toBeGreaterThanOrEqual(0.9);
  });

  it('float16 — a magnitude above 65504 is a 400 naming the component (not stored as infinity)', async () => {
    const vector = Array.from({ length: dimension }, () => 1);
    vector[4] = 70000;
    const response = await server.request('PUT', '/collections/halves/points?wait=true', { points: [{ id: 99_999, vector }] });
    expect(response.status).toBe(400);
    expect(response.body.status.error).toMatch(/points\[0\]\.vector\[4\].*float16/);
    vector[4] = -65504;
    expect((await server.request('PUT', '/collections/halves/points?wait=true', { points: [{ id: 99_999, vector }] })).status).toBe(200);
    const record = (await server.request('GET', '/collections/halves/points/99999')).body.result;
    expect(record.vector[4]).toBe(-65504);
    expect((await server.request('POST', '/collections/halves/points/delete?wait=true', { points: [99_999] })).status).toBe(200);
  });

  it('named vectors — a uint8 vector beside a float32 one: the 400 names vector.name[j]; adding a float16 vector by PUT /vectors works', async () => {
    const created = await server.request('PUT', '/collections/mixed', { vectors: { plain: { size: 3, distance: 'Dot' }, bytes: { size: 3, distance: 'Dot', datatype: 'uint8' } } });
    expect(created.status).toBe(200);
    const refused = await server.request('PUT', '/collections/mixed/points?wait=true', { points: [{ id: 1, vector: { plain: [0.5, 1, 2], bytes: [1, 2, 3.5] } }] });
    expect(refused.status).toBe(400);
    expect(refused.body.status.error).toMatch(/points\[0\]\.vector\.bytes\[2\]/);
    expect((await server.request('PUT', '/collections/mixed/points?wait=true', { points: [{ id: 1, vector: { plain: [0.5, 1, 2], bytes: [1, 2, 3] } }] })).status).toBe(200);
    expect((await server.request('PUT', '/collections/mixed/vectors/half', { dense: { size: 2, distance: 'Euclid', datatype: 'float16' } })).status).toBe(200);
    const info = (await server.request('GET', '/collections/mixed')).body.result;
    expect(info.config.params.vectors.half.datatype).toBe('float16');
    expect(info.config.params.vectors.bytes.datatype).toBe('uint8');
    expect((await server.request('PUT', '/collections/mixed/points/vectors?wait=true', { points: [{ id: 1, vector: { half: [0.1, 1e5] } }] })).status).toBe(400);
    expect((await server.request('PUT', '/collections/mixed/points/vectors?wait=true', { points: [{ id: 1, vector: { half: [0.1, 3] } }] })).status).toBe(200);
    const record = (await server.request('GET', '/collections/mixed/points/1')).body.result;
    expect({ ...record.vector, half: asFloat32(record.vector.half) }).toEqual({ plain: [0.5, 1, 2], bytes: [1, 2, 3], half: [nearestFloat16(Math.fround(0.1)), 3] });
  });

  it('turbo4 — Qdrant v1.19\'s TurboQuant datatype is a 400 naming the field as not supported, on create and on PUT /vectors, and nothing is made', async () => {
    const refusals = [
      await server.request('PUT', '/collections/turbo', { vectors: { size: 8, distance: 'Cosine', datatype: 'turbo4' } }),
      await server.request('PUT', '/collections/turbo', { vectors: { text: { size: 8, distance: 'Cosine', datatype: 'turbo4' } } }),
    ];
    expect(refusals.map((response) => response.status)).toEqual([400, 400]);
    expect(refusals[0]!.body.status.error).toMatch(/^vectors\.datatype: datatype turbo4 \(TurboQuant, 4 bits per element\) is not supported/);
    expect(refusals[1]!.body.status.error).toMatch(/^vectors\.text\.datatype: datatype turbo4 .* is not supported/);
    expect((await server.request('GET', '/collections/turbo')).status).toBe(404);
    await server.request('PUT', '/collections/turbo_named', { vectors: { plain: { size: 3, distance: 'Dot' } } });
    const added = await server.request('PUT', '/collections/turbo_named/vectors/compact', { dense: { size: 8, distance: 'Cosine', datatype: 'turbo4' } });
    expect(added.status).toBe(400);
    expect(added.body.status.error).toMatch(/dense\.datatype: datatype turbo4 .* is not supported/);
    expect(Object.keys((await server.request('GET', '/collections/turbo_named')).body.result.config.params.vectors)).toEqual(['plain']);
  });

  it('MMR, search matrix and int8 quantization with rescoring work on uint8 and float16 vectors', async () => {
    const probe = uint8Vectors[11]!;
    const mmr = await server.request('POST', '/collections/bytes/points/query', { query: { nearest: probe, mmr: { diversity: 0.5, candidates_limit: 40 } }, limit: 6 });
    expect(mmr.status).toBe(200);
    expect(mmr.body.result.points[0].id).toBe(11);
    expect(mmr.body.result.points).toHaveLength(6);
    const pairs = await server.request('POST', '/collections/halves/points/search/matrix/pairs', { sample: 30, limit: 2 });
    expect(pairs.status).toBe(200);
    expect(pairs.body.result.pairs.length).toBeGreaterThan(0);
    const stored = float16Vectors.map((vector) => storedFloat16('Euclid', vector));
    for (const pair of pairs.body.result.pairs.slice(0, 10) as { a: number; b: number; score: number }[]) {
      expect(pair.score).toBeCloseTo(referenceScore('Euclid', stored[pair.a]!, stored[pair.b]!), 3);
    }
    await server.client.createCollection('bytes_int8', { vectors: { size: dimension, distance: 'Cosine', datatype: 'uint8' }, quantization_config: { scalar: { type: 'int8' } }, ...graphInUseConfig });
    const points = uint8Vectors.map((vector, id) => ({ id, vector }));
    for (let start = 0; start < points.length; start += 500) await server.client.upsert('bytes_int8', { wait: true, points: points.slice(start, start + 500) });
    await waitGreen(server.client, 'bytes_int8');
    const found: number[][] = [];
    const queries = queriesOf(uint8Vectors);
    for (const query of queries) {
      const { points: hits } = await server.client.query('bytes_int8', { query, limit: 10, params: { quantization: { rescore: true, oversampling: 3 } } });
      for (const hit of hits) expect(hit.score).toBeCloseTo(referenceScore('Cosine', query, uint8Vectors[Number(hit.id)]!), 4);
      found.push(hits.map((hit) => Number(hit.id)));
    }
    expect(recallOf(found, queries.map((query) => bruteForce('Cosine', query, uint8Vectors, 10).map((hit) => hit.id)))).toBeGreaterThanOrEqual(0.9);
  });

  it('restart and SIGKILL — float16 and uint8 values come back bit for bit, from the checkpoint and from the store', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'quiver-datatypes-'));
    const environment = { QUIVER__STORAGE__CHECKPOINT_OPERATIONS: '3' };
    let child = await startChildServer(directory, environment);
    try {
      await waitUntilReady(child.url);
      await call(child.url, 'PUT', '/collections/halves', { vectors: { size: dimension, distance: 'Cosine', datatype: 'float16', on_disk: true } });
      await call(child.url, 'PUT', '/collections/bytes', { vectors: { size: dimension, distance: 'Euclid', datatype: 'uint8' } });
      const write = async (from: number, to: number) => {
        for (let start = from; start < to; start += 100) {
          expect((await call(child.url, 'PUT', '/collections/halves/points?wait=true', { points: float16Vectors.slice(start, start + 100).map((vector, offset) => ({ id: start + offset, vector })) })).status).toBe(200);
          expect((await call(child.url, 'PUT', '/collections/bytes/points?wait=true', { points: uint8Vectors.slice(start, start + 100).map((vector, offset) => ({ id: start + offset, vector })) })).status).toBe(200);
        }
      };
      await write(0, 400);
      const ids = [0, 1, 250, 399];
      const before = {
        halves: (await call(child.url, 'POST', '/collections/halves/points', { ids, with_vector: true })).body.result,
        bytes: (await call(child.url, 'POST', '/collections/bytes/points', { ids, with_vector: true })).body.result,
      };
      await child.kill('SIGTERM');
      child = await startChildServer(directory, environment);
      await waitUntilReady(child.url);
      await write(400, 500);
      await child.kill('SIGKILL');
      child = await startChildServer(directory, environment);
      await waitUntilReady(child.url);
      for (const name of ['halves', 'bytes'] as const) {
        const info = (await call(child.url, 'GET', `/collections/${name}`)).body.result;
        expect(info.points_count).toBe(500);
        expect(info.config.params.vectors.datatype).toBe(name === 'halves' ? 'float16' : 'uint8');
        const after = (await call(child.url, 'POST', `/collections/${name}/points`, { ids, with_vector: true })).body.result;
        expect(after).toEqual(before[name]);
        const late = (await call(child.url, 'GET', `/collections/${name}/points/450`)).body.result.vector;
        expect(asFloat32(late)).toEqual(name === 'halves' ? storedFloat16('Cosine', float16Vectors[450]!) : uint8Vectors[450]);
      }
      for (const query of queriesOf(uint8Vectors).slice(0, 5)) {
        const exact = await call(child.url, 'POST', '/collections/bytes/points/search', { vector: query, limit: 10, params: { exact: true } });
        expect(exact.body.result.map((hit: { id: number }) => hit.id)).toEqual(bruteForce('Euclid', query, uint8Vectors.slice(0, 500), 10).map((hit) => hit.id));
      }
    } finally {
      await child.kill('SIGKILL');
      await rm(directory, { recursive: true, force: true });
    }
  }, 120_000);
});
