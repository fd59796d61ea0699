// Dense vector datatypes through the gRPC door (docs/api.md §14, §21): Create's
// VectorParams.datatype reaches the kernel (values that do not fit are refused, with_vector
// gives the stored values) and Get gives it back; a REST-created uint8 collection reads as Uint8.
import { Datatype, Distance } from '@qdrant/js-client-grpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGrpcServer, type GrpcTestServer } from './grpc-server.js';

let server: GrpcTestServer;
beforeAll(async () => {
  server = await startGrpcServer();
});
afterAll(async () => {
  await server.stop();
});

describe('datatype through gRPC', () => {
  it('grpc datatype — Create with Float16 stores it (REST shows float16, values rounded) and Get gives Float16 back', async () => {
    const collections = server.grpc.api('collections');
    const created = await collections.create({
      collectionName: 'halves_grpc',
      vectorsConfig: { config: { case: 'params', value: { size: 3n, distance: Distance.Euclid, datatype: Datatype.Float16 } } },
    });
    expect(created.result).toBe(true);
    const rest = (await server.request('GET', '/collections/halves_grpc')).body;
    expect(rest.result.config.params.vectors.datatype).toBe('float16');
    expect((await server.request('PUT', '/collections/halves_grpc/points?wait=true', { points: [{ id: 1, vector: [0.1, 2, 65504] }] })).status).toBe(200);
    const record = (await server.request('GET', '/collections/halves_grpc/points/1')).body.result;
    // 0.1 rounds to the float16 0.0999755859375 (printed in its shortest float32 form).
    expect((record.vector as number[]).map(Math.fround)).toEqual([0.0999755859375, 2, 65504]);
    const info = await collections.get({ collectionName: 'halves_grpc' });
    const config = info.result?.config?.params?.vectorsConfig?.config;
    expect(config?.case === 'params' ? config.value.datatype : undefined).toBe(Datatype.Float16);
  });

  it('grpc datatype — a REST-created uint8 collection reads back as Uint8, and a gRPC upsert out of range is refused', async () => {
    expect((await server.request('PUT', '/collections/bytes_grpc', { vectors: { size: 2, distance: 'Dot', datatype: 'uint8' } })).status).toBe(200);
    const info = await server.grpc.api('collections').get({ collectionName: 'bytes_grpc' });
    const config = info.result?.config?.params?.vectorsConfig?.config;
    expect(config?.case === 'params' ? config.value.datatype : undefined).toBe(Datatype.Uint8);
    const points = server.grpc.api('points');
    const dense = (data: number[]) => ({ vectorsOptions: { case: 'vector' as const, value: { vector: { case: 'dense' as const, value: { data } } } } });
    await expect(points.upsert({ collectionName: 'bytes_grpc', wait: true, points: [{ id: { pointIdOptions: { case: 'num', value: 1n } }, vectors: dense([1, 300]) }] })).rejects.toThrow(/uint8/);
    await points.upsert({ collectionName: 'bytes_grpc', wait: true, points: [{ id: { pointIdOptions: { case: 'num', value: 1n } }, vectors: dense([1, 255]) }] });
    expect((await server.request('GET', '/collections/bytes_grpc/points/1')).body.result.vector).toEqual([1, 255]);
  });

  it('grpc datatype — Create with Turbo4 is INVALID_ARGUMENT naming vectors.datatype as not supported, and nothing is created', async () => {
    const collections = server.grpc.api('collections');
    await expect(
      collections.create({
        collectionName: 'turbo_grpc',
        vectorsConfig: { config: { case: 'params', value: { size: 8n, distance: Distance.Cosine, datatype: Datatype.Turbo4 } } },
      }),
    ).rejects.toThrow(/vectors\.datatype: datatype turbo4 .* is not supported/);
    expect((await server.request('GET', '/collections/turbo_grpc')).status).toBe(404);
  });
});
