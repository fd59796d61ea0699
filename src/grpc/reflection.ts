// gRPC server reflection (grpc.reflection.v1 and v1alpha, through @grpc/reflection, the gRPC
// project's own package): tools such as grpcurl and Postman list the services and read their
// messages from the server itself. It is fed the FileDescriptorProtos that the served
// descriptors were built from (Qdrant's files, their imports, and grpc.health.v1), so what
// reflection shows is exactly what transport.ts decodes.
import { createRequire } from 'node:module';
import { toBinary, type DescFile, type DescService } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import * as grpc from '@grpc/grpc-js';
import type { ReflectionService } from '@grpc/reflection';

type PackageDefinition = ConstructorParameters<typeof ReflectionService>[0];

const requireHere = createRequire(import.meta.url);
let reflectionPackage: typeof import('@grpc/reflection') | undefined;

/**
 * @grpc/reflection, loaded on its first use: with protobufjs and its own .proto files it took a
 * start ~0.11 s of this thread (its load and an empty instance for the definitions), and most
 * servers are never asked for reflection (docs/architecture.md §21).
 */
function reflection(): typeof import('@grpc/reflection') {
  return (reflectionPackage ??= requireHere('@grpc/reflection') as typeof import('@grpc/reflection'));
}

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

/** The method both reflection APIs serve: one bidirectional stream. */
const reflectionMethod = 'ServerReflectionInfo';

/** The reflection APIs @grpc/reflection serves, by the path of their one method. */
export const reflectionMethodPaths = [`/grpc.reflection.v1.ServerReflection/${reflectionMethod}`, `/grpc.reflection.v1alpha.ServerReflection/${reflectionMethod}`];

type MethodDefinition = ServiceDefinition[string];

/** The entry of `recorded` whose method has `path`. */
function servedAt(recorded: ReturnType<typeof recordedServices>, path: string): { definition: ServiceDefinition; implementation: Implementation } {
  const entry = recorded.find(({ definition }) => definition[reflectionMethod]?.path === path);
  if (!entry) throw new Error(`@grpc/reflection serves no ${path}`);
  return entry;
}

/**
 * A reflection method's definition as @grpc/reflection makes it (a test compares the two), with
 * its message codecs taken from the package on the first message: registering it loads nothing.
 */
function lazyMethod(path: string): MethodDefinition {
  let real: MethodDefinition | undefined;
  const method = (): MethodDefinition => (real ??= servedAt(packageDefinitions(), path).definition[reflectionMethod]!);
  return {
    path,
    requestStream: true,
    responseStream: true,
    originalName: 'serverReflectionInfo',
    requestSerialize: (value: unknown) => method().requestSerialize(value),
    requestDeserialize: (bytes: Buffer) => method().requestDeserialize(bytes),
    responseSerialize: (value: unknown) => method().responseSerialize(value),
    responseDeserialize: (bytes: Buffer) => method().responseDeserialize(bytes),
  };
}

let emptyInstanceServices: ReturnType<typeof recordedServices> | undefined;

/** The package's own definitions, from an empty instance (the codecs are the same for any). */
export function packageDefinitions(): ReturnType<typeof recordedServices> {
  return (emptyInstanceServices ??= recordedServices(new (reflection().ReflectionService)({} as PackageDefinition)));
}

/** The definitions `addReflection` registers (exported for the rule that they match the package's). */
export function lazyReflectionDefinitions(): ServiceDefinition[] {
  return reflectionMethodPaths.map((path) => ({ [reflectionMethod]: lazyMethod(path) }));
}

/**
 * Adds the reflection service, describing the services `describe` gives, to `server`. Building
 * it decodes and indexes every file twice (once per API version), ~0.2 s of this thread, and few
 * servers are ever asked: so the services are registered now, with definitions that load the
 * package only for their first message and handlers that build the service on the first call,
 * once the served descriptors are built too (docs/architecture.md §21). A stream's messages wait
 * in it until the real handler reads them.
 */
export function addReflection(server: grpc.Server, describe: () => Promise<readonly DescService[]>): void {
  let built: Promise<ReturnType<typeof recordedServices>> | undefined;
  const build = (): Promise<ReturnType<typeof recordedServices>> =>
    (built ??= describe().then((services) => {
      const fileDescriptorProtos = filesOf(services).map((file) => Buffer.from(toBinary(FileDescriptorProtoSchema, file.proto)));
      // @grpc/reflection reads only `fileDescriptorProtos` of each entry (what @grpc/proto-loader
      // would have produced from .proto files); the served services are the entries.
      const definition = Object.fromEntries(services.map((service) => [service.typeName, { fileDescriptorProtos }])) as unknown as PackageDefinition;
      return recordedServices(new (reflection().ReflectionService)(definition));
    }));
  for (const definition of lazyReflectionDefinitions()) {
    const path = definition[reflectionMethod]!.path;
    const lazy: Implementation = {
      [reflectionMethod]: ((call: grpc.ServerDuplexStream<unknown, unknown>) => {
        build().then(
          (services) => (servedAt(services, path).implementation[reflectionMethod] as (stream: typeof call) => void)(call),
          (error: unknown) => call.destroy(Object.assign(new Error('reflection failed'), { code: grpc.status.INTERNAL, details: error instanceof Error ? error.message : String(error) })),
        );
      }) as Implementation[string],
    };
    server.addService(definition, lazy);
  }
}
