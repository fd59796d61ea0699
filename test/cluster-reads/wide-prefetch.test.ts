// Distributed reads over prefetches wider than one shard request (docs/architecture.md §13): the
// candidates are named to the shards in chunks, and the answer still equals one node's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { candidatesPerRequest } from '../../src/cluster/distributed-read/candidate-chunks.js';
import { distributedRead } from '../../src/cluster/distributed-read/index.js';
import { makePoints, startShardedServer, type ShardedServer } from './sharded-collections.js';

const points = makePoints(1_400, 3);
let server: ShardedServer;

beforeAll(async () => {
  server = await startShardedServer(points);
});
afterAll(async () => {
  await server.test.dispose();
});

async function expectSame(body: Record<string, unknown>): Promise<void> {
  const single = (await server.single('POST', '/points/query', body)) as { points: unknown[] };
  expect(single.points.length).toBeGreaterThan(0);
  expect(await distributedRead(server.reader, 'POST', '/points/query', body)).toEqual(single);
}

describe('distributed reads — prefetches wider than one shard request', () => {
  const prefetch = [
    { query: [0.4, -0.1, 0.3, 0.2], using: 'dense', limit: 1_200, params: { exact: true } },
    { query: [0.2, 0.2, -0.5], using: 'euclid', limit: 1_200, params: { exact: true } },
  ];

  it('wide — re-scoring, sparse re-scoring, order_by and formula over more candidates than one chunk', async () => {
    expect(prefetch[0]!.limit).toBeGreaterThan(candidatesPerRequest);
    await expectSame({ prefetch, query: [1, -0.5], using: 'dot', limit: 20, with_payload: ['rank'] });
    await expectSame({ prefetch, query: { indices: [0, 6], values: [1, -1] }, using: 'terms', limit: 30 });
    await expectSame({ prefetch, query: { order_by: { key: 'rank', direction: 'desc' } }, limit: 25 });
    await expectSame({ prefetch, query: { formula: { sum: ['$score', { mult: [-0.1, '$score[1]'] }, { key: 'color', match: { value: 'green' } }] } }, limit: 15 });
  });
});
