// Filtered search planning (docs/api.md §22): whichever way the kernel's planner answers a
// filtered search (exact scan, plain walk, two-hop walk), only allowed points come back and
// recall@10 against an exact reference computed here stays ≥ 0.95, from 1% to 100% allowed.
// Raw HTTP and the official JS client.
import { QdrantClient } from '@qdrant/js-client-rest';
import { describe, expect, it } from 'vitest';
import { clusteredDataset, exactTopIds, graphInUseConfig, recallOf } from './support/search-data.js';
import { serverForFile } from './support/server.js';
import { waitGreen as waitGreenOf } from './support/wait-green.js';

const server = serverForFile();
const dimension = 32;
const { points, queries } = clusteredDataset({ count: 4000, seed: 41, dimension, clusters: 16, queries: 20, stride: 53 });
/** Fields allowing 1%, 10%, 50% and 100% of the points. */
const shares = { one: 100, ten: 10, half: 2, all: 1 } as const;
const payloadOf = (id: number) => Object.fromEntries(Object.entries(shares).map(([field, every]) => [field, id % every === 0]));

const waitGreen = (name: string) => waitGreenOf(server.client, name);

describe('filtered search planning', () => {
  it('filtered search — every selectivity keeps recall ≥ 0.95 and returns only allowed points, over raw HTTP and the JS client', async () => {
    const client: QdrantClient = server.client;
    await client.createCollection('planned', { vectors: { size: dimension, distance: 'Euclid' }, ...graphInUseConfig });
    await client.upsert('planned', { wait: true, points: points.map((point) => ({ ...point, payload: payloadOf(point.id) })) });
    await waitGreen('planned');
    for (const [field, every] of Object.entries(shares)) {
      const allowed = points.filter((point) => point.id % every === 0);
      const truth = queries.map((query) => exactTopIds('Euclid', allowed, query, 10));
      const filter = { must: [{ key: field, match: { value: true } }] };
      const overHttp: number[][] = [];
      const overClient: number[][] = [];
      for (const query of queries) {
        const response = await server.request('POST', '/collections/planned/points/search', { vector: query, limit: 10, filter });
        expect(response.status).toBe(200);
        overHttp.push(response.body.result.map((hit: { id: number }) => hit.id));
        const { points: hits } = await client.query('planned', { query, limit: 10, filter });
        overClient.push(hits.map((hit) => Number(hit.id)));
      }
      for (const ids of [...overHttp, ...overClient]) for (const id of ids) expect(id % every, `${field}: id ${id}`).toBe(0);
      expect(recallOf(overHttp, truth), `${field} over HTTP`).toBeGreaterThanOrEqual(0.95);
      expect(recallOf(overClient, truth), `${field} over the JS client`).toBeGreaterThanOrEqual(0.95);
    }
  });
});
