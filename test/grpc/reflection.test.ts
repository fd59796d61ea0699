// Server reflection (docs/api.md §14): a generic gRPC tool's view of the server. A grpc-js client
// built from the reflection proto that @grpc/reflection ships lists the services and fetches the
// file that declares qdrant.Points/Search, then decodes it to check the method's message types.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fromBinary } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import * as grpc from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGrpcServer, type GrpcTestServer } from './grpc-server.js';

const require = createRequire(import.meta.url);
const reflectionProto = join(dirname(require.resolve('@grpc/reflection/package.json')), 'build', 'proto', 'grpc', 'reflection', 'v1', 'reflection.proto');

interface ReflectionAnswer {
  listServicesResponse?: { service: { name: string }[] };
  fileDescriptorResponse?: { fileDescriptorProto: Buffer[] };
  errorResponse?: { errorCode: number; errorMessage: string };
}

let server: GrpcTestServer;
beforeAll(async () => {
  server = await startGrpcServer();
});
afterAll(async () => {
  await server.stop();
});

/** One request on the bidirectional ServerReflectionInfo stream, and its one answer. */
async function ask(request: Record<string, string>): Promise<ReflectionAnswer> {
  const definition = grpc.loadPackageDefinition(loadSync(reflectionProto, { keepCase: false, longs: String, defaults: false, oneofs: true })) as unknown as {
    grpc: { reflection: { v1: { ServerReflection: grpc.ServiceClientConstructor } } };
  };
  const client = new definition.grpc.reflection.v1.ServerReflection(`127.0.0.1:${server.grpcPort}`, grpc.credentials.createInsecure());
  try {
    return await new Promise<ReflectionAnswer>((resolve, reject) => {
      const call = (client as unknown as { serverReflectionInfo(): grpc.ClientDuplexStream<unknown, ReflectionAnswer> }).serverReflectionInfo();
      call.once('data', (answer: ReflectionAnswer) => {
        resolve(answer);
        call.end();
      });
      call.once('error', reject);
      call.write(request);
    });
  } finally {
    client.close();
  }
}

describe('gRPC server reflection', () => {
  it('reflection — lists Qdrant’s services and the health service', async () => {
    const answer = await ask({ listServices: '' });
    const names = (answer.listServicesResponse?.service ?? []).map((service) => service.name).sort();
    expect(names).toEqual(expect.arrayContaining(['grpc.health.v1.Health', 'qdrant.Collections', 'qdrant.Points', 'qdrant.Qdrant', 'qdrant.Snapshots']));
  });

  it('reflection — the file declaring qdrant.Points.Search names its request and reply messages', async () => {
    const answer = await ask({ fileContainingSymbol: 'qdrant.Points' });
    const files = (answer.fileDescriptorResponse?.fileDescriptorProto ?? []).map((bytes) => fromBinary(FileDescriptorProtoSchema, bytes));
    const service = files.flatMap((file) => file.service.map((entry) => ({ file, entry }))).find(({ file, entry }) => file.package === 'qdrant' && entry.name === 'Points');
    expect(service).toBeDefined();
    const search = service!.entry.method.find((method) => method.name === 'Search');
    expect(search?.inputType).toBe('.qdrant.SearchPoints');
    expect(search?.outputType).toBe('.qdrant.SearchResponse');
  });

  it('reflection — an unknown symbol is NOT_FOUND in the answer, and the stream stays usable', async () => {
    const answer = await ask({ fileContainingSymbol: 'qdrant.NoSuchThing' });
    expect(answer.errorResponse?.errorCode).toBe(grpc.status.NOT_FOUND);
  });
});
