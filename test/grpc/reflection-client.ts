// A generic gRPC tool's reflection client: a grpc-js client built from the reflection proto that
// @grpc/reflection ships, asking one question on the ServerReflectionInfo stream.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';

const require = createRequire(import.meta.url);
const reflectionProto = (version: 'v1' | 'v1alpha') => join(dirname(require.resolve('@grpc/reflection/package.json')), 'build', 'proto', 'grpc', 'reflection', version, 'reflection.proto');

export interface ReflectionAnswer {
  listServicesResponse?: { service: { name: string }[] };
  fileDescriptorResponse?: { fileDescriptorProto: Buffer[] };
  errorResponse?: { errorCode: number; errorMessage: string };
}

/** One request on the bidirectional ServerReflectionInfo stream of the server at `port`, and its one answer. */
export async function askReflection(port: number, request: Record<string, string>, version: 'v1' | 'v1alpha' = 'v1'): Promise<ReflectionAnswer> {
  const definition = grpc.loadPackageDefinition(loadSync(reflectionProto(version), { keepCase: false, longs: String, defaults: false, oneofs: true })) as unknown as {
    grpc: { reflection: Record<'v1' | 'v1alpha', { ServerReflection: grpc.ServiceClientConstructor }> };
  };
  const client = new definition.grpc.reflection[version].ServerReflection(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
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
