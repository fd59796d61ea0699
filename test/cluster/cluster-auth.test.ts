// Cluster mode with auth on: the client's credential is checked where the request enters, and
// the node's own dispatch to its shard collections (log apply, shard reads) needs none
// (src/auth/internal-request.ts). One node and one nats-server are enough for the rule.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminPassword, adminUsername, jwtSecret } from '../support/auth.js';
import { announceClusterSkip, clusterSkipReason } from './support/cluster-tests.js';
import { startQuiverCluster, type QuiverCluster } from './support/quiver-cluster.js';

announceClusterSkip();

describe.skipIf(clusterSkipReason !== undefined)('cluster mode with auth', () => {
  let cluster: QuiverCluster;
  let token = '';

  async function call(method: string, path: string, body?: unknown, credential: string | null = token): Promise<{ status: number; body: { result?: unknown; token?: string } }> {
    const headers: Record<string, string> = {};
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (credential !== null) headers.authorization = `Bearer ${credential}`;
    const response = await fetch(`${cluster.nodes[0]!.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: response.status, body: (await response.json()) as { result?: unknown; token?: string } };
  }

  beforeAll(async () => {
    cluster = await startQuiverCluster({
      nodes: 1,
      natsServers: 1,
      environment: {
        QUIVER__AUTH__ENABLED: 'true',
        QUIVER__AUTH__JWT_SECRET: jwtSecret,
        QUIVER__AUTH__ADMIN_USERNAME: adminUsername,
        QUIVER__AUTH__ADMIN_PASSWORD: adminPassword,
      },
    });
    const login = await call('POST', '/auth/login', { username: adminUsername, password: adminPassword }, null);
    token = login.body.token!;
  }, 60_000);

  afterAll(async () => {
    await cluster?.stop();
  }, 30_000);

  it('cluster auth — without a credential a collection route is a 401; with one, writes are applied and read back', async () => {
    expect((await call('PUT', '/collections/secret', { vectors: { size: 2, distance: 'Dot' } }, null)).status).toBe(401);
    expect((await call('PUT', '/collections/secret', { vectors: { size: 2, distance: 'Dot' } })).status).toBe(200);
    expect((await call('PUT', '/collections/secret/points?wait=true', { points: [{ id: 1, vector: [1, 0] }, { id: 2, vector: [0, 1] }] })).status).toBe(200);
    expect((await call('POST', '/collections/secret/points/count', { exact: true }, null)).status).toBe(401);
    expect((await call('POST', '/collections/secret/points/count', { exact: true })).body.result).toEqual({ count: 2 });
    const found = await call('POST', '/collections/secret/points/search', { vector: [1, 0.1], limit: 1 });
    expect((found.body.result as { id: number }[]).map((point) => point.id)).toEqual([1]);
  });
});
