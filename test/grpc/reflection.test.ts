// Server reflection (docs/api.md §14): a generic gRPC tool's view of the server. A grpc-js client
// built from the reflection proto that @grpc/reflection ships lists the services and fetches the
// file that declares qdrant.Points/Search, then decodes it to check the method's message types.
import { fromBinary } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lazyReflectionDefinitions, packageDefinitions } from '../../src/grpc/reflection.js';
import { startGrpcServer, type GrpcTestServer } from './grpc-server.js';
import { askReflection, type ReflectionAnswer } from './reflection-client.js';

let server: GrpcTestServer;
beforeAll(async () => {
  server = await startGrpcServer();
});
afterAll(async () => {
  await server.stop();
});

const ask = (request: Record<string, string>, version: 'v1' | 'v1alpha' = 'v1'): Promise<ReflectionAnswer> => askReflection(server.grpcPort, request, version);

describe('gRPC server reflection', () => {
  for (const version of ['v1', 'v1alpha'] as const) {
    it(`reflection — lists Qdrant’s services and the health service (${version})`, async () => {
      const answer = await ask({ listServices: '' }, version);
      const names = (answer.listServicesResponse?.service ?? []).map((service) => service.name).sort();
      expect(names).toEqual(expect.arrayContaining(['grpc.health.v1.Health', 'qdrant.Collections', 'qdrant.Points', 'qdrant.Qdrant', 'qdrant.Snapshots']));
    });
  }

  it('reflection — the services registered before @grpc/reflection loads have its paths, streaming and method names, and encode as it does', () => {
    const registered = lazyReflectionDefinitions();
    const own = packageDefinitions().map(({ definition }) => definition);
    const shape = (definitions: typeof registered) =>
      definitions.flatMap((definition) => Object.entries(definition).map(([name, method]) => [name, method.path, method.requestStream, method.responseStream, method.originalName])).sort();
    expect(shape(registered)).toEqual(shape(own));
    expect(registered).toHaveLength(2);
    for (const definition of registered) {
      const method = definition.ServerReflectionInfo!;
      const twin = own.find((candidate) => candidate.ServerReflectionInfo?.path === method.path)!.ServerReflectionInfo!;
      const request = { host: 'here', fileContainingSymbol: 'qdrant.Points' };
      const bytes = method.requestSerialize(request);
      expect(bytes).toEqual(twin.requestSerialize(request));
      expect(method.requestDeserialize(bytes)).toEqual(twin.requestDeserialize(bytes));
      const answer = { validHost: 'here', errorResponse: { errorCode: 5, errorMessage: 'no such symbol' } };
      expect(method.responseSerialize(answer)).toEqual(twin.responseSerialize(answer));
    }
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
