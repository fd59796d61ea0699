// gRPC status codes and messages (docs/api.md §14): the REST answer's status mapped to a gRPC
// code, with REST's own message; malformed messages are INVALID_ARGUMENT, never a crash.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Code, createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { grpcFailure as failure } from './grpc-failure.js';
import { Distance } from '@qdrant/js-client-grpc';
import { Health } from '../../src/grpc/health-descriptor.js';
import { startGrpcServer, type GrpcTestServer } from './grpc-server.js';
import { rawUnaryCall } from './raw-call.js';

let server: GrpcTestServer;
const collectionName = 'grpc_errors';
beforeAll(async () => {
  // A small message limit (about 20 KB) so an oversized message is cheap to build.
  server = await startGrpcServer({ service: { max_request_size_mb: 0.02 } });
  await server.request('PUT', `/collections/${collectionName}`, { vectors: { size: 3, distance: 'Dot' } });
});
afterAll(async () => {
  await server.stop();
});

const denseVectors = (data: number[]) => ({ vectorsOptions: { case: 'vector' as const, value: { vector: { case: 'dense' as const, value: { data } } } } });

describe('gRPC errors', () => {
  it('grpc errors — a missing collection is NOT_FOUND with the REST message', async () => {
    const error = await failure(server.grpc.api('collections').get({ collectionName: 'nowhere' }));
    const rest = await server.request('GET', '/collections/nowhere');
    expect(rest.status).toBe(404);
    expect(error.code).toBe(Code.NotFound);
    expect(error.rawMessage).toBe(rest.body.status.error);
  });

  it('grpc errors — creating an existing collection is ALREADY_EXISTS', async () => {
    const error = await failure(
      server.grpc.api('collections').create({ collectionName, vectorsConfig: { config: { case: 'params', value: { size: 3n, distance: Distance.Dot } } } }),
    );
    expect(error.code).toBe(Code.AlreadyExists);
    expect(error.rawMessage).toBe(`Collection already exists: ${collectionName}`);
  });

  it('grpc errors — a vector of the wrong size is INVALID_ARGUMENT with the REST message', async () => {
    const error = await failure(server.grpc.api('points').upsert({ collectionName, wait: true, points: [{ id: { pointIdOptions: { case: 'num', value: 1n } }, vectors: denseVectors([1, 2]) }] }));
    const rest = await server.request('PUT', `/collections/${collectionName}/points?wait=true`, { points: [{ id: 1, vector: [1, 2] }] });
    expect(rest.status).toBe(400);
    expect(error.code).toBe(Code.InvalidArgument);
    expect(error.rawMessage).toBe(rest.body.status.error);
  });

  it('grpc errors — a point without id, an empty collection name, an unset query input: INVALID_ARGUMENT naming the field', async () => {
    const noId = await failure(server.grpc.api('points').upsert({ collectionName, points: [{ vectors: denseVectors([1, 2, 3]) }] }));
    expect(noId.code).toBe(Code.InvalidArgument);
    expect(noId.rawMessage).toMatch(/^points\[0\]\.id: /);
    const noName = await failure(server.grpc.api('points').count({ collectionName: '' }));
    expect(noName.code).toBe(Code.InvalidArgument);
    expect(noName.rawMessage).toMatch(/^collection_name: /);
    const noInput = await failure(server.grpc.api('points').query({ collectionName, query: { variant: { case: 'nearest', value: {} } } }));
    expect(noInput.code).toBe(Code.InvalidArgument);
    expect(noInput.rawMessage).toMatch(/^query\.query\.nearest: /);
  });

  it('grpc errors — bytes that are not a protobuf message are INVALID_ARGUMENT, and the server keeps serving', async () => {
    const garbage = await rawUnaryCall(server.grpcPort, '/qdrant.Points/Upsert', new Uint8Array([0xff, 0xff, 0xff, 0xff, 0xff]));
    expect(garbage.status).toBe(Code.InvalidArgument);
    expect(garbage.message).toMatch(/^Format error in protobuf message: /);
    // Field 1 (collection_name, a string) sent as a varint: the wrong wire type.
    const wrongType = await rawUnaryCall(server.grpcPort, '/qdrant.Points/Count', new Uint8Array([0x08, 0x01]));
    expect(wrongType.status).toBe(Code.InvalidArgument);
    const count = await server.grpc.api('points').count({ collectionName });
    expect(count.result?.count).toBe(0n);
  });

  it('grpc errors — an unknown method is UNIMPLEMENTED', async () => {
    const answer = await rawUnaryCall(server.grpcPort, '/qdrant.Points/NoSuchCall', new Uint8Array());
    expect(answer.status).toBe(Code.Unimplemented);
  });

  it('grpc errors — a message over the REST body limit is RESOURCE_EXHAUSTED', async () => {
    const points = Array.from({ length: 2000 }, (_, index) => ({ id: { pointIdOptions: { case: 'num' as const, value: BigInt(index + 1) } }, vectors: denseVectors([1, 2, 3]) }));
    const error = await failure(server.grpc.api('points').upsert({ collectionName, points }));
    expect(error.code).toBe(Code.ResourceExhausted);
  });

  it('grpc errors — groups, recommendations, aliases and snapshots are UNIMPLEMENTED with the REST 501 wording', async () => {
    const recommend = await failure(server.grpc.api('points').recommend({ collectionName, limit: 1n }));
    expect(recommend.code).toBe(Code.Unimplemented);
    expect(recommend.rawMessage).toBe('Recommendations is not implemented in QuiverDB');
    const groups = await failure(server.grpc.api('points').queryGroups({ collectionName, groupBy: 'a' }));
    expect(groups.rawMessage).toBe('Grouped search is not implemented in QuiverDB');
    const aliases = await failure(server.grpc.api('collections').listAliases({}));
    expect(aliases.code).toBe(Code.Unimplemented);
    expect(aliases.rawMessage).toBe('Aliases is not implemented in QuiverDB');
    const snapshots = await failure(server.grpc.api('snapshots').list({ collectionName }));
    expect(snapshots.code).toBe(Code.Unimplemented);
    expect(snapshots.rawMessage).toBe('Snapshots is not implemented in QuiverDB');
  });

  it('grpc health — Check answers SERVING for the server and for qdrant.Points, NOT_FOUND for an unknown service', async () => {
    const health = createClient(Health, createGrpcTransport({ baseUrl: `http://127.0.0.1:${server.grpcPort}` }));
    const whole = await health.check({ service: '' });
    expect(whole.status).toBe(1);
    const points = await health.check({ service: 'qdrant.Points' });
    expect(points.status).toBe(1);
    const unknown = await failure(health.check({ service: 'nope' }));
    expect(unknown.code).toBe(Code.NotFound);
  });
});
