// The gRPC server (docs/api.md §14): Qdrant's services plus grpc.health.v1 on service.grpc_port,
// served by Connect's Node adapter over HTTP/2 with the gRPC protocol. It holds no engine logic:
// every call goes through the REST door (rest-door.ts).
import { createServer, type Http2Server, type ServerHttp2Session } from 'node:http2';
import type { AddressInfo, Socket } from 'node:net';
import { compressionGzip } from '@connectrpc/connect-node';
import { Code, ConnectError, type ConnectRouter, type Interceptor } from '@connectrpc/connect';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { Collections, Points, Qdrant, Snapshots } from './descriptors.js';
import { Health } from './health-descriptor.js';
import { grpcNodeHandler } from './node-adapter.js';
import { RestDoor } from './rest-door.js';
import { collectionsService } from './services/collections.js';
import { healthService } from './services/health.js';
import { pointsService } from './services/points.js';
import { qdrantService } from './services/qdrant.js';
import { snapshotsService } from './services/snapshots.js';

export class GrpcServer {
  private server: Http2Server | undefined;
  private readonly sessions = new Set<ServerHttp2Session>();
  private closing = false;

  constructor(
    private readonly app: FastifyInstance,
    private readonly config: Config,
    private readonly logger: Logger,
  ) {}

  /** Starts listening; resolves with the bound port (useful with port 0 in tests). */
  async listen(host: string, port: number): Promise<number> {
    const door = new RestDoor(this.app);
    // A failure nobody anticipated (not a mapped REST answer) is logged, as REST logs its 500s.
    const logUnexpected: Interceptor = (next) => async (request) => {
      try {
        return await next(request);
      } catch (error) {
        if (!(error instanceof ConnectError)) this.logger.error({ err: error, method: request.method.name }, 'gRPC call failed');
        throw error;
      }
    };
    const routes = (router: ConnectRouter) => {
      router.service(Qdrant, qdrantService());
      router.service(Collections, collectionsService(door));
      router.service(Points, pointsService(door));
      router.service(Snapshots, snapshotsService(door));
      router.service(Health, healthService(this.app.engine, () => this.closing));
    };
    const bodyLimitBytes = Math.floor(this.config.service.max_request_size_mb * 1024 * 1024);
    const handler = grpcNodeHandler({
      routes,
      grpc: true,
      grpcWeb: false,
      connect: false,
      // A broken connection mid-answer is the client's doing; anything else is logged.
      onFailure: (error) => {
        if (ConnectError.from(error).code !== Code.Aborted) this.logger.error({ err: error }, 'gRPC answer could not be written');
      },
      // The same limit as REST bodies; a larger message is RESOURCE_EXHAUSTED.
      readMaxBytes: bodyLimitBytes,
      acceptCompression: [compressionGzip],
      interceptors: [logUnexpected],
    });
    const server = createServer(handler);
    // Small answers go out at once, as node's HTTP/1 server (the REST door) sends them.
    server.on('connection', (socket: Socket) => socket.setNoDelay(true));
    server.on('session', (session) => {
      this.sessions.add(session);
      session.once('close', () => this.sessions.delete(session));
    });
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    return (server.address() as AddressInfo).port;
  }

  /** Graceful: no new connections; open sessions finish their calls, then close. */
  async close(): Promise<void> {
    this.closing = true;
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const session of this.sessions) session.close();
    await closed;
  }
}
