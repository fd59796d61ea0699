// A QuiverDB cluster for the tests and bench:cluster: three clustered nats-servers
// (nats-cluster.ts) and N QuiverDB nodes as child processes in cluster mode, each with its own
// data directory; a node can be SIGKILLed and started again on its data directory.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChildServer, waitUntilReady, type ChildServer } from '../../support/child-server.js';
import { freePorts, startNatsCluster, type NatsCluster } from './nats-cluster.js';

export interface QuiverNode {
  nodeId: string;
  directory: string;
  server: ChildServer | undefined;
  url: string;
  /** The node's gRPC door (docs/api.md §14). */
  grpcPort: number;
}

export interface QuiverCluster {
  nats: NatsCluster;
  nodes: QuiverNode[];
  killNode(index: number): Promise<void>;
  restartNode(index: number): Promise<void>;
  stop(): Promise<void>;
}

export interface QuiverClusterOptions {
  nodes?: number;
  natsServers?: number;
  requestTimeoutMs?: number;
  environment?: Record<string, string>;
}

function nodeEnvironment(node: QuiverNode, nats: NatsCluster, options: QuiverClusterOptions): Record<string, string> {
  return {
    QUIVER__CLUSTER__ENABLED: 'true',
    QUIVER__SERVICE__GRPC_PORT: String(node.grpcPort),
    QUIVER__CLUSTER__NATS_SERVERS: nats.urls.join(','),
    QUIVER__CLUSTER__NODE_ID: node.nodeId,
    QUIVER__CLUSTER__HEARTBEAT_SECONDS: '1',
    QUIVER__CLUSTER__REQUEST_TIMEOUT_MS: String(options.requestTimeoutMs ?? 5000),
    QUIVER__STORAGE__CHECKPOINT_INTERVAL_SECONDS: '3600',
    QUIVER__LOG__LEVEL: 'info',
    ...options.environment,
  };
}

async function startNode(node: QuiverNode, nats: NatsCluster, options: QuiverClusterOptions): Promise<void> {
  node.server = await startChildServer(node.directory, nodeEnvironment(node, nats, options));
  node.url = node.server.url;
  await waitUntilReady(node.url, '/collections', 60_000);
}

/** With auth on (from the nodes' environment), the admin's JWT; `GET /cluster` needs admin. */
async function credentialHeaders(url: string, environment: Record<string, string>): Promise<Record<string, string>> {
  if (environment.QUIVER__AUTH__ENABLED !== 'true') return {};
  const response = await fetch(`${url}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: environment.QUIVER__AUTH__ADMIN_USERNAME, password: environment.QUIVER__AUTH__ADMIN_PASSWORD }),
  });
  const body = (await response.json()) as { token?: string };
  return { authorization: `Bearer ${body.token ?? ''}` };
}

/** Every node's heartbeat is in before a test creates a collection (placement reads them). */
export async function waitForPeers(url: string, count: number, timeoutMs = 20_000, environment: Record<string, string> = {}): Promise<void> {
  const started = Date.now();
  const headers = await credentialHeaders(url, environment);
  for (;;) {
    const response = await fetch(`${url}/cluster`, { headers });
    const body = (await response.json()) as { result?: { peers?: Record<string, unknown> } };
    if (Object.keys(body.result?.peers ?? {}).length >= count) return;
    if (Date.now() - started > timeoutMs) throw new Error(`only ${JSON.stringify(body.result?.peers)} joined within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export async function startQuiverCluster(options: QuiverClusterOptions = {}): Promise<QuiverCluster> {
  const nats = await startNatsCluster(options.natsServers ?? 3);
  const root = await mkdtemp(join(tmpdir(), 'quiver-cluster-'));
  const count = options.nodes ?? 3;
  const grpcPorts = await freePorts(count);
  const nodes: QuiverNode[] = Array.from({ length: count }, (_, index) => ({
    nodeId: `q${index + 1}`,
    directory: join(root, `q${index + 1}`),
    server: undefined,
    url: '',
    grpcPort: grpcPorts[index]!,
  }));
  try {
    await Promise.all(nodes.map((node) => startNode(node, nats, options)));
  } catch (error) {
    for (const node of nodes) await node.server?.kill('SIGKILL');
    await nats.stop();
    throw error;
  }
  await waitForPeers(nodes[0]!.url, nodes.length, 20_000, options.environment);
  return {
    nats,
    nodes,
    async killNode(index) {
      await nodes[index]!.server?.kill('SIGKILL');
      nodes[index]!.server = undefined;
    },
    async restartNode(index) {
      await startNode(nodes[index]!, nats, options);
      await waitForPeers(nodes[index]!.url, nodes.filter((node) => node.server).length, 20_000, options.environment);
    },
    async stop() {
      await Promise.all(nodes.map(async (node) => node.server?.kill('SIGTERM')));
      await nats.stop();
      await rm(root, { recursive: true, force: true });
    },
  };
}
