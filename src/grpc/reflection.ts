// gRPC server reflection (grpc.reflection.v1 and v1alpha, through @grpc/reflection, the gRPC
// project's own package): tools such as grpcurl and Postman list the services and read their
// messages from the server itself. It is fed the FileDescriptorProtos that the served
// descriptors were built from (Qdrant's files, their imports, and grpc.health.v1), so what
// reflection shows is exactly what transport.ts decodes.
import { toBinary, type DescFile, type DescService } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import type * as grpc from '@grpc/grpc-js';
import { ReflectionService } from '@grpc/reflection';

type PackageDefinition = ConstructorParameters<typeof ReflectionService>[0];

/** Every file the services need, each once: their own files and, transitively, their imports. */
function filesOf(services: readonly DescService[]): DescFile[] {
  const files = new Map<string, DescFile>();
  const visit = (file: DescFile): void => {
    if (files.has(file.proto.name)) return;
    files.set(file.proto.name, file);
    for (const dependency of file.dependencies) visit(dependency);
  };
  for (const service of services) visit(service.file);
  return [...files.values()];
}

/** Adds the reflection service, describing `services`, to `server`. */
export function addReflection(server: grpc.Server, services: readonly DescService[]): void {
  const fileDescriptorProtos = filesOf(services).map((file) => Buffer.from(toBinary(FileDescriptorProtoSchema, file.proto)));
  // @grpc/reflection reads only `fileDescriptorProtos` of each entry (what @grpc/proto-loader
  // would have produced from .proto files); the served services are the entries.
  const definition = Object.fromEntries(services.map((service) => [service.typeName, { fileDescriptorProtos }])) as unknown as PackageDefinition;
  new ReflectionService(definition).addToServer(server);
}
