// optimizers_config.indexing_threshold (docs/api.md §4.3) and GET C/optimizations (§4.6): below
// the threshold (KB of vectors) or at 0 searches are exact and no vector counts as indexed; above
// it the graph is used and indexed_vectors_count follows the background build. Results always
// match a brute-force reference. Raw HTTP and the official JS client.
import { describe, expect, it } from 'vitest';
import type { Collection } from '../src/engine/collection.js';
import { describeOptimizations, parseOptimizationsDetails } from '../src/engine/optimizations.js';
import { mulberry32 } from './support/seeded-random.js';
import { serverForFile } from './support/server.js';

const server = serverForFile();
const random = mulberry32(11);
const dimension = 4;

function points(from: number, count: number): { id: number; vector: number[] }[] {
  return Array.from({ length: count }, (_, position) => ({ id: from + position, vector: Array.from({ length: dimension }, () => random() * 2 - 1) }));
}

/** Slow reference: the ids of the `limit` smallest Euclidean distances to `query`. */
function reference(stored: { id: number; vector: number[] }[], query: number[], limit: number): number[] {
  const distance = (vector: number[]) => Math.sqrt(vector.reduce((sum, value, position) => sum + (value - query[position]!) ** 2, 0));
  return [...stored].sort((left, right) => distance(left.vector) - distance(right.vector)).slice(0, limit).map((point) => point.id);
}

async function waitIndexed(name: string): Promise<void> {
  await server.app.collections.get(name).waitIndexed();
}

describe('indexing_threshold', () => {
  it('below the threshold searches are exact and nothing is indexed; above it the graph is built and counted', async () => {
    // 1 KB = 64 vectors of 4 floats: the graph is used from the 65th vector on.
    expect(await server.client.createCollection('threshold', { vectors: { size: dimension, distance: 'Euclid' }, optimizers_config: { indexing_threshold: 1 } })).toBe(true);
    const stored = points(0, 60);
    await server.client.upsert('threshold', { wait: true, points: stored });
    await waitIndexed('threshold');
    let info = await server.client.getCollection('threshold');
    expect(info.indexed_vectors_count).toBe(0);
    expect(info.status).toBe('green');
    const query = [0.1, -0.2, 0.3, 0];
    expect((await server.client.query('threshold', { query, limit: 10 })).points.map((point) => point.id)).toEqual(reference(stored, query, 10));

    stored.push(...points(60, 140));
    await server.client.upsert('threshold', { wait: true, points: stored.slice(60) });
    await waitIndexed('threshold');
    info = await server.client.getCollection('threshold');
    expect(info.indexed_vectors_count).toBe(200);
    expect(info.status).toBe('green');
    expect((await server.client.query('threshold', { query, limit: 10, params: { exact: true } })).points.map((point) => point.id)).toEqual(reference(stored, query, 10));
  });

  it('0 disables the graph: indexed_vectors_count stays 0 and results are exact; PATCH turns it on', async () => {
    const created = await server.request('PUT', '/collections/no-graph', { vectors: { size: dimension, distance: 'Euclid' }, optimizers_config: { indexing_threshold: 0 } });
    expect(created.status).toBe(200);
    const stored = points(0, 300);
    await server.client.upsert('no-graph', { wait: true, points: stored });
    await waitIndexed('no-graph');
    expect((await server.client.getCollection('no-graph')).indexed_vectors_count).toBe(0);
    for (const query of [[0, 0, 0, 0], [1, -1, 0.5, 0.25], [-0.9, 0.3, 0.1, 0.7]]) {
      const found = await server.request('POST', '/collections/no-graph/points/search', { vector: query, limit: 10, params: { hnsw_ef: 1 } });
      expect(found.body.result.map((point: { id: number }) => point.id)).toEqual(reference(stored, query, 10));
    }
    expect(await server.client.updateCollection('no-graph', { optimizers_config: { indexing_threshold: 1 } })).toBe(true);
    await waitIndexed('no-graph');
    expect((await server.client.getCollection('no-graph')).indexed_vectors_count).toBe(300);
  });
});

describe('collection info — warnings and update_queue', () => {
  it('GET C — warnings is a list and update_queue holds the queue length, as v1.19 shows them', async () => {
    await server.client.createCollection('info-shape', { vectors: { size: 2, distance: 'Dot' } });
    const info = await server.request('GET', '/collections/info-shape');
    expect(info.body.result.warnings).toEqual([]);
    expect(info.body.result.update_queue).toEqual({ length: 0 });
    const fromClient = await server.client.getCollection('info-shape');
    expect(fromClient.update_queue).toEqual({ length: 0 });
  });
});

describe('GET C/optimizations', () => {
  it('an idle collection — an empty running list, and the asked-for details', async () => {
    await server.client.createCollection('optimized', { vectors: { size: 2, distance: 'Dot' } });
    await server.client.upsert('optimized', { wait: true, points: [{ id: 1, vector: [1, 2] }] });
    const plain = await server.request('GET', '/collections/optimized/optimizations');
    expect(plain.status).toBe(200);
    expect(plain.body.result).toEqual({ summary: { queued_optimizations: 0, queued_segments: 0, queued_points: 0, idle_segments: 1 }, running: [] });
    const detailed = await server.request('GET', '/collections/optimized/optimizations?with=queued,completed,idle_segments&completed_limit=5');
    expect(detailed.body.result).toMatchObject({ running: [], queued: [], completed: [], idle_segments: [{ uuid: expect.any(String), points_count: 1 }] });
  });

  it('a bad `with` is a 400 naming it; a missing collection is a 404', async () => {
    const bad = await server.request('GET', '/collections/optimized/optimizations?with=everything');
    expect(bad.status).toBe(400);
    expect(bad.body.status.error).toContain('with');
    expect((await server.request('GET', '/collections/no-such/optimizations')).status).toBe(404);
  });

  it('a graph still being built is one running indexing optimization with progress per vector name', () => {
    // A stand-in collection mid-build: what the kernel reports while it links vectors.
    const building = {
      number: 3,
      pointCount: 500,
      indexingProgress: () => ({
        vectors: [
          { name: 'image', linked: 120, total: 500, graphInUse: true },
          { name: 'text', linked: 500, total: 500, graphInUse: true },
          { name: 'small', linked: 0, total: 10, graphInUse: false },
        ],
        checkpointing: true,
      }),
    } as unknown as Collection;
    const report = describeOptimizations(building, parseOptimizationsDetails('idle_segments'));
    expect(report).toEqual({
      summary: { queued_optimizations: 0, queued_segments: 0, queued_points: 0, idle_segments: 0 },
      running: [
        {
          uuid: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
          optimizer: 'indexing',
          status: 'optimizing',
          segments: [{ uuid: expect.any(String), points_count: 500 }],
          progress: {
            name: 'indexing',
            done: 120,
            total: 500,
            children: [
              { name: 'vector_index: image', done: 120, total: 500, children: [] },
              { name: 'checkpoint', children: [] },
            ],
          },
        },
      ],
      idle_segments: [],
    });
  });
});
