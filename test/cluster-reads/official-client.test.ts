// Distributed reads through the official JS client (docs/architecture.md §13): a small HTTP front
// answers `/collections/all/...` from the real collection holding every point and
// `/collections/cluster/...` with distributedRead over the three shard collections; every call
// of @qdrant/js-client-rest gives the same answer on both.
import { QdrantClient } from '@qdrant/js-client-rest';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { distributedRead, isDistributedReadPath } from '../../src/cluster/distributed-read/index.js';
import { isQuiverError } from '../../src/errors.js';
import { makePoints, startShardedServer, type ShardedServer } from './sharded-collections.js';

const points = makePoints(50, 5);
let server: ShardedServer;
let front: FastifyInstance;
let client: QdrantClient;
let frontUrl: string;

/** A raw HTTP POST to the front: status and parsed body, the time left out. */
async function post(path: string, body: unknown): Promise<unknown> {
  const response = await fetch(`${frontUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const parsed = (await response.json()) as { result?: unknown; status: unknown };
  return { code: response.status, result: parsed.result, status: parsed.status };
}

beforeAll(async () => {
  server = await startShardedServer(points);
  front = Fastify();
  front.route({
    method: ['GET', 'POST'],
    url: '/collections/:name/*',
    handler: async (request, reply) => {
      const { name, '*': rest } = request.params as { name: string; '*': string };
      const path = `/${rest}`;
      const method = request.method as 'GET' | 'POST';
      try {
        if (name !== 'cluster' || !isDistributedReadPath(method, path)) {
          const result = await server.single(method, path, request.body ?? undefined);
          return { result, status: 'ok', time: 0 };
        }
        return { result: await distributedRead(server.reader, method, path, request.body ?? undefined), status: 'ok', time: 0 };
      } catch (error) {
        if (!isQuiverError(error)) throw error;
        return reply.code(error.status).send({ status: { error: error.message }, time: 0 });
      }
    },
  });
  const address = await front.listen({ host: '127.0.0.1', port: 0 });
  frontUrl = address;
  const url = new URL(address);
  client = new QdrantClient({ host: url.hostname, port: Number(url.port), https: false, checkCompatibility: false });
});
afterAll(async () => {
  await front.close();
  await server.test.dispose();
});

async function both<Result>(call: (collection: string) => Promise<Result>): Promise<Result> {
  const single = await call('all');
  expect(await call('cluster')).toEqual(single);
  return single;
}

describe('distributed reads — the official client', () => {
  it('client — retrieve, count, scroll pages and facet answer as one node', async () => {
    await both((name) => client.retrieve(name, { ids: [3, 1, 44], with_payload: true, with_vector: ['dense'] }));
    await both((name) => client.count(name, { filter: { must: [{ key: 'color', match: { value: 'blue' } }] } }));
    let offset: any;
    do {
      const page = await both((name) => client.scroll(name, { limit: 9, offset, with_payload: ['rank'] }));
      offset = page.next_page_offset;
    } while (offset !== null && offset !== undefined);
    await both((name) => client.facet(name, { key: 'color' }));
  });

  it('client — search, search batch, query with prefetch fusion and recommend by id answer as one node', async () => {
    // This client has no search call (its reads go through query): search goes as raw HTTP.
    const found = (await both((name) => post(`/collections/${name}/points/search`, { vector: { name: 'dense', vector: [0.1, 0.2, 0.3, 0.4] }, limit: 6, offset: 2, with_payload: true, params: { exact: true } }))) as { result: unknown[] };
    expect(found.result.length).toBe(6);
    await both((name) =>
      post(`/collections/${name}/points/search/batch`, {
        searches: [
          { vector: { name: 'euclid', vector: [0, 1, 0] }, limit: 3, params: { exact: true } },
          { vector: { name: 'dot', vector: [1, -1] }, limit: 4, params: { exact: true } },
        ],
      }),
    );
    await both((name) =>
      client.query(name, {
        prefetch: [
          { query: [0.3, 0.1, -0.2, 0.5], using: 'dense', limit: 12, params: { exact: true } },
          { query: { text: 'gamma eta', model: 'qdrant/bm25' } as any, using: 'text', limit: 12 },
        ],
        query: { fusion: 'rrf' },
        limit: 7,
        with_payload: ['text'],
      }),
    );
    await both((name) => client.query(name, { query: { recommend: { positive: [2, 4], negative: [6] } }, using: 'dense', limit: 5, params: { exact: true } }));
    await both((name) => client.queryBatch(name, { searches: [{ query: 10, using: 'euclid', limit: 3, params: { exact: true } }, { limit: 4 }] }));
  });

  it('client — a 400 reaches the client with one node\'s message; a refusal names cluster mode', async () => {
    const message = async (name: string) => {
      try {
        await client.query(name, { query: [1, 2], using: 'dense', limit: 3 });
        return 'no error';
      } catch (error) {
        return (error as { data?: { status?: { error?: string } } }).data?.status?.error;
      }
    };
    expect(await message('cluster')).toBe(await message('all'));
    await expect(client.query('cluster', { query: 3, using: 'dense', lookup_from: { collection: 'all' } })).rejects.toMatchObject({ status: 400 });
  });

  it('client — MMR, idf sparse vectors (the BM25 hybrid) and the search matrix answer as one node', async () => {
    await both((name) => client.query(name, { query: { nearest: [1, 0, 0.5, 0], mmr: { diversity: 0.3, candidates_limit: 20 } }, using: 'dense', limit: 5, with_payload: true }));
    await both((name) =>
      client.query(name, {
        prefetch: [{ query: { text: 'alpha beta', model: 'qdrant/bm25' } as never, using: 'bm25', limit: 20 }, { query: [0.1, 0.2, 0.3, 0.4], using: 'dense', limit: 20 }],
        query: { fusion: 'rrf' },
        limit: 6,
      }),
    );
    await both((name) => client.query(name, { query: { indices: [0, 3, 8], values: [1, 0.5, 0.25] }, using: 'weighted', limit: 5 }));
    expect(await post('/collections/cluster/points/search', { vector: { name: 'weighted', vector: { indices: [0, 3, 8], values: [1, 0.5, 0.25] } }, limit: 5 })).toEqual(
      await post('/collections/all/points/search', { vector: { name: 'weighted', vector: { indices: [0, 3, 8], values: [1, 0.5, 0.25] } }, limit: 5 }),
    );
    await both((name) => client.searchMatrixPairs(name, { using: 'dense', sample: 20, limit: 3 }));
    await both((name) => client.searchMatrixOffsets(name, { using: 'euclid', sample: 15, limit: 2, filter: { must: [{ key: 'color', match: { value: 'red' } }] } }));
    // The coordinator's option is refused from a client, over raw HTTP too.
    expect(await post('/collections/cluster/points/query', { query: [1, 0], using: 'dot', cluster_idf_statistics: {} })).toMatchObject({ code: 400 });
  });
});
