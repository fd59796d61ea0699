// Quantization (docs/api.md §15): scalar int8 and binary one_bit codes searched through the
// graph, then rescored with the original vectors. Raw HTTP and the official JS client; recall
// is checked against an exact reference computed here; bad shapes are 400s naming the field.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QdrantClient } from '@qdrant/js-client-rest';
import { describe, expect, it } from 'vitest';
import { startChildServer, waitUntilReady } from './support/child-server.js';
import { call } from './support/http-call.js';
import { clusteredDataset, exactTopIds, graphInUseConfig, recallOf, referenceScore } from './support/search-data.js';
import { serverForFile } from './support/server.js';
import { waitGreen as waitGreenOf } from './support/wait-green.js';

const server = serverForFile();
const dimension = 32;

const dataset = (count: number, seed: number) => clusteredDataset({ count, seed, dimension, clusters: 12, queries: 20, stride: 37 });

const waitGreen = (name: string) => waitGreenOf(server.client, name);

describe('quantization', () => {
  const { points, queries } = dataset(2400, 5);
  const truth = queries.map((query) => exactTopIds('Cosine', points, query, 10));

  it('scalar int8 — the JS client creates it, GET shows it, and rescored search keeps recall ≥ 0.9 with exact scores', async () => {
    const client: QdrantClient = server.client;
    await client.createCollection('int8', {
      vectors: { size: dimension, distance: 'Cosine' },
      quantization_config: { scalar: { type: 'int8', quantile: 0.99, always_ram: true } },
      ...graphInUseConfig,
    });
    await client.upsert('int8', { wait: true, points });
    await waitGreen('int8');
    const info = await client.getCollection('int8');
    expect(info.config.quantization_config).toEqual({ scalar: { type: 'int8', quantile: 0.99, always_ram: true } });
    const found: number[][] = [];
    for (const query of queries) {
      const { points: hits } = await client.query('int8', { query, limit: 10, params: { quantization: { rescore: true, oversampling: 4 } } });
      found.push(hits.map((hit) => Number(hit.id)));
      // Rescored: each score is the float cosine, not an estimate.
      for (const hit of hits) expect(hit.score).toBeCloseTo(referenceScore('Cosine', query, points[Number(hit.id)]!.vector), 5);
    }
    expect(recallOf(found, truth)).toBeGreaterThanOrEqual(0.9);
    // rescore false: the codes' estimates come back, close to the float scores but not them.
    const { points: estimated } = await client.query('int8', { query: queries[0]!, limit: 10, params: { quantization: { rescore: false } } });
    const differences = estimated.map((hit) => Math.abs(hit.score - referenceScore('Cosine', queries[0]!, points[Number(hit.id)]!.vector)));
    expect(Math.max(...differences)).toBeLessThan(0.05);
    expect(Math.max(...differences)).toBeGreaterThan(1e-6);
    // The same option inside a prefetch reaches the kernel too (its candidates feed the root).
    const { points: prefetched } = await client.query('int8', {
      prefetch: [{ query: queries[0]!, limit: 20, params: { quantization: { oversampling: 2 } } }],
      query: queries[0]!,
      limit: 10,
    });
    expect(recallOf([prefetched.map((hit) => Number(hit.id))], [truth[0]!])).toBeGreaterThanOrEqual(0.9);
    // ignore: the float graph answers, as without quantization.
    const { points: ignored } = await client.query('int8', { query: queries[0]!, limit: 10, params: { quantization: { ignore: true } } });
    expect(recallOf([ignored.map((hit) => Number(hit.id))], [truth[0]!])).toBeGreaterThanOrEqual(0.9);
  });

  it('binary one_bit — raw HTTP query with params.quantization: recall rises with oversampling and stays ≥ 0.7 at 10', async () => {
    const created = await server.request('PUT', '/collections/binary', {
      vectors: { size: dimension, distance: 'Cosine', quantization_config: { binary: { encoding: 'one_bit', always_ram: true } } },
      ...graphInUseConfig,
    });
    expect(created.status).toBe(200);
    expect((await server.request('PUT', '/collections/binary/points?wait=true', { points })).status).toBe(200);
    await waitGreen('binary');
    const measured = async (oversampling: number): Promise<number> => {
      const found: number[][] = [];
      for (const query of queries) {
        const response = await server.request('POST', '/collections/binary/points/query', { query, limit: 10, params: { quantization: { oversampling } } });
        expect(response.status).toBe(200);
        found.push(response.body.result.points.map((point: { id: number }) => point.id));
      }
      return recallOf(found, truth);
    };
    const low = await measured(1);
    const high = await measured(10);
    expect(high).toBeGreaterThanOrEqual(0.7);
    expect(high).toBeGreaterThanOrEqual(low);
    const info = await server.request('GET', '/collections/binary');
    expect(info.body.result.config.params.vectors.quantization_config).toEqual({ binary: { encoding: 'one_bit', always_ram: true } });
  });

  it('PATCH — switching int8 on and off keeps the nearest point found, and the collection ends green', async () => {
    const client: QdrantClient = server.client;
    await client.createCollection('switch', { vectors: { size: dimension, distance: 'Cosine' }, ...graphInUseConfig });
    await client.upsert('switch', { wait: true, points });
    const nearest = async (): Promise<number> => Number((await client.query('switch', { query: points[100]!.vector, limit: 1 })).points[0]!.id);
    expect(await nearest()).toBe(100);
    await client.updateCollection('switch', { quantization_config: { scalar: { type: 'int8' } } });
    expect(['yellow', 'green']).toContain((await client.getCollection('switch')).status);
    expect(await nearest()).toBe(100);
    await waitGreen('switch');
    expect(await nearest()).toBe(100);
    expect((await client.getCollection('switch')).config.quantization_config).toEqual({ scalar: { type: 'int8' } });
    await client.updateCollection('switch', { quantization_config: 'Disabled' });
    expect((await client.getCollection('switch')).config.quantization_config).toBeFalsy();
    expect(await nearest()).toBe(100);
  });

  it('bad shapes — 400s naming the field, and nothing is created', async () => {
    const cases: [unknown, RegExp][] = [
      [{ product: { compression: 'x16' } }, /quantization_config\.product: product quantization is not supported/],
      [{ turbo: { bits: 4 } }, /quantization_config\.turbo: turbo quantization \(TurboQuant\) is not supported/],
      [{ binary: { encoding: 'three_bits' } }, /quantization_config\.binary\.encoding/],
      [{ binary: { query_encoding: 'scalar2bits' } }, /quantization_config\.binary\.query_encoding/],
      [{ scalar: { type: 'int8', quantile: 0.2 } }, /quantile/],
    ];
    for (const [quantization, message] of cases) {
      const response = await server.request('PUT', '/collections/refused', { vectors: { size: 4, distance: 'Dot' }, quantization_config: quantization });
      expect(response.status, JSON.stringify(quantization)).toBe(400);
      expect(response.body.status.error).toMatch(message);
    }
    expect((await server.request('GET', '/collections/refused')).status).toBe(404);
    await server.request('PUT', '/collections/searched', { vectors: { size: 4, distance: 'Dot' } });
    const search = await server.request('POST', '/collections/searched/points/search', { vector: [1, 2, 3, 4], limit: 1, params: { quantization: { oversampling: 0.5 } } });
    expect(search.status).toBe(400);
    expect(search.body.status.error).toMatch(/oversampling/);
    // A huge factor is no error: the candidates are capped at the kernel's bound.
    const huge = await server.request('POST', '/collections/searched/points/search', { vector: [1, 2, 3, 4], limit: 1, params: { quantization: { oversampling: 1e12 } } });
    expect(huge.status).toBe(200);
  });

  it('restart and SIGKILL — a quantized collection comes back with its codes rebuilt from the stored vectors', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'quiver-quantization-'));
    let child = await startChildServer(directory);
    try {
      await waitUntilReady(child.url);
      await call(child.url, 'PUT', '/collections/kept', {
        vectors: { size: dimension, distance: 'Cosine' },
        quantization_config: { scalar: { type: 'int8', quantile: 0.99 } },
        ...graphInUseConfig,
      });
      expect((await call(child.url, 'PUT', '/collections/kept/points?wait=true', { points: points.slice(0, 1200) })).status).toBe(200);
      await child.kill('SIGTERM');
      child = await startChildServer(directory);
      await waitUntilReady(child.url);
      expect((await call(child.url, 'PUT', '/collections/kept/points?wait=true', { points: points.slice(1200) })).status).toBe(200);
      await child.kill('SIGKILL');
      child = await startChildServer(directory);
      await waitUntilReady(child.url);
      const info = await call(child.url, 'GET', '/collections/kept');
      expect(info.body.result.points_count).toBe(points.length);
      expect(info.body.result.config.quantization_config).toEqual({ scalar: { type: 'int8', quantile: 0.99 } });
      const found: number[][] = [];
      for (const query of queries) {
        const response = await call(child.url, 'POST', '/collections/kept/points/search', { vector: query, limit: 10, params: { quantization: { oversampling: 4 } } });
        found.push(response.body.result.map((hit: { id: number }) => hit.id));
      }
      expect(recallOf(found, truth)).toBeGreaterThanOrEqual(0.9);
    } finally {
      await child.kill('SIGKILL');
      await rm(directory, { recursive: true, force: true });
    }
  }, 120_000);
});
