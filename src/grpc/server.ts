// The gRPC server (docs/api.md §14): Qdrant's services plus grpc.health.v1 on service.grpc_port,
// served by @grpc/grpc-js (transport.ts). It holds no engine logic:
// every call goes through the REST door (rest-door.ts).
import type { DescService } from '@bufbuild/protobuf';
import * as grpc from '@grpc/grpc-js';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Collections, Points, Qdrant, Snapshots } from './descriptors.js';
import { Health } from './health-descriptor.js';
import { addReflection } from './reflection.js';
import { RestDoor } from './rest-door.js';
import { collectionsService } from './services/collections.js';
import { healthService } from './services/health.js';
import { pointsService } from './services/points.js';
import { qdrantService } from './services/qdrant.js';
import { snapshotsService } from './services/snapshots.js';
import { addService, type ServiceSource } from './transport.js';

let qdrantDescriptors: Promise<typeof import('./descriptors.js')> | undefined;

/**
 * Qdrant's service descriptors, built once per process: ~0.1 s of this thread, so not while the
 * door opens (docs/architecture.md §21) but on the first call, or at `GrpcServer.describe`.
 */
function loadQdrantDescriptors(): Promise<typeof import('./descriptors.js')> {
  return (qdrantDescriptors ??= import('./descriptors.js'));
}

/** Whether anything has asked for Qdrant's descriptors yet in this process (the rules check the door opens without). */
export function qdrantDescriptorsRequested(): boolean {
  return qdrantDescriptors !== undefined;
}

type QdrantServiceName = 'Qdrant' | 'Collections' | 'Points' | 'Snapshots';

/** One of Qdrant's services by name (`qdrant.<name>`), its descriptor from the shared load. */
function qdrantSource<Name extends QdrantServiceName>(name: Name): ServiceSource<Awaited<ReturnType<typeof loadQdrantDescriptors>>[Name]> {
  return { typeName: `qdrant.${name}`, describe: async () => (await loadQdrantDescriptors())[name] };
}

const qdrant: ServiceSource<typeof Qdrant> = qdrantSource('Qdrant');
const collections: ServiceSource<typeof Collections> = qdrantSource('Collections');
const points: ServiceSource<typeof Points> = qdrantSource('Points');
const snapshots: ServiceSource<typeof Snapshots> = qdrantSource('Snapshots');
// The health service's descriptor is small and stated by hand: built at once, so health checks
// never wait on Qdrant's.
const health: ServiceSource<typeof Health> = { typeName: Health.typeName, serverStreaming: ['watch'], describe: () => Health };

/** What the server serves, by name, for the rule that checks the registered paths against the descriptors. */
export const servedSources = { qdrant, collections, points, snapshots, health };

/** Every served service's descriptor (reflection describes them all). */
async function describeAll(): Promise<DescService[]> {
  return Promise.all([qdrant, collections, points, snapshots, health].map(async (source) => source.describe()));
}

/** Open calls get this long to finish at shutdown before their connections are cut. */
const shutdownGraceMilliseconds = 10_000;

export class GrpcServer {
  private server: grpc.Server | undefined;
  private closing = false;

  constructor(
    private readonly app: FastifyInstance,
    private readonly config: Config,
    private readonly logger: Logger,
  ) {}

  /** Starts listening; resolves with the bound port (useful with port 0 in tests). */
  async listen(host: string, port: number): Promise<number> {
    const door = new RestDoor(this.app);
    const bodyLimitBytes = Math.floor(this.config.service.max_request_size_mb * 1024 * 1024);
    const server = new grpc.Server({
      // The same limit as REST bodies; a larger message is RESOURCE_EXHAUSTED.
      'grpc.max_receive_message_length': bodyLimitBytes,
      'grpc.max_send_message_length': -1,
    });
    addService(server, qdrant, qdrantService(), this.logger);
    addService(server, collections, collectionsService(door), this.logger);
    addService(server, points, pointsService(door), this.logger);
    addService(server, snapshots, snapshotsService(door), this.logger);
    addService(server, health, healthService(this.app.engine, () => this.closing), this.logger);
    addReflection(server, describeAll);
    const address = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
    const bound = await new Promise<number>((resolve, reject) => {
      server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (error, boundPort) => (error ? reject(error) : resolve(boundPort)));
    });
    this.server = server;
    return bound;
  }

  /** Builds Qdrant's descriptors now, off any call's path (main.ts asks once the start is over). */
  async describe(): Promise<void> {
    await loadQdrantDescriptors();
  }

  /** Graceful: no new calls; open calls finish (at most a grace period), then connections close. */
  async close(): Promise<void> {
    this.closing = true;
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    await new Promise<void>((resolve) => {
      const force = setTimeout(() => {
        server.forceShutdown();
        resolve();
      }, shutdownGraceMilliseconds);
      force.unref();
      server.tryShutdown(() => {
        clearTimeout(force);
        resolve();
      });
    });
  }
}
