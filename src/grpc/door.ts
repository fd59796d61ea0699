// The gRPC door as the app holds it (docs/api.md §14): the gRPC stack (grpc-js, the services) is
// loaded only when the door opens, so a server with gRPC off never loads it, and one with gRPC on
// loads it after REST listens, while the engine opens; Qdrant's message descriptors are built
// after the start, or for the first call that comes sooner (docs/architecture.md §21). The
// server itself is server.ts.
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { GrpcServer } from './server.js';

export class GrpcDoor {
  private server: GrpcServer | undefined;
  private closed = false;

  constructor(
    private readonly app: FastifyInstance,
    private readonly config: Config,
    private readonly logger: Logger,
  ) {}

  /** Starts listening; resolves with the bound port (useful with port 0 in tests). */
  async listen(host: string, port: number): Promise<number> {
    const { GrpcServer } = await import('./server.js');
    if (this.closed) throw new Error('the gRPC door was closed before it opened');
    const server = new GrpcServer(this.app, this.config, this.logger);
    this.server = server;
    return server.listen(host, port);
  }

  /** Builds Qdrant's message descriptors now rather than on the first call (none if the door is not open). */
  async describe(): Promise<void> {
    await this.server?.describe();
  }

  /** Graceful: no new calls; open calls finish (at most a grace period), then connections close. */
  async close(): Promise<void> {
    this.closed = true;
    await this.server?.close();
  }
}
