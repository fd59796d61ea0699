// The gRPC door opens with its services' names only and builds Qdrant's descriptors after the
// start or for the first call that comes sooner (docs/architecture.md §21). What it registers
// must be exactly what the descriptors describe, and no early call may fail for the wait.
import type { DescService } from '@bufbuild/protobuf';
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Health } from '../../src/grpc/health-descriptor.js';
import type { RestDoor } from '../../src/grpc/rest-door.js';
import { qdrantDescriptorsRequested, servedSources } from '../../src/grpc/server.js';
import { collectionsService } from '../../src/grpc/services/collections.js';
import { healthService } from '../../src/grpc/services/health.js';
import { pointsService } from '../../src/grpc/services/points.js';
import { qdrantService } from '../../src/grpc/services/qdrant.js';
import { snapshotsService } from '../../src/grpc/services/snapshots.js';
import { methodOutline, type MethodOutline } from '../../src/grpc/transport.js';
import type { Engine } from '../../src/engine/engine.js';
import { startGrpcServer, type GrpcTestServer } from './grpc-server.js';
import { askReflection } from './reflection-client.js';

let server: GrpcTestServer;
beforeAll(async () => {
  server = await startGrpcServer();
});
afterAll(async () => {
  await server.stop();
});

/** What grpc-js would register for `service` if every method were registered from its descriptor. */
function fromDescriptor(service: DescService): MethodOutline[] {
  return service.methods.map((method) => ({
    path: `/${service.typeName}/${method.name}`,
    localName: method.localName,
    // Only unary and server-streaming methods can be served; anything else would mismatch here.
    responseStream: method.methodKind === 'server_streaming' ? true : method.methodKind === 'unary' ? false : (`${method.methodKind} is not served` as never),
  }));
}

const byPath = (outlines: MethodOutline[]) => [...outlines].sort((left, right) => left.path.localeCompare(right.path));

describe('the gRPC door’s descriptors', () => {
  it('the door opens and answers health checks without building Qdrant’s descriptors; the first calls, side by side, build them and are answered', async () => {
    expect(qdrantDescriptorsRequested()).toBe(false);
    const health = createClient(Health, createGrpcTransport({ baseUrl: `http://127.0.0.1:${server.grpcPort}` }));
    expect((await health.check({ service: 'qdrant.Points' })).status).toBe(1);
    expect(qdrantDescriptorsRequested()).toBe(false);

    const [reflection, listed, about] = await Promise.all([
      askReflection(server.grpcPort, { listServices: '' }),
      server.grpc.api('collections').list({}),
      server.grpc.api('service').healthCheck({}),
    ]);
    expect(qdrantDescriptorsRequested()).toBe(true);
    expect((reflection.listServicesResponse?.service ?? []).map((service) => service.name)).toContain('qdrant.Points');
    expect(listed.collections).toEqual([]);
    expect(about.title).toContain('quiverdb');
    await server.grpc.api('collections').create({ collectionName: 'early', vectorsConfig: { config: { case: 'params', value: { size: 2n, distance: 1 } } } });
    expect((await server.grpc.api('points').count({ collectionName: 'early', exact: true })).result?.count).toBe(0n);
  });

  it('every service registers exactly its descriptor’s methods: the same paths, local names and stream kinds', async () => {
    const door = {} as RestDoor;
    const handlers = {
      qdrant: qdrantService(),
      collections: collectionsService(door),
      points: pointsService(door),
      snapshots: snapshotsService(door),
      health: healthService({} as Engine, () => false),
    };
    for (const [name, source] of Object.entries(servedSources)) {
      const descriptor = (await source.describe()) as DescService;
      expect(descriptor.typeName).toBe(source.typeName);
      expect(byPath(methodOutline(source, handlers[name as keyof typeof handlers])), name).toEqual(byPath(fromDescriptor(descriptor)));
    }
  });
});
