// Cluster mode end to end (docs/cluster.md): three clustered nats-servers and three QuiverDB
// nodes as real processes on loopback. The same data and queries are answered by the cluster and
// by one single-node server (the reference); nodes and NATS servers are SIGKILLed during write
// streams and every acknowledged write must survive.
import { QdrantClient as QdrantGrpcClient } from '@qdrant/js-client-grpc';
import { QdrantClient } from '@qdrant/js-client-rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { mulberry32 } from '../support/seeded-random.js';
import { announceClusterSkip, call, clusterSkipReason, clusterTestsRequired, result, referenceResultOf, withoutVersions } from './support/cluster-tests.js';
import { startQuiverCluster, type QuiverCluster } from './support/quiver-cluster.js';

announceClusterSkip();

describe.runIf(clusterSkipReason !== undefined && clusterTestsRequired)('cluster tests (required)', () => {
  it('cluster — nats-server is installed when QUIVER_REQUIRE_CLUSTER_TESTS=1', () => {
    throw new Error(`cluster tests cannot run: ${clusterSkipReason}`);
  });
});

const dimension = 4;
const cities = ['Berlin', 'Paris', 'Rome', 'Oslo'];

function makePoints(count: number, seed: number, firstId = 0): { id: number; vector: number[]; payload: Record<string, unknown> }[] {
  const random = mulberry32(seed);
  return Array.from({ length: count }, (_, index) => ({
    id: firstId + index,
    vector: Array.from({ length: dimension }, () => Math.round((random() * 2 - 1) * 1000) / 1000),
    payload: { city: cities[index % cities.length], rank: index },
  }));
}

describe.skipIf(clusterSkipReason !== undefined)('cluster mode', () => {
  let cluster: QuiverCluster;
  let reference: TestApp;
  const url = (index: number) => cluster.nodes[index]!.url;

  const referenceResult = <Result>(method: string, path: string, body?: unknown) => referenceResultOf<Result>(reference, method, path, body);

  /** The same request on every live node and on the reference: all equal, versions aside. */
  async function expectSameEverywhere(method: string, path: string, body: unknown, nodes: number[] = [0, 1, 2]): Promise<unknown> {
    const expected = withoutVersions(await referenceResult(method, path, body));
    for (const node of nodes) expect(withoutVersions(await result(url(node), method, path, body)), `${method} ${path} on node ${node}`).toEqual(expected);
    return expected;
  }

  beforeAll(async () => {
    [cluster, reference] = await Promise.all([startQuiverCluster({ requestTimeoutMs: 8000 }), createTestApp()]);
  }, 90_000);

  afterAll(async () => {
    await cluster?.stop();
    await reference?.dispose();
  }, 60_000);

  const points = makePoints(60, 7);
  const vectors = { size: dimension, distance: 'Dot' };

  it('cluster — a collection created on one node is visible on every node, with its shard settings', async () => {
    expect(await result(url(0), 'PUT', '/collections/films', { vectors })).toBe(true);
    await referenceResult('PUT', '/collections/films', { vectors });
    for (const node of [0, 1, 2]) {
      expect(await result(url(node), 'GET', '/collections')).toEqual({ collections: [{ name: 'films' }] });
      expect(await result(url(node), 'GET', '/collections/films/exists')).toEqual({ exists: true });
      const info = await result<{ config: { params: Record<string, unknown> } }>(url(node), 'GET', '/collections/films');
      // Defaults for three live nodes: one shard each, two replicas, one to acknowledge.
      expect(info.config.params).toMatchObject({ shard_number: 3, replication_factor: 2, write_consistency_factor: 1 });
    }
    expect((await call(url(1), 'PUT', '/collections/films', { vectors })).status).toBe(409);
  });

  it('cluster — writes through any node answer every read exactly as one node holding all the points', async () => {
    await result(url(1), 'PUT', '/collections/films/points?wait=true', { points: points.slice(0, 30) });
    await result(url(2), 'PUT', '/collections/films/points', { batch: { ids: points.slice(30).map((point) => point.id), vectors: points.slice(30).map((point) => point.vector), payloads: points.slice(30).map((point) => point.payload) } });
    await referenceResult('PUT', '/collections/films/points?wait=true', { points });
    await result(url(0), 'POST', '/collections/films/points/delete?wait=true', { points: [3, 4] });
    await result(url(0), 'POST', '/collections/films/points/payload?wait=true', { payload: { tagged: true }, filter: { must: [{ key: 'city', match: { value: 'Rome' } }] } });
    await referenceResult('POST', '/collections/films/points/delete?wait=true', { points: [3, 4] });
    await referenceResult('POST', '/collections/films/points/payload?wait=true', { payload: { tagged: true }, filter: { must: [{ key: 'city', match: { value: 'Rome' } }] } });

    const exact = { exact: true };
    await expectSameEverywhere('POST', '/collections/films/points/count', { exact: true });
    await expectSameEverywhere('POST', '/collections/films/points/count', { exact: true, filter: { must: [{ key: 'tagged', match: { value: true } }] } });
    await expectSameEverywhere('POST', '/collections/films/points/search', { vector: [0.5, -0.2, 0.9, 0.1], limit: 10, with_payload: true, params: exact });
    await expectSameEverywhere('POST', '/collections/films/points/search', { vector: [0.1, 0.2, -0.3, 0.4], limit: 5, filter: { must: [{ key: 'city', match: { value: 'Paris' } }] }, params: exact });
    await expectSameEverywhere('POST', '/collections/films/points/query', {
      prefetch: [
        { query: [0.5, -0.2, 0.9, 0.1], limit: 20, params: exact },
        { query: [-0.3, 0.8, 0.1, 0.2], limit: 20, params: exact },
      ],
      query: { fusion: 'rrf' },
      limit: 10,
      with_payload: true,
    });
    await expectSameEverywhere('POST', '/collections/films/points', { ids: [0, 1, 2, 3, 17, 59, 1000], with_payload: true, with_vector: true });
    // Scroll paging across shards: the pages, one after another, are the reference's pages.
    let offset: unknown = null;
    const pages: unknown[] = [];
    do {
      const page = (await expectSameEverywhere('POST', '/collections/films/points/scroll', { limit: 7, offset, with_payload: true }, [(pages.length % 3)])) as { next_page_offset: unknown };
      pages.push(page);
      offset = page.next_page_offset;
    } while (offset !== null && offset !== undefined);
    expect(pages.length).toBe(9);
    const info = await result<{ points_count: number }>(url(2), 'GET', '/collections/films');
    expect(info.points_count).toBe(58);
  }, 60_000);

  it('cluster — lookup_from, MMR and an IDF sparse query through any node answer exactly as one node', async () => {
    const exact = { exact: true };
    // Examples read from another collection's shards (the door passes distributedRead its readers).
    const examples = makePoints(6, 11, 900);
    for (const create of [(path: string, body: unknown) => result(url(0), 'PUT', path, body), (path: string, body: unknown) => referenceResult('PUT', path, body)]) {
      await create('/collections/examples', { vectors });
      await create('/collections/examples/points?wait=true', { points: examples });
    }
    await expectSameEverywhere('POST', '/collections/films/points/query', {
      query: { recommend: { positive: [900, 901], negative: [902] } },
      lookup_from: { collection: 'examples' },
      limit: 6,
      with_payload: true,
      params: exact,
    });
    await expectSameEverywhere('POST', '/collections/films/points/query', { query: { nearest: [0.4, 0.1, -0.6, 0.3], mmr: { diversity: 0.6, candidates_limit: 25 } }, limit: 6, params: exact });
    // IDF weights from the whole collection's statistics, not one shard's.
    const words = Array.from({ length: 40 }, (_, index) => ({
      id: index,
      vector: { words: { indices: [index % 3, 3 + (index % 7), 10 + (index % 11)], values: [1 + index / 100, 1.5 - index / 200, 0.5 + index / 300] } },
    }));
    for (const target of ['cluster', 'reference'] as const) {
      const put = (path: string, body: unknown) => (target === 'cluster' ? result(url(2), 'PUT', path, body) : referenceResult('PUT', path, body));
      await put('/collections/texts', { sparse_vectors: { words: { modifier: 'idf' } } });
      await put('/collections/texts/points?wait=true', { points: words });
    }
    await expectSameEverywhere('POST', '/collections/texts/points/query', { query: { indices: [1, 5, 12], values: [1, 0.7, 0.4] }, using: 'words', limit: 8 });
  }, 60_000);

  it('cluster — a write the config refuses is a 400 before anything is published, on every node', async () => {
    const before = await result<{ count: number }>(url(0), 'POST', '/collections/films/points/count', { exact: true });
    const answer = await call(url(1), 'PUT', '/collections/films/points?wait=true', { points: [{ id: 500, vector: [1, 2, 3, 4] }, { id: 501, vector: [1, 2, 3] }] });
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.body)).toContain('points[1].vector');
    expect(await result(url(2), 'POST', '/collections/films/points/count', { exact: true })).toEqual(before);
  });

  it('cluster — the official JS client works against any node', async () => {
    for (const node of [0, 1, 2]) {
      const client = new QdrantClient({ url: url(node), checkCompatibility: false });
      const name = `client_${node}`;
      await client.createCollection(name, { vectors: { size: 2, distance: 'Euclid' } });
      await client.upsert(name, { wait: true, points: [{ id: 1, vector: [0, 0] }, { id: 2, vector: [1, 1] }, { id: 3, vector: [5, 5] }] });
      const found = await client.query(name, { query: [0.9, 0.9], limit: 2 });
      expect(found.points.map((point) => point.id)).toEqual([2, 1]);
      expect((await client.count(name, { exact: true })).count).toBe(3);
      expect((await client.getCollections()).collections.map((collection) => collection.name)).toContain(name);
      await client.deleteCollection(name);
      expect((await client.collectionExists(name)).exists).toBe(false);
    }
  }, 60_000);

  it('cluster — a vector name added and a config patched through one node hold on every node and every shard', async () => {
    const steps: [string, string, unknown][] = [
      ['PUT', '/collections/named', { vectors: { image: { size: 2, distance: 'Dot' } } }],
      ['PUT', '/collections/named/vectors/text?wait=true', { dense: { size: 3, distance: 'Cosine' } }],
      ['PATCH', '/collections/named?wait=true', { optimizers_config: { indexing_threshold: 1234 } }],
      ['PUT', '/collections/named/points?wait=true', { points: Array.from({ length: 12 }, (_, id) => ({ id, vector: { image: [id, 1], text: [1, id, 0.5] } })) }],
    ];
    for (const [index, [method, path, body]] of steps.entries()) {
      await result(url(index % 3), method, path, body);
      await referenceResult(method, path, body);
    }
    for (const node of [0, 1, 2]) {
      const info = await result<{ config: { params: { vectors: Record<string, unknown> }; optimizer_config: Record<string, unknown> } }>(url(node), 'GET', '/collections/named');
      expect(Object.keys(info.config.params.vectors).sort()).toEqual(['image', 'text']);
      expect(info.config.optimizer_config.indexing_threshold).toBe(1234);
    }
    await expectSameEverywhere('POST', '/collections/named/points/query', { query: [0.2, 0.9, 0.1], using: 'text', limit: 5, params: { exact: true } });
    const refused = await call(url(2), 'PUT', '/collections/named/vectors/text', { dense: { size: 3, distance: 'Cosine' } });
    expect(refused.status).toBe(400);
  });

  it('cluster — a collection deleted and created again through other nodes takes writes at once through a third', async () => {
    for (let round = 0; round < 3; round += 1) {
      await result(url(round % 3), 'PUT', '/collections/recreated', { vectors });
      await result(url((round + 1) % 3), 'PUT', '/collections/recreated/points?wait=true', { points: points.slice(0, 10 + round) });
      expect(await result(url((round + 2) % 3), 'POST', '/collections/recreated/points/count', { exact: true })).toEqual({ count: 10 + round });
      expect(await result(url((round + 2) % 3), 'DELETE', '/collections/recreated')).toBe(true);
    }
    for (const node of [0, 1, 2]) expect(await result(url(node), 'GET', '/collections/recreated/exists')).toEqual({ exists: false });
  });

  it('cluster — the gRPC door follows the REST door: a count through any node is the whole collection', async () => {
    const expected = await referenceResult<{ count: number }>('POST', '/collections/films/points/count', { exact: true });
    for (const node of [0, 2]) {
      const client = new QdrantGrpcClient({ host: '127.0.0.1', port: cluster.nodes[node]!.grpcPort, https: false, checkCompatibility: false });
      const answer = await client.api('points').count({ collectionName: 'films', exact: true });
      expect(Number(answer.result?.count)).toBe(expected.count);
    }
  });

  it('cluster — with wait=true a write the replicas refuse answers their error; the collection is unchanged', async () => {
    const before = await result(url(0), 'POST', '/collections/films/points/count', { exact: true });
    // The index type is checked where the index is built: on each replica.
    const answer = await call(url(1), 'PUT', '/collections/films/index?wait=true', { field_name: 'city', field_schema: 'no_such_type' });
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.body)).toMatch(/field_schema|no_such_type/);
    expect(await result(url(2), 'POST', '/collections/films/points/count', { exact: true })).toEqual(before);
  });

  it('cluster — reads keep working with one replica of each shard down, and a node that comes back catches up from the log', async () => {
    await cluster.killNode(2);
    await expectSameEverywhere('POST', '/collections/films/points/count', { exact: true }, [0, 1]);
    await expectSameEverywhere('POST', '/collections/films/points/search', { vector: [0.5, -0.2, 0.9, 0.1], limit: 10, params: { exact: true } }, [0, 1]);
    // Written while node 3 is down: its shards' other replicas apply it, the log keeps it for node 3.
    const later = makePoints(20, 11, 200);
    await result(url(0), 'PUT', '/collections/films/points?wait=true', { points: later });
    await referenceResult('PUT', '/collections/films/points?wait=true', { points: later });
    await cluster.restartNode(2);
    // It resumed after the sequence its store recorded: only the tail of the log is replayed.
    // films has two of its three shards on node 3, both written before it was killed. Each replica
    // logs its resume as it starts, which may come after the node answers: polled, bounded.
    const resumedShards = () =>
      cluster.nodes[2]!.server!.logLines.filter((line) => line.includes('resumes after its last applied'))
        .map((line) => JSON.parse(line) as { shard: string; applied_sequence: number })
        .filter((line) => line.applied_sequence > 0).length;
    for (let waited = 0; resumedShards() < 2 && waited < 15_000; waited += 200) await new Promise((resolve) => setTimeout(resolve, 200));
    expect(resumedShards()).toBeGreaterThanOrEqual(2);
    // With node 1 down, shard 2 (on nodes 3 and 1) is read from node 3 alone: it must have caught up.
    await cluster.killNode(0);
    await expectSameEverywhere('POST', '/collections/films/points/count', { exact: true }, [1, 2]);
    await expectSameEverywhere('POST', '/collections/films/points', { ids: later.map((point) => point.id), with_payload: true, with_vector: true }, [1, 2]);
    await cluster.restartNode(0);
  }, 90_000);

  it('cluster — a shard with no live replica answers 503 naming the collection and the shard', async () => {
    await result(url(0), 'PUT', '/collections/single_copy', { vectors, replication_factor: 1 });
    await result(url(0), 'PUT', '/collections/single_copy/points?wait=true', { points });
    await cluster.killNode(2);
    const answer = await call(url(0), 'POST', '/collections/single_copy/points/count', { exact: true });
    expect(answer.status).toBe(503);
    expect(JSON.stringify(answer.body)).toMatch(/shard 2 of collection single_copy/);
    await cluster.restartNode(2);
    expect(await result(url(0), 'POST', '/collections/single_copy/points/count', { exact: true })).toEqual({ count: points.length });
  }, 60_000);

  /** Writes batches through live nodes until `stop()`; returns the ids of every acknowledged batch. */
  function writeStream(collection: string, firstId: number, pick: () => number) {
    const acknowledged: number[] = [];
    const attempted: number[] = [];
    let stopped = false;
    let nextId = firstId;
    const done = (async () => {
      while (!stopped) {
        const batch = makePoints(5, nextId, nextId);
        nextId += 5;
        attempted.push(...batch.map((point) => point.id));
        const node = cluster.nodes[pick()]!;
        if (!node.server) continue;
        try {
          const answer = await call(node.url, 'PUT', `/collections/${collection}/points`, { points: batch });
          if (answer.status === 200) acknowledged.push(...batch.map((point) => point.id));
        } catch {
          // the node died mid-request: not acknowledged
        }
      }
    })();
    return {
      acknowledged,
      attempted,
      /**
       * Keeps writing until `count` ids are acknowledged (or 30 s pass): the rules wait for
       * progress, not for a fixed time, which on a loaded machine may hold only a few writes.
       */
      async acknowledgedAtLeast(count: number) {
        const deadline = Date.now() + 30_000;
        while (acknowledged.length < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      },
      async stop() {
        stopped = true;
        await done;
      },
    };
  }

  /** A read while replicas recover from a killed server may answer 503 for a few seconds. */
  async function resultAfterRecovery<Result>(base: string, method: string, path: string, body: unknown): Promise<Result> {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const answer = await call(base, method, path, body);
      if (answer.status === 200) return answer.body.result as Result;
      if (answer.status !== 503 || Date.now() > deadline) throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    }
  }

  /** Every acknowledged id is on every node; the count is exactly the stored ids. */
  async function expectNoAcknowledgedWriteLost(collection: string, acknowledged: number[], attempted: number[]): Promise<void> {
    for (const node of [0, 1, 2]) {
      const found = await resultAfterRecovery<{ id: number }[]>(url(node), 'POST', `/collections/${collection}/points`, { ids: attempted, with_payload: false });
      const present = new Set(found.map((point) => point.id));
      const lost = acknowledged.filter((id) => !present.has(id));
      expect(lost, `acknowledged ids missing on node ${node}`).toEqual([]);
      // The count asks every shard again: the same few seconds of recovery apply to it.
      expect(await resultAfterRecovery(url(node), 'POST', `/collections/${collection}/points/count`, { exact: true })).toEqual({ count: present.size });
    }
  }

  it('cluster — SIGKILL of a QuiverDB node at a random point of a write stream loses no acknowledged write', async () => {
    const random = mulberry32(2024);
    await result(url(0), 'PUT', '/collections/stream_nodes', { vectors });
    const stream = writeStream('stream_nodes', 0, () => Math.floor(random() * 3));
    await new Promise((resolve) => setTimeout(resolve, 300 + random() * 700));
    await cluster.killNode(1);
    await new Promise((resolve) => setTimeout(resolve, 300 + random() * 700));
    await cluster.restartNode(1);
    // Writes acknowledged after the restart too (a batch is 5 ids), and more than 20 in all.
    await stream.acknowledgedAtLeast(Math.max(25, stream.acknowledged.length + 10));
    await stream.stop();
    expect(stream.acknowledged.length).toBeGreaterThan(20);
    await expectNoAcknowledgedWriteLost('stream_nodes', stream.acknowledged, stream.attempted);
  }, 90_000);

  it('cluster — SIGKILL of a NATS server at a random point of a write stream loses no acknowledged write', async () => {
    const random = mulberry32(77);
    await result(url(0), 'PUT', '/collections/stream_nats', { vectors, replication_factor: 3 });
    const stream = writeStream('stream_nats', 0, () => Math.floor(random() * 3));
    await new Promise((resolve) => setTimeout(resolve, 300 + random() * 700));
    const victim = Math.floor(random() * 3);
    await cluster.nats.kill(victim);
    await new Promise((resolve) => setTimeout(resolve, 1000 + random() * 1000));
    await cluster.nats.restart(victim);
    // Writes acknowledged after the restart too (a batch is 5 ids), and more than 20 in all.
    await stream.acknowledgedAtLeast(Math.max(25, stream.acknowledged.length + 10));
    await stream.stop();
    expect(stream.acknowledged.length).toBeGreaterThan(20);
    await expectNoAcknowledgedWriteLost('stream_nats', stream.acknowledged, stream.attempted);
  }, 90_000);
});
