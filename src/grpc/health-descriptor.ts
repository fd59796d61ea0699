// grpc.health.v1.Health (the standard gRPC health checking protocol), described with the same
// protobuf library as Qdrant's services. The file is small enough to state here as a
// FileDescriptorProto instead of generating code from health.proto; field numbers are the
// protocol's own: HealthCheckRequest{service = 1}, HealthCheckResponse{status = 1}.
import { create, createFileRegistry, type Message } from '@bufbuild/protobuf';
import type { GenMessage, GenService } from '@bufbuild/protobuf/codegenv2';
import {
  FieldDescriptorProto_Label,
  FieldDescriptorProto_Type,
  FileDescriptorProtoSchema,
} from '@bufbuild/protobuf/wkt';

const file = create(FileDescriptorProtoSchema, {
  name: 'grpc/health/v1/health.proto',
  package: 'grpc.health.v1',
  syntax: 'proto3',
  messageType: [
    {
      name: 'HealthCheckRequest',
      field: [{ name: 'service', jsonName: 'service', number: 1, type: FieldDescriptorProto_Type.STRING, label: FieldDescriptorProto_Label.OPTIONAL }],
    },
    {
      name: 'HealthCheckResponse',
      field: [{ name: 'status', jsonName: 'status', number: 1, type: FieldDescriptorProto_Type.ENUM, typeName: '.grpc.health.v1.HealthCheckResponse.ServingStatus', label: FieldDescriptorProto_Label.OPTIONAL }],
      enumType: [
        {
          name: 'ServingStatus',
          value: [
            { name: 'UNKNOWN', number: 0 },
            { name: 'SERVING', number: 1 },
            { name: 'NOT_SERVING', number: 2 },
            { name: 'SERVICE_UNKNOWN', number: 3 },
          ],
        },
      ],
    },
  ],
  service: [
    {
      name: 'Health',
      method: [
        { name: 'Check', inputType: '.grpc.health.v1.HealthCheckRequest', outputType: '.grpc.health.v1.HealthCheckResponse' },
        { name: 'Watch', inputType: '.grpc.health.v1.HealthCheckRequest', outputType: '.grpc.health.v1.HealthCheckResponse', serverStreaming: true },
      ],
    },
  ],
});

const registry = createFileRegistry(file, () => undefined);

export type HealthCheckRequest = Message<'grpc.health.v1.HealthCheckRequest'> & { service: string };
export type HealthCheckResponse = Message<'grpc.health.v1.HealthCheckResponse'> & { status: number };

// Typed as generated code would type them, so handlers and test clients are checked.
export const HealthCheckRequestSchema = registry.getMessage('grpc.health.v1.HealthCheckRequest') as unknown as GenMessage<HealthCheckRequest>;
export const HealthCheckResponseSchema = registry.getMessage('grpc.health.v1.HealthCheckResponse') as unknown as GenMessage<HealthCheckResponse>;
export const Health = registry.getService('grpc.health.v1.Health') as unknown as GenService<{
  check: { methodKind: 'unary'; input: typeof HealthCheckRequestSchema; output: typeof HealthCheckResponseSchema };
  watch: { methodKind: 'server_streaming'; input: typeof HealthCheckRequestSchema; output: typeof HealthCheckResponseSchema };
}>;

export const ServingStatus = { UNKNOWN: 0, SERVING: 1, NOT_SERVING: 2, SERVICE_UNKNOWN: 3 } as const;
