// The search matrix across shards (docs/architecture.md §13): one node's sample is the
// candidates whose ids rank lowest (src/search/search-matrix.ts), so the coordinator draws the
// same sample from the shards' own samples and merges each sampled point's neighbours from the
// shards: pairs and offsets equal one node's, for every distance, sample size, limit and filter.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSameAnswer, makePoints, shardOf, startShardedServer, type ShardedServer } from './sharded-collections.js';

const points = makePoints(120, 53);
let server: ShardedServer;

beforeAll(async () => {
  server = await startShardedServer(points);
});
afterAll(async () => {
  await server.test.dispose();
});

const expectSame = (path: string, body: unknown, answer: 'result' | 'status' = 'result') => expectSameAnswer(server, 'POST', path, body, answer);

const formats = ['/points/search/matrix/pairs', '/points/search/matrix/offsets'];
const red = { must: [{ key: 'color', match: { value: 'red' } }] };

describe('distributed reads — search matrix', () => {
  it('matrix — pairs and offsets equal one node\'s for every distance, sample size and limit', async () => {
    for (const path of formats) {
      await expectSame(path, { using: 'dense' });
      for (const using of ['dense', 'euclid', 'dot']) {
        for (const [sample, limit] of [[2, 1], [10, 3], [40, 5], [500, 2]] as const) {
          const single = (await expectSame(path, { using, sample, limit })) as { result: Record<string, unknown[]> };
          expect(Object.values(single.result).some((list) => list.length > 0)).toBe(true);
        }
      }
    }
  });

  it('matrix — filters, including ones leaving one candidate on a shard or one in all, equal one node\'s', async () => {
    // Two points on different shards: each shard alone has fewer than two candidates.
    const [first, second] = [points.find((point) => shardOf(point.id) === 0)!, points.find((point) => shardOf(point.id) === 2)!];
    for (const path of formats) {
      await expectSame(path, { using: 'dense', sample: 15, limit: 4, filter: red });
      await expectSame(path, { using: 'euclid', sample: 25, limit: 3, filter: { must: [{ key: 'rank', range: { lt: 6 } }] } });
      const pair = (await expectSame(path, { using: 'dense', sample: 5, filter: { must: [{ has_id: [first.id, second.id] }] } })) as { result: Record<string, unknown[]> };
      expect(Object.values(pair.result).some((list) => list.length > 0)).toBe(true);
      await expectSame(path, { using: 'dense', filter: { must: [{ has_id: [first.id] }] } });
      await expectSame(path, { using: 'dense', filter: { must: [{ has_id: [999_999] }] } });
    }
  });

  it('matrix — bad input is one node\'s 400', async () => {
    for (const path of formats) {
      await expectSame(path, { using: 'nope' }, 'status');
      await expectSame(path, { using: 'dense', sample: 1 }, 'status');
      await expectSame(path, { using: 'terms' }, 'status');
      await expectSame(path, { using: 'dense', filter: { must: [{ key: 'color', bad: 1 }] } }, 'status');
    }
  });
});
