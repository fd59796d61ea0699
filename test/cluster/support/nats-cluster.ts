// Three (or N) `nats-server` processes with JetStream, clustered on loopback with free ports and
// temporary store directories, for the cluster tests and bench:cluster. Each server can be
// killed (SIGKILL) and started again on the same ports and store, as a crashed machine would.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface NatsServerProcess {
  name: string;
  /**
   * The NATS cluster's name, unique per started cluster. Ports come from `freePorts`, which
   * releases them before the servers bind, and a killed server's cluster port is free until it
   * restarts; a server of another test's cluster may bind it meanwhile. Its peers keep dialling
   * that port, and with one shared cluster name the two clusters would merge (one JetStream, one
   * membership bucket, nodes of both). NATS refuses a route whose cluster name differs.
   */
  clusterName: string;
  clientPort: number;
  clusterPort: number;
  storeDirectory: string;
  process: ChildProcess | undefined;
}

export interface NatsCluster {
  servers: NatsServerProcess[];
  /** Client URLs of every server, e.g. nats://127.0.0.1:4222. */
  urls: string[];
  kill(index: number): Promise<void>;
  restart(index: number): Promise<void>;
  stop(): Promise<void>;
}

/** Why the cluster tests cannot run here, or undefined when `nats-server` is installed. */
export function natsServerMissingReason(): string | undefined {
  const probe = spawnSync('nats-server', ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) return 'nats-server is not installed (apt-get install nats-server)';
  return undefined;
}

/** `count` distinct ports free right now on 127.0.0.1 (held open together, so never the same twice). */
export async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from({ length: count }, () => new Promise<import('node:net').Server>((resolve, reject) => {
      const server = createServer();
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve(server));
    })),
  );
  const ports = servers.map((server) => {
    const address = server.address();
    return typeof address === 'object' && address !== null ? address.port : 0;
  });
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}

async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const started = Date.now();
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = new Socket();
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
      socket.connect(port, '127.0.0.1');
    });
    if (open) return;
    if (Date.now() - started > timeoutMs) throw new Error(`nats-server on port ${port} did not start in ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function startProcess(server: NatsServerProcess, all: NatsServerProcess[]): ChildProcess {
  const routes = all.filter((other) => other !== server).map((other) => `nats://127.0.0.1:${other.clusterPort}`).join(',');
  // One server alone is not a cluster: no routes (nats-server refuses an empty route list).
  const clusterArguments = all.length === 1 ? [] : ['--cluster_name', server.clusterName, '--cluster', `nats://127.0.0.1:${server.clusterPort}`, '--routes', routes];
  const child = spawn(
    'nats-server',
    ['-a', '127.0.0.1', '-p', String(server.clientPort), '--server_name', server.name, '-js', '-sd', server.storeDirectory, ...clusterArguments],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  child.stderr!.resume();
  return child;
}

/** Starts `count` clustered servers and resolves once every one accepts clients. */
export async function startNatsCluster(count = 3): Promise<NatsCluster> {
  const root = await mkdtemp(join(tmpdir(), 'quiver-nats-'));
  const servers: NatsServerProcess[] = [];
  const ports = await freePorts(count * 2);
  const clusterName = `quiver-test-${randomUUID().slice(0, 8)}`;
  for (let index = 0; index < count; index += 1) {
    servers.push({ name: `n${index + 1}`, clusterName, clientPort: ports[2 * index]!, clusterPort: ports[2 * index + 1]!, storeDirectory: join(root, `n${index + 1}`), process: undefined });
  }
  for (const server of servers) server.process = startProcess(server, servers);
  await Promise.all(servers.map((server) => waitForPort(server.clientPort, 20_000)));
  const kill = async (index: number): Promise<void> => {
    const child = servers[index]!.process;
    servers[index]!.process = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  };
  return {
    servers,
    urls: servers.map((server) => `nats://127.0.0.1:${server.clientPort}`),
    kill,
    async restart(index) {
      await kill(index);
      servers[index]!.process = startProcess(servers[index]!, servers);
      await waitForPort(servers[index]!.clientPort, 20_000);
    },
    async stop() {
      for (let index = 0; index < servers.length; index += 1) await kill(index);
      await rm(root, { recursive: true, force: true });
    },
  };
}
