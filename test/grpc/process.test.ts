// The real server process (src/main.ts) opens the gRPC door on service.grpc_port next to REST,
// and SIGTERM closes both cleanly (docs/api.md §14).
import { afterAll, describe, expect, it } from 'vitest';
import { QdrantClient } from '@qdrant/js-client-grpc';
import { loadConfig } from '../../src/config.js';
import { dataDirectoriesForFile } from '../support/server.js';
import { startChildServer, waitUntilReady } from '../support/child-server.js';
import { freePort } from './free-port.js';

const newDirectory = dataDirectoriesForFile();

describe('the gRPC door in the server process', () => {
  let stop: (() => Promise<void>) | undefined;
  afterAll(async () => {
    await stop?.();
  });

  it('grpc process — grpc_port defaults to 6574; 0 and null (also from the environment) disable it', () => {
    expect(loadConfig({}).service.grpc_port).toBe(6574);
    expect(loadConfig({ environment: { QUIVER__SERVICE__GRPC_PORT: 'null' } }).service.grpc_port).toBeNull();
    expect(loadConfig({ environment: { QUIVER__SERVICE__GRPC_PORT: '0' } }).service.grpc_port).toBe(0);
    expect(() => loadConfig({ environment: { QUIVER__SERVICE__GRPC_PORT: '70000' } })).toThrow(/grpc_port/);
  });

  it('grpc process — main.ts listens on grpc_port; a client works; SIGTERM exits 0 and both ports close', async () => {
    const grpcPort = await freePort();
    const child = await startChildServer(await newDirectory(), { QUIVER__SERVICE__GRPC_PORT: String(grpcPort) });
    stop = () => child.kill('SIGKILL');
    await waitUntilReady(child.url);
    for (let attempt = 0; attempt < 200 && !child.logLines.some((line) => line.includes('quiverdb gRPC listening')); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const client = new QdrantClient({ host: '127.0.0.1', port: grpcPort, https: false, checkCompatibility: false });
    const created = await client.api('collections').create({ collectionName: 'from_process', vectorsConfig: { config: { case: 'params', value: { size: 2n, distance: 1 } } } });
    expect(created.result).toBe(true);
    const list = await client.api('collections').list({});
    expect(list.collections.map((collection) => collection.name)).toEqual(['from_process']);

    child.process.kill('SIGTERM');
    expect(await child.exited).toBe(0);
    await expect(fetch(`${child.url}/collections`)).rejects.toThrow();
    await expect(client.api('collections').list({})).rejects.toThrow(/unavailable|ECONNREFUSED|connect/i);
  }, 60_000);
});
