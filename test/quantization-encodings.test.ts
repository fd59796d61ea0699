// Binary encodings two_bits / one_and_half_bits and the asymmetric query encodings
// scalar8bits / scalar4bits (docs/api.md §15): created by raw HTTP, by the official JS client and
// over a restart, searched with rescoring; recall is checked against an exact reference computed
// here. The data is embedding-like (points of a low-rank subspace plus noise), where bits centred
// on each dimension's mean carry the neighbour order; tight clusters of near-equidistant points
// do not (bench/README.md, "Quantized search").
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QdrantClient } from '@qdrant/js-client-rest';
import { describe, expect, it } from 'vitest';
import { startChildServer, waitUntilReady } from './support/child-server.js';
import { call } from './support/http-call.js';
import { exactTopIds, graphInUseConfig, recallOf, referenceScore } from './support/search-data.js';
import { mulberry32 } from './support/seeded-random.js';
import { serverForFile } from './support/server.js';
import { waitGreen } from './support/wait-green.js';

const server = serverForFile();
const dimension = 64;

/** `count` points of a random rank-8 subspace of 64-d plus a little noise; queries near stored points. */
function subspaceDataset(count: number, seed: number): { points: { id: number; vector: number[] }[]; queries: number[][] } {
  const random = mulberry32(seed);
  const normal = (): number => Math.sqrt(-2 * Math.log(random() + 1e-12)) * Math.cos(2 * Math.PI * random());
  const rank = 8;
  const basis = Array.from({ length: rank }, () => Array.from({ length: dimension }, normal));
  const points = Array.from({ length: count }, (_, id) => {
    const weights = Array.from({ length: rank }, normal);
    return { id, vector: Array.from({ length: dimension }, (_, d) => weights.reduce((sum, weight, r) => sum + weight * basis[r]![d]!, 0) + 0.2 * normal()) };
  });
  const queries = Array.from({ length: 20 }, (_, position) => points[position * 53]!.vector.map((value) => value + 0.2 * normal()));
  return { points, queries };
}

const { points, queries } = subspaceDataset(2000, 19);
const truth = queries.map((query) => exactTopIds('Cosine', points, query, 10));

/** Recall@10 of rescored searches with oversampling 3, checking each returned score against the reference. */
async function measuredRecall(url: string, name: string): Promise<number> {
  const found: number[][] = [];
  for (const query of queries) {
    const response = await call(url, 'POST', `/collections/${name}/points/query`, {
      query,
      limit: 10,
      params: { quantization: { rescore: true, oversampling: 3 } },
    });
    expect(response.status).toBe(200);
    const hits = response.body.result.points as { id: number; score: number }[];
    for (const hit of hits) expect(hit.score).toBeCloseTo(referenceScore('Cosine', query, points[hit.id]!.vector), 5);
    found.push(hits.map((hit) => hit.id));
  }
  return recallOf(found, truth);
}

describe('binary encodings and asymmetric query encodings', () => {
  // Each (encoding, query_encoding) pair with its recall floor at oversampling 3 (measured
  // 0.895-0.995 on this data, 2026-11-24; the floors leave room for a graph built in another order).
  const modes: [string, string | undefined, number][] = [
    ['two_bits', undefined, 0.85],
    ['one_and_half_bits', 'binary', 0.85],
    ['one_bit', 'scalar8bits', 0.85],
    ['two_bits', 'scalar4bits', 0.85],
    ['one_and_half_bits', 'scalar8bits', 0.85],
  ];

  for (const [encoding, queryEncoding, floor] of modes) {
    it(`raw HTTP — binary ${encoding} with query_encoding ${queryEncoding ?? 'absent'}: created, echoed, rescored recall@10 ≥ ${floor} with exact scores`, async () => {
      const name = `enc_${encoding}_${queryEncoding ?? 'none'}`;
      const binary = queryEncoding === undefined ? { encoding } : { encoding, query_encoding: queryEncoding };
      const created = await server.request('PUT', `/collections/${name}`, {
        vectors: { size: dimension, distance: 'Cosine' },
        quantization_config: { binary },
        ...graphInUseConfig,
      });
      expect(created.status).toBe(200);
      expect((await server.request('PUT', `/collections/${name}/points?wait=true`, { points })).status).toBe(200);
      await waitGreen(server.url, name);
      const info = await server.request('GET', `/collections/${name}`);
      expect(info.body.result.config.quantization_config).toEqual({ binary });
      expect(await measuredRecall(server.url, name)).toBeGreaterThanOrEqual(floor);
    }, 90_000);
  }

  it('JS client — two_bits with a scalar4bits query: query with params.quantization keeps recall and exact scores', async () => {
    const client: QdrantClient = server.client;
    await client.createCollection('client_two_bits', {
      vectors: { size: dimension, distance: 'Cosine' },
      quantization_config: { binary: { encoding: 'two_bits', query_encoding: 'scalar4bits', always_ram: true } },
      ...graphInUseConfig,
    });
    await client.upsert('client_two_bits', { wait: true, points });
    await waitGreen(server.url, 'client_two_bits');
    const info = await client.getCollection('client_two_bits');
    expect(info.config.quantization_config).toEqual({ binary: { encoding: 'two_bits', query_encoding: 'scalar4bits', always_ram: true } });
    const found: number[][] = [];
    for (const query of queries) {
      const { points: hits } = await client.query('client_two_bits', { query, limit: 10, params: { quantization: { rescore: true, oversampling: 3 } } });
      for (const hit of hits) expect(hit.score).toBeCloseTo(referenceScore('Cosine', query, points[Number(hit.id)]!.vector), 5);
      found.push(hits.map((hit) => Number(hit.id)));
    }
    expect(recallOf(found, truth)).toBeGreaterThanOrEqual(0.85);
    // rescore false: the codes' estimates, in the float score's order of magnitude.
    const { points: estimated } = await client.query('client_two_bits', { query: queries[0]!, limit: 5, params: { quantization: { rescore: false } } });
    expect(estimated.length).toBe(5);
    for (const hit of estimated) expect(Number.isFinite(hit.score)).toBe(true);
  }, 90_000);

  it('PATCH — switching a collection to one_and_half_bits with scalar8bits rebuilds its codes and keeps recall', async () => {
    const client: QdrantClient = server.client;
    await client.createCollection('patched', { vectors: { size: dimension, distance: 'Cosine' }, ...graphInUseConfig });
    await client.upsert('patched', { wait: true, points });
    await client.updateCollection('patched', { quantization_config: { binary: { encoding: 'one_and_half_bits', query_encoding: 'scalar8bits' } } });
    await waitGreen(server.url, 'patched');
    expect(await measuredRecall(server.url, 'patched')).toBeGreaterThanOrEqual(0.85);
  }, 90_000);

  it('bad encodings — an unknown encoding or query_encoding is a 400 naming the field, and nothing is created', async () => {
    for (const [binary, field] of [
      [{ encoding: 'three_bits' }, /quantization_config/],
      [{ query_encoding: 'scalar2bits' }, /quantization_config/],
    ] as const) {
      const response = await server.request('PUT', '/collections/refused_encoding', { vectors: { size: 4, distance: 'Dot' }, quantization_config: { binary } });
      expect(response.status, JSON.stringify(binary)).toBe(400);
      expect(response.body.status.error).toMatch(field);
      expect(response.body.status.error).toMatch(binary.encoding !== undefined ? /encoding/ : /query_encoding/);
    }
    expect((await server.request('GET', '/collections/refused_encoding')).status).toBe(404);
  });

  it('restart and SIGKILL — a two_bits / scalar8bits collection comes back with its codes rebuilt and its recall', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'quiver-encodings-'));
    let child = await startChildServer(directory);
    try {
      await waitUntilReady(child.url);
      const binary = { encoding: 'two_bits', query_encoding: 'scalar8bits' };
      await call(child.url, 'PUT', '/collections/kept', { vectors: { size: dimension, distance: 'Cosine' }, quantization_config: { binary }, ...graphInUseConfig });
      expect((await call(child.url, 'PUT', '/collections/kept/points?wait=true', { points: points.slice(0, 1000) })).status).toBe(200);
      await child.kill('SIGTERM');
      child = await startChildServer(directory);
      await waitUntilReady(child.url);
      expect((await call(child.url, 'PUT', '/collections/kept/points?wait=true', { points: points.slice(1000) })).status).toBe(200);
      await child.kill('SIGKILL');
      child = await startChildServer(directory);
      await waitUntilReady(child.url);
      const info = await call(child.url, 'GET', '/collections/kept');
      expect(info.body.result.points_count).toBe(points.length);
      expect(info.body.result.config.quantization_config).toEqual({ binary });
      await waitGreen(child.url, 'kept');
      expect(await measuredRecall(child.url, 'kept')).toBeGreaterThanOrEqual(0.85);
    } finally {
      await child.kill('SIGKILL');
      await rm(directory, { recursive: true, force: true });
    }
  }, 150_000);
});
