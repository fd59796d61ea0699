// `lookup_from` across shards (docs/architecture.md §13): example ids are read from the other
// collection's shards through the reader the cluster door passes (`readerOf`), so every form
// with examples from another collection answers as one node holding both collections does;
// without `readerOf` the read stays a 400 naming cluster mode.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { distributedRead, type DistributedReadOptions, type ShardReader } from '../../src/cluster/distributed-read/index.js';
import { mulberry32 } from '../support/seeded-random.js';
import { expectSameAnswer, outcome, addShardedCollection, collectionInfo, makePoints, startShardedServer, type ShardedServer, type TestPoint } from './sharded-collections.js';

const points = makePoints(70, 41);
let server: ShardedServer;
let options: DistributedReadOptions;

/** The other collection: other vector names, sizes and distances than `all`'s. */
const otherConfig = { vectors: { image: { size: 4, distance: 'Euclid' }, pair: { size: 2, distance: 'Dot' } }, sparse_vectors: { words: {} } };

function otherPoints(): TestPoint[] {
  const random = mulberry32(7);
  const value = () => Math.round((random() * 2 - 1) * 100) / 100;
  return Array.from({ length: 30 }, (_, index) => {
    const vector: Record<string, unknown> = { image: [value(), value(), value(), value()], words: { indices: [index % 6, 6 + (index % 5)], values: [0.5, 1] } };
    // Some points lack `pair`: a missing example vector is one node's 400.
    if (index % 4 !== 3) vector.pair = [value(), value()];
    return { id: 100 + index, vector, payload: {} };
  });
}

beforeAll(async () => {
  server = await startShardedServer(points);
  const other = await addShardedCollection(server, 'other', otherConfig, otherPoints());
  options = {
    collection: 'all',
    readerOf: async (name: string): Promise<ShardReader> => {
      if (name === 'other') return other;
      if (name === 'all') return server.reader;
      // As the cluster door would: one node's 404 for a collection that does not exist.
      await collectionInfo(server, name);
      throw new Error(`the test has no shards for ${name}`);
    },
  };
});
afterAll(async () => {
  await server.test.dispose();
});

const expectSame = (path: string, body: unknown, answer: 'result' | 'status' = 'result') => expectSameAnswer(server, 'POST', path, body, answer, options);

const image = { collection: 'other', vector: 'image' };

describe('distributed reads — lookup_from', () => {
  it('lookup — nearest, recommend, discover and context with examples from another collection answer as one node', async () => {
    await expectSame('/points/query', { query: 103, using: 'dense', lookup_from: image, limit: 6 });
    await expectSame('/points/query', { query: { nearest: 110 }, using: 'dense', lookup_from: image, limit: 5, with_payload: true, filter: { must: [{ key: 'color', match: { value: 'red' } }] } });
    await expectSame('/points/query', { query: { recommend: { positive: [101, 104], negative: [107] } }, using: 'dense', lookup_from: image, limit: 5 });
    await expectSame('/points/query', { query: { recommend: { positive: [101, 104], negative: [107], strategy: 'best_score' } }, using: 'dense', lookup_from: image, limit: 5 });
    await expectSame('/points/query', { query: { discover: { target: 102, context: [{ positive: 105, negative: 108 }] } }, using: 'dense', lookup_from: image, limit: 4 });
    await expectSame('/points/query', { query: { context: [{ positive: 100, negative: 109 }] }, using: 'dense', lookup_from: image, limit: 4 });
    await expectSame('/points/query', { query: 100, using: 'dot', lookup_from: { collection: 'other', vector: 'pair' }, limit: 5 });
    await expectSame('/points/query', { query: 120, using: 'terms', lookup_from: { collection: 'other', vector: 'words' }, limit: 5 });
  });

  it('lookup — inside prefetches, under fusion, in a batch and by the queried collection itself, as one node', async () => {
    await expectSame('/points/query', {
      prefetch: [{ query: 111, using: 'dense', lookup_from: image, limit: 20 }, { query: 4, using: 'dense', limit: 20 }],
      query: { fusion: 'rrf' },
      limit: 8,
    });
    await expectSame('/points/query', { prefetch: { query: [0.1, 0.2, 0.3, 0.4], using: 'dense', limit: 30 }, query: 112, using: 'dense', lookup_from: image, limit: 5 });
    await expectSame('/points/query/batch', { searches: [{ query: 113, using: 'dense', lookup_from: image, limit: 3 }, { query: 5, using: 'euclid', limit: 3 }] });
    // The queried collection named in lookup_from: its example ids are left out, as one node does.
    await expectSame('/points/query', { query: { recommend: { positive: [3, 8] } }, using: 'dense', lookup_from: { collection: 'all', vector: 'dense' }, limit: 6 });
  });

  it('lookup — a missing collection, point or vector is one node\'s error; a raw vector still needs the collection to exist', async () => {
    await expectSame('/points/query', { query: [0.1, 0.2, 0.3, 0.4], using: 'dense', lookup_from: { collection: 'other' }, limit: 3 });
    const missing = (await expectSame('/points/query', { query: [0.1, 0.2, 0.3, 0.4], using: 'dense', lookup_from: { collection: 'nowhere' } }, 'status')) as { status: number };
    expect(missing.status).toBe(404);
    await expectSame('/points/query', { query: 5000, using: 'dense', lookup_from: image }, 'status');
    await expectSame('/points/query/batch', { searches: [{ query: 5000, using: 'dense', lookup_from: image }] }, 'status');
    const pair = { collection: 'other', vector: 'pair' };
    await expectSame('/points/query', { query: 103, using: 'dot', lookup_from: pair }, 'status');
    await expectSame('/points/query', { query: { recommend: { positive: [100, 107] } }, using: 'dot', lookup_from: pair }, 'status');
    await expectSame('/points/query', { query: { discover: { target: 100, context: [{ positive: 101, negative: 103 }] } }, using: 'dot', lookup_from: pair }, 'status');
    await expectSame('/points/query', { query: { context: [{ positive: 101, negative: 102 }, { positive: 115, negative: 104 }] }, using: 'dot', lookup_from: pair }, 'status');
    await expectSame('/points/query/batch', { searches: [{ query: 4, using: 'dot' }, { prefetch: [{ limit: 5 }, { query: { nearest: 111 }, using: 'dot', lookup_from: pair }], query: { fusion: 'rrf' } }] }, 'status');
  });

  it('lookup — without readerOf a query naming lookup_from stays a 400 naming cluster mode', async () => {
    const refused = (await outcome(() => distributedRead(server.reader, 'POST', '/points/query', { query: 103, using: 'dense', lookup_from: image }))) as { status: number; message: string };
    expect(refused.status).toBe(400);
    expect(refused.message).toMatch(/lookup_from.*not supported in cluster mode/);
  });
});
