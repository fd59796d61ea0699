// The gRPC transport: @grpc/grpc-js serving services written against Qdrant's descriptors
// (docs/architecture.md §11). Each method's messages are decoded and encoded with
// @bufbuild/protobuf from the descriptor itself, so the wire format is Qdrant's own; handlers
// are plain (request, context) functions and know nothing of the transport.
//
// Why grpc-js rather than Connect's Node server: measured here on a HealthCheck from Python's
// grpcio (no engine work), Connect's server cost 2.1 ms a call and grpc-js 0.9 ms (bench/README.md).
import { create, fromBinary, toBinary, type DescMessage, type DescMethod, type DescService, type MessageInitShape, type MessageShape } from '@bufbuild/protobuf';
import { Code, ConnectError } from '@connectrpc/connect';
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';

/** What a handler may read of its call: the request metadata, as Connect's HandlerContext has it. */
export interface CallContext {
  requestHeader: { get(name: string): string | null };
}

type MethodHandler<Method> = Method extends { methodKind: 'unary'; input: infer Input extends DescMessage; output: infer Output extends DescMessage }
  ? (request: MessageShape<Input>, context: CallContext) => MessageInitShape<Output> | Promise<MessageInitShape<Output>>
  : Method extends { methodKind: 'server_streaming'; input: infer Input extends DescMessage; output: infer Output extends DescMessage }
    ? (request: MessageShape<Input>, context: CallContext) => AsyncIterable<MessageInitShape<Output>>
    : never;

/** A service's handlers, keyed by the method's localName, typed from its descriptor. */
export type ServiceHandlers<Service extends DescService> = { [Name in keyof Service['method']]: MethodHandler<Service['method'][Name]> };

type UnaryHandler = (request: never, context: CallContext) => unknown;
type StreamHandler = (request: never, context: CallContext) => AsyncIterable<unknown>;

/** Metadata read as headers: string values only (binary `-bin` entries are not credentials). */
function contextOf(metadata: grpc.Metadata): CallContext {
  return {
    requestHeader: {
      get(name: string) {
        const value = metadata.get(name)[0];
        return typeof value === 'string' ? value : null;
      },
    },
  };
}

/** A thrown error as a gRPC status: ConnectError codes are gRPC's own numbers. */
function statusOf(error: unknown, logger: Logger, method: string): Partial<grpc.StatusObject> {
  if (error instanceof ConnectError) {
    const metadata = new grpc.Metadata();
    error.metadata.forEach((value, key) => metadata.set(key, value));
    return { code: error.code as number, details: error.rawMessage, metadata };
  }
  // Not a mapped REST answer: a fault nobody anticipated, logged as REST logs its 500s.
  logger.error({ err: error, method }, 'gRPC call failed');
  return { code: grpc.status.INTERNAL, details: 'Service internal error' };
}

/** Request bytes are decoded in the handler, not by grpc-js, so a bad message is INVALID_ARGUMENT. */
function decode(schema: DescMessage, bytes: Buffer): unknown {
  try {
    return fromBinary(schema, bytes);
  } catch (error) {
    throw new ConnectError(`Format error in protobuf message: ${error instanceof Error ? error.message : String(error)}`, Code.InvalidArgument);
  }
}

function encode(schema: DescMessage, message: unknown): Buffer {
  const bytes = toBinary(schema, create(schema, message as never));
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

const passBytes = (bytes: Buffer): Buffer => bytes;

/**
 * A service as the transport registers it: its full name, the local names of its server-streaming
 * methods, and its descriptor, given now or built on demand. Qdrant's descriptors take this
 * thread ~0.1 s to build, so the door opens with names only and builds them after the start
 * (or for the first call that comes sooner); docs/architecture.md §21.
 */
export interface ServiceSource<Service extends DescService> {
  typeName: Service['typeName'];
  serverStreaming?: readonly string[];
  describe(): Service | Promise<Service>;
}

/** One registered method: grpc-js's path and stream kind, and the handler's key. */
export interface MethodOutline {
  path: string;
  localName: string;
  responseStream: boolean;
}

/**
 * The methods `handlers` implement, as grpc-js registers them: a method's proto name is its
 * local name with the first letter in upper case (protobuf-es lower-cases it; a rule checks
 * every service against its descriptor).
 */
export function methodOutline(source: Pick<ServiceSource<DescService>, 'typeName' | 'serverStreaming'>, handlers: object): MethodOutline[] {
  return Object.keys(handlers).map((localName) => ({
    path: `/${source.typeName}/${localName.charAt(0).toUpperCase()}${localName.slice(1)}`,
    localName,
    responseStream: source.serverStreaming?.includes(localName) ?? false,
  }));
}

/** The descriptor of one method, looked up once the service's descriptor is built, then kept. */
function methodResolver(source: ServiceSource<DescService>, localName: string): () => DescMethod | Promise<DescMethod> {
  let method: DescMethod | undefined;
  return () =>
    method ??
    Promise.resolve(source.describe()).then((service) => {
      const found = service.methods.find((candidate) => candidate.localName === localName);
      if (found === undefined) throw new Error(`${service.typeName} has no method ${localName}`);
      return (method = found);
    });
}

function unaryMethod(outline: MethodOutline, resolve: () => DescMethod | Promise<DescMethod>, handler: UnaryHandler, logger: Logger): grpc.handleUnaryCall<Buffer, Buffer> {
  return (call, callback) => {
    (async () => {
      const method = await resolve();
      return { method, result: await handler(decode(method.input, call.request) as never, contextOf(call.metadata)) };
    })().then(
      ({ method, result }) => {
        let bytes: Buffer;
        try {
          bytes = encode(method.output, result);
        } catch (error) {
          callback(statusOf(error, logger, outline.path));
          return;
        }
        callback(null, bytes);
      },
      (error: unknown) => callback(statusOf(error, logger, outline.path)),
    );
  };
}

function serverStreamMethod(outline: MethodOutline, resolve: () => DescMethod | Promise<DescMethod>, handler: StreamHandler, logger: Logger): grpc.handleServerStreamingCall<Buffer, Buffer> {
  return (call) => {
    (async () => {
      const method = await resolve();
      for await (const item of handler(decode(method.input, call.request) as never, contextOf(call.metadata))) {
        if (call.cancelled) return;
        call.write(encode(method.output, item));
      }
      call.end();
    })().catch((error: unknown) => call.destroy(Object.assign(new Error('call failed'), statusOf(error, logger, outline.path))));
  };
}

/** Adds the service `source` names with `handlers` (keyed by the method's localName) to a grpc-js server. */
export function addService<Service extends DescService>(server: grpc.Server, source: ServiceSource<Service>, handlers: ServiceHandlers<Service>, logger: Logger): void {
  const definition: Record<string, grpc.MethodDefinition<Buffer, Buffer>> = {};
  const implementation: grpc.UntypedServiceImplementation = {};
  for (const outline of methodOutline(source, handlers)) {
    const handler = (handlers as Record<string, UnaryHandler | StreamHandler>)[outline.localName]!;
    const resolve = methodResolver(source, outline.localName);
    definition[outline.localName] = {
      path: outline.path,
      requestStream: false,
      responseStream: outline.responseStream,
      requestSerialize: passBytes,
      requestDeserialize: passBytes,
      responseSerialize: passBytes,
      responseDeserialize: passBytes,
    };
    implementation[outline.localName] = outline.responseStream
      ? serverStreamMethod(outline, resolve, handler as StreamHandler, logger)
      : unaryMethod(outline, resolve, handler as UnaryHandler, logger);
  }
  server.addService(definition, implementation);
}
