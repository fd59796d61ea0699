// A real server with both doors listening on 127.0.0.1 (ports 0), and the official gRPC client.
import { QdrantClient } from '@qdrant/js-client-grpc';
import { makeDataDirectory, removeDataDirectory, startServer, type TestServer } from '../support/server.js';
import type { Overrides } from '../support/app.js';

export interface GrpcTestServer extends TestServer {
  grpcPort: number;
  grpc: QdrantClient;
  /** A gRPC client with other options (an api key, say). */
  grpcClient(options?: { apiKey?: string }): QdrantClient;
  stop(): Promise<void>;
}

export async function startGrpcServer(overrides: Overrides = {}): Promise<GrpcTestServer> {
  const directory = await makeDataDirectory();
  const server = await startServer(directory, overrides);
  const grpcPort = await server.app.grpc.listen('127.0.0.1', 0);
  // An api key makes the client pick https unless told otherwise; the test server is plain.
  const grpcClient = (options: { apiKey?: string } = {}) =>
    new QdrantClient({ host: '127.0.0.1', port: grpcPort, https: false, checkCompatibility: false, ...options });
  return {
    ...server,
    grpcPort,
    grpc: grpcClient(),
    grpcClient,
    async stop() {
      await server.close();
      await removeDataDirectory(directory);
    },
  };
}
