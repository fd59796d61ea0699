// Log trimming and catch-up from a peer (docs/cluster.md §7): with a tiny log retention, a node
// stopped while writes go on finds, when it comes back, that its shards' logs no longer hold what
// it missed; it copies each shard from a live peer replica (dense, named and sparse vectors,
// payloads; payload indexes from the metadata), then follows the log. Every node must then answer
// exactly as one single-node server holding all the points, even with the peer gone.
import { QdrantClient } from '@qdrant/js-client-rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { mulberry32 } from '../support/seeded-random.js';
import { announceClusterSkip, call, clusterSkipReason, result, referenceResultOf, withoutVersions } from './support/cluster-tests.js';
import { startQuiverCluster, type QuiverCluster } from './support/quiver-cluster.js';

announceClusterSkip();

const cities = ['Berlin', 'Paris', 'Rome', 'Oslo'];

function makePoints(count: number, seed: number, firstId: number): Record<string, unknown>[] {
  const random = mulberry32(seed);
  return Array.from({ length: count }, (_, index) => ({
    id: firstId + index,
    vector: {
      dense: Array.from({ length: 4 }, () => Math.round((random() * 2 - 1) * 1000) / 1000),
      text: { indices: [index % 7, 10 + (index % 3)], values: [Math.round(random() * 1000) / 1000, 0.5] },
    },
    payload: { city: cities[index % cities.length], rank: firstId + index },
  }));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

describe.skipIf(clusterSkipReason !== undefined)('cluster log trimming', () => {
  let cluster: QuiverCluster;
  let reference: TestApp;
  const url = (index: number) => cluster.nodes[index]!.url;

  const referenceResult = <Result>(method: string, path: string, body?: unknown) => referenceResultOf<Result>(reference, method, path, body);

  async function both(method: string, path: string, body: unknown): Promise<void> {
    await result(url(0), method, path, body);
    await referenceResult(method, path, body);
  }

  async function expectSameEverywhere(method: string, path: string, body: unknown, nodes: number[]): Promise<void> {
    const expected = withoutVersions(await referenceResult(method, path, body));
    for (const node of nodes) expect(withoutVersions(await result(url(node), method, path, body)), `${method} ${path} on node ${node}`).toEqual(expected);
  }

  function logsOf(index: number, text: string): Record<string, unknown>[] {
    return (cluster.nodes[index]!.server?.logLines ?? []).filter((line) => line.includes(text)).map((line) => JSON.parse(line) as Record<string, unknown>);
  }

  beforeAll(async () => {
    [cluster, reference] = await Promise.all([
      startQuiverCluster({ requestTimeoutMs: 8000, environment: { QUIVER__CLUSTER__LOG_RETENTION_OPERATIONS: '10' } }),
      createTestApp(),
    ]);
  }, 90_000);

  afterAll(async () => {
    await cluster?.stop();
    await reference?.dispose();
  }, 60_000);

  it('cluster — a node back after its shards\' logs were trimmed copies them from a peer and answers exactly as one node', async () => {
    const create = { vectors: { dense: { size: 4, distance: 'Dot' } }, sparse_vectors: { text: {} } };
    await both('PUT', '/collections/trimmed', create);
    await both('PUT', '/collections/trimmed/index?wait=true', { field_name: 'city', field_schema: 'keyword' });
    await both('PUT', '/collections/trimmed/points?wait=true', { points: makePoints(60, 3, 0) });

    // Node 3 (index 2) holds shards 1 and 2 (placement: shard s on nodes s and s+1 of q1..q3).
    const before = await result<{ local_shards: { shard_id: number; points_count: number }[] }>(url(2), 'GET', '/collections/trimmed/cluster');
    expect(before.local_shards.map((shard) => shard.shard_id).sort()).toEqual([1, 2]);
    await cluster.killNode(2);

    // Acknowledged while node 3 is down: far more operations than the retention keeps.
    for (let round = 0; round < 40; round += 1) {
      await both('PUT', '/collections/trimmed/points', { points: makePoints(3, 100 + round, 1000 + round * 3) });
      if (round % 5 === 0) await both('POST', '/collections/trimmed/points/payload', { payload: { touched: round }, points: [1000 + round * 3, 1000 + round * 3 + 1] });
      if (round % 7 === 0) await both('POST', '/collections/trimmed/points/delete', { points: [20 + round] });
    }
    await result(url(0), 'POST', '/collections/trimmed/points/count', { exact: true });

    // The trimming node of shards 1 and 2 (the smallest live holder) purges past node 3's sequence.
    const missed = Math.max(...before.local_shards.map((shard) => shard.points_count));
    for (let waited = 0; ; waited += 200) {
      const trims = [...logsOf(0, 'trimmed the shard log'), ...logsOf(1, 'trimmed the shard log')];
      const trimmedPast = new Set(trims.filter((line) => line.collection === 'trimmed' && Number(line.keep_from) > missed + 1).map((line) => line.shard));
      if (trimmedPast.has(1) && trimmedPast.has(2)) break;
      if (waited > 15_000) throw new Error(`logs not trimmed past ${missed}: ${JSON.stringify(trims)}`);
      await sleep(200);
    }

    await cluster.restartNode(2);
    for (let waited = 0; logsOf(2, 'shard copied from a peer').length < 2; waited += 200) {
      if (waited > 20_000) throw new Error(`node 3 did not copy its shards: ${JSON.stringify(logsOf(2, 'cluster:'))}`);
      await sleep(200);
    }
    expect(logsOf(2, 'copying the shard from a peer').length).toBeGreaterThanOrEqual(2);
    const after = await result<{ local_shards: { state: string }[] }>(url(2), 'GET', '/collections/trimmed/cluster');
    expect(after.local_shards.map((shard) => shard.state)).toEqual(['Active', 'Active']);

    // Written after the copy: node 3 follows the log from the copied sequence on.
    await both('PUT', '/collections/trimmed/points?wait=true', { points: makePoints(5, 999, 5000) });

    // With node 1 down, shard 2 (on nodes 3 and 1) is read from node 3's copy alone.
    await cluster.killNode(0);
    const everything = { limit: 1000, with_payload: true, with_vector: true };
    await expectSameEverywhere('POST', '/collections/trimmed/points/count', { exact: true }, [1, 2]);
    await expectSameEverywhere('POST', '/collections/trimmed/points/scroll', everything, [1, 2]);
    await expectSameEverywhere('POST', '/collections/trimmed/points/query', { query: [0.3, -0.5, 0.8, 0.1], using: 'dense', limit: 15, with_payload: true }, [1, 2]);
    await expectSameEverywhere('POST', '/collections/trimmed/points/query', { query: { indices: [1, 11], values: [0.7, 0.2] }, using: 'text', limit: 15 }, [1, 2]);
    await expectSameEverywhere('POST', '/collections/trimmed/facet', { key: 'city', exact: true }, [1, 2]);
    await expectSameEverywhere('POST', '/collections/trimmed/points/count', { exact: true, filter: { must: [{ key: 'city', match: { value: 'Rome' } }] } }, [1, 2]);
    await cluster.restartNode(0);
  }, 120_000);

  it('cluster — replicate_shard gives a node a replica that copies the trimmed shard from a peer; drop_replica removes one', async () => {
    const path = '/collections/trimmed/cluster';
    // Shard 0 lives on q1 and q2; its log was trimmed while they applied it.
    const refused = [
      [{ replicate_shard: { shard_id: 0, from_peer_id: 'q3', to_peer_id: 'q1' } }, /from_peer_id/],
      [{ replicate_shard: { shard_id: 0, from_peer_id: 'q1', to_peer_id: 'q2' } }, /to_peer_id.*already holds/],
      [{ replicate_shard: { shard_id: 0, from_peer_id: 'q1', to_peer_id: 'nobody' } }, /to_peer_id.*not a live node/],
      [{ replicate_shard: { shard_id: 9, from_peer_id: 'q1', to_peer_id: 'q3' } }, /shard_id/],
      [{ drop_replica: { shard_id: 0, peer_id: 'q3' } }, /peer_id/],
      [{ replicate_shard: {}, drop_replica: {} }, /exactly one/],
    ] as const;
    for (const [body, message] of refused) {
      const answer = await call(url(1), 'POST', path, body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(JSON.stringify(answer.body)).toMatch(message);
    }
    expect((await call(url(1), 'POST', path, { move_shard: { shard_id: 0, from_peer_id: 'q1', to_peer_id: 'q3' } })).status).toBe(501);

    const client = new QdrantClient({ url: url(1), checkCompatibility: false });
    expect(await client.updateCollectionCluster('trimmed', { replicate_shard: { shard_id: 0, from_peer_id: 'q1' as never, to_peer_id: 'q3' as never } })).toBe(true);
    for (let waited = 0; !logsOf(2, 'shard copied from a peer').some((line) => String(line.shard).endsWith('_0')); waited += 200) {
      if (waited > 20_000) throw new Error(`node 3 did not copy shard 0: ${JSON.stringify(logsOf(2, 'cluster:').slice(-5))}`);
      await sleep(200);
    }
    const status = await result<{ local_shards: { shard_id: number; state: string }[] }>(url(2), 'GET', path);
    expect(status.local_shards.map((shard) => shard.shard_id).sort()).toEqual([0, 1, 2]);

    expect(await result(url(1), 'POST', path, { drop_replica: { shard_id: 0, peer_id: 'q1' } })).toBe(true);
    for (let waited = 0; !logsOf(0, 'no longer holds the shard').length; waited += 200) {
      if (waited > 10_000) throw new Error('node 1 kept its replica of shard 0');
      await sleep(200);
    }
    expect((await result<{ local_shards: { shard_id: number }[] }>(url(0), 'GET', path)).local_shards.map((shard) => shard.shard_id)).toEqual([2]);
    expect((await call(url(0), 'POST', path, { drop_replica: { shard_id: 0, peer_id: 'q2' } })).status).toBe(200);
    expect((await call(url(0), 'POST', path, { drop_replica: { shard_id: 0, peer_id: 'q3' } })).status).toBe(400);

    // Shard 0 now lives on q3 alone, copied and then following the log.
    await both('PUT', '/collections/trimmed/points?wait=true', { points: makePoints(9, 4242, 7000) });
    await expectSameEverywhere('POST', '/collections/trimmed/points/count', { exact: true }, [0, 1, 2]);
    await expectSameEverywhere('POST', '/collections/trimmed/points/scroll', { limit: 1000, with_payload: true, with_vector: true }, [0, 1, 2]);
  }, 90_000);
});
