// The gRPC server (docs/api.md §14): Qdrant's services plus grpc.health.v1 on service.grpc_port,
// served by @grpc/grpc-js (transport.ts). It holds no engine logic:
// every call goes through the REST door (rest-door.ts).
import * as grpc from '@grpc/grpc-js';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { Collections, Points, Qdrant, Snapshots } from './descriptors.js';
import { Health } from './health-descriptor.js';
import { addReflection } from './reflection.js';
import { RestDoor } from './rest-door.js';
import { collectionsService } from './services/collections.js';
import { healthService } from './services/health.js';
import { pointsService } from './services/points.js';
import { qdrantService } from './services/qdrant.js';
import { snapshotsService } from './services/snapshots.js';
import { addService } from './transport.js';

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
    addService(server, Qdrant, qdrantService(), this.logger);
    addService(server, Collections, collectionsService(door), this.logger);
    addService(server, Points, pointsService(door), this.logger);
    addService(server, Snapshots, snapshotsService(door), this.logger);
    addService(server, Health, healthService(this.app.engine, () => this.closing), this.logger);
    addReflection(server, [Qdrant, Collections, Points, Snapshots, Health]);
    const address = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
    const bound = await new Promise<number>((resolve, reject) => {
      server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (error, boundPort) => (error ? reject(error) : resolve(boundPort)));
    });
    this.server = server;
    return bound;
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
