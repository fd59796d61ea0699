// A vector's on_disk through the gRPC door (docs/api.md §14, §18): Create's VectorParams.onDisk
// reaches the kernel (the originals are mapped: GET C's kernel_memory says so) and Get echoes it.
import { Distance } from '@qdrant/js-client-grpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGrpcServer, type GrpcTestServer } from './grpc-server.js';

let server: GrpcTestServer;
beforeAll(async () => {
  server = await startGrpcServer();
});
afterAll(async () => {
  await server.stop();
});

describe('on_disk through gRPC', () => {
  it('grpc on_disk — Create with VectorParams.onDisk maps the originals, and Get gives onDisk back', async () => {
    const collections = server.grpc.api('collections');
    const created = await collections.create({
      collectionName: 'mapped_grpc',
      vectorsConfig: { config: { case: 'params', value: { size: 4n, distance: Distance.Euclid, onDisk: true } } },
    });
    expect(created.result).toBe(true);
    const points = Array.from({ length: 50 }, (_, id) => ({ id, vector: [id, id % 5, -id, 1] }));
    expect((await server.request('PUT', '/collections/mapped_grpc/points?wait=true', { points })).status).toBe(200);
    const rest = (await server.request('GET', '/collections/mapped_grpc')).body;
    expect(rest.result.config.params.vectors.on_disk).toBe(true);
    expect(rest.result.kernel_memory.mapped_bytes).toBeGreaterThanOrEqual(50 * 4 * 4);
    const info = await collections.get({ collectionName: 'mapped_grpc' });
    const config = info.result?.config?.params?.vectorsConfig?.config;
    expect(config?.case === 'params' ? config.value.onDisk : undefined).toBe(true);
  });
});
