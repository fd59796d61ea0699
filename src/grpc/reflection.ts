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

type ServiceDefinition = Parameters<grpc.Server['addService']>[0];
type Implementation = Parameters<grpc.Server['addService']>[1];

/** What `ReflectionService.addToServer` adds (v1 and v1alpha), captured instead of served. */
function recordedServices(reflection: ReflectionService): { definition: ServiceDefinition; implementation: Implementation }[] {
  const recorded: { definition: ServiceDefinition; implementation: Implementation }[] = [];
  reflection.addToServer({ addService: (definition, implementation) => recorded.push({ definition, implementation }) });
  return recorded;
}

/**
 * Adds the reflection service, describing `services`, to `server`. Building it decodes and
 * indexes every file twice (once per API version), ~0.2 s of this thread, and few servers are
 * ever asked: so the services are registered now with handlers that build it on the first
 * call (docs/architecture.md §21). The definitions come from an empty instance, which is cheap.
 */
export function addReflection(server: grpc.Server, services: readonly DescService[]): void {
  let built: ReturnType<typeof recordedServices> | undefined;
  const build = (): ReturnType<typeof recordedServices> => {
    if (built) return built;
    const fileDescriptorProtos = filesOf(services).map((file) => Buffer.from(toBinary(FileDescriptorProtoSchema, file.proto)));
    // @grpc/reflection reads only `fileDescriptorProtos` of each entry (what @grpc/proto-loader
    // would have produced from .proto files); the served services are the entries.
    const definition = Object.fromEntries(services.map((service) => [service.typeName, { fileDescriptorProtos }])) as unknown as PackageDefinition;
    built = recordedServices(new ReflectionService(definition));
    return built;
  };
  const empty = recordedServices(new ReflectionService({} as PackageDefinition));
  empty.forEach(({ definition }, position) => {
    const lazy: Implementation = {};
    for (const methodName of Object.keys(definition)) {
      lazy[methodName] = ((...callArguments: unknown[]) => {
        const handler = build()[position]!.implementation[methodName] as (...handlerArguments: unknown[]) => void;
        handler(...callArguments);
      }) as Implementation[string];
    }
    server.addService(definition, lazy);
  });
}
