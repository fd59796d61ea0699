// deploy/docker-compose.cluster.yml, checked by reading (no Docker here): three clustered NATS
// servers with JetStream and three QuiverDB nodes in cluster mode that name all three.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

interface Service {
  command?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
}

const compose = parse(readFileSync(new URL('../../deploy/docker-compose.cluster.yml', import.meta.url), 'utf8'), { merge: true }) as { services: Record<string, Service> };

describe('docker-compose.cluster.yml', () => {
  it('compose — three NATS servers run JetStream in one cluster, each routed to the two others', () => {
    for (const name of ['nats1', 'nats2', 'nats3']) {
      const command = compose.services[name]!.command!;
      expect(command).toContain('-js');
      expect(command[command.indexOf('--cluster_name') + 1]).toBe('quiver');
      const routes = command[command.indexOf('--routes') + 1]!;
      for (const other of ['nats1', 'nats2', 'nats3'].filter((peer) => peer !== name)) expect(routes).toContain(`nats://${other}:6222`);
    }
  });

  it('compose — three QuiverDB nodes in cluster mode, each with its own id, URL and volume, naming every NATS server', () => {
    const quivers = ['quiver1', 'quiver2', 'quiver3'].map((name) => compose.services[name]!);
    const ids = quivers.map((service) => service.environment!.QUIVER__CLUSTER__NODE_ID);
    expect(new Set(ids).size).toBe(3);
    expect(new Set(quivers.map((service) => service.volumes![0])).size).toBe(3);
    for (const service of quivers) {
      expect(service.environment!.QUIVER__CLUSTER__ENABLED).toBe('true');
      expect(service.environment!.QUIVER__CLUSTER__NATS_SERVERS!.split(',')).toEqual(['nats://nats1:4222', 'nats://nats2:4222', 'nats://nats3:4222']);
      expect(service.environment!.QUIVER__CLUSTER__ADVERTISE_URL).toBe(`http://${service.environment!.QUIVER__CLUSTER__NODE_ID}:6573`);
    }
  });
});
