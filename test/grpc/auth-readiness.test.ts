// Auth and readiness through the gRPC door (docs/api.md §14): the same credentials, permissions
// and 412 as REST, checked before any work.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Code, createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { grpcFailure as failure } from './grpc-failure.js';
import { QdrantClient } from '@qdrant/js-client-grpc';
import { Health } from '../../src/grpc/health-descriptor.js';
import { createAccessToken, createAuthApp, loginAdmin, type AuthTestApp } from '../support/auth.js';
import { createTestApp, type TestApp } from '../support/app.js';

function client(port: number, options: { apiKey?: string; headers?: Record<string, string> } = {}): QdrantClient {
  return new QdrantClient({ host: '127.0.0.1', port, https: false, checkCompatibility: false, ...options });
}

describe('gRPC auth', () => {
  let auth: AuthTestApp;
  let port: number;
  let readToken: string;
  let adminJwt: string;
  beforeAll(async () => {
    auth = await createAuthApp();
    port = await auth.app.grpc.listen('127.0.0.1', 0);
    adminJwt = await loginAdmin(auth.app);
    readToken = (await createAccessToken(auth.app, adminJwt, { name: 'reader', permission: 'read' })).token;
  });
  afterAll(async () => {
    await auth.dispose();
  });

  it('grpc auth — no credential is UNAUTHENTICATED with the REST message, before any work', async () => {
    const error = await failure(client(port).api('collections').create({ collectionName: 'never', vectorsConfig: { config: { case: 'params', value: { size: 2n, distance: 1 } } } }));
    const rest = await auth.app.inject({ method: 'GET', url: '/collections' });
    expect(rest.statusCode).toBe(401);
    expect(error.code).toBe(Code.Unauthenticated);
    expect(error.rawMessage).toBe(rest.json().status.error);
    const list = await client(port, { headers: { authorization: `Bearer ${adminJwt}` } }).api('collections').list({});
    expect(list.collections.map((collection) => collection.name)).not.toContain('never');
  });

  it('grpc auth — a bearer JWT in `authorization` metadata works; a read token in `api-key` may read but not write', async () => {
    const admin = client(port, { headers: { authorization: `Bearer ${adminJwt}` } });
    await admin.api('collections').create({ collectionName: 'guarded', vectorsConfig: { config: { case: 'params', value: { size: 2n, distance: 1 } } } });
    const reader = client(port, { apiKey: readToken });
    const count = await reader.api('points').count({ collectionName: 'guarded', exact: true });
    expect(count.result?.count).toBe(0n);
    const error = await failure(reader.api('collections').delete({ collectionName: 'guarded' }));
    const rest = await auth.app.inject({ method: 'DELETE', url: '/collections/guarded', headers: { 'api-key': readToken } });
    expect(rest.statusCode).toBe(403);
    expect(error.code).toBe(Code.PermissionDenied);
    expect(error.rawMessage).toBe(rest.json().status.error);
    const exists = await reader.api('collections').collectionExists({ collectionName: 'guarded' });
    expect(exists.result?.exists).toBe(true);
  });
});

describe('gRPC readiness', () => {
  let loading: TestApp;
  let port: number;
  beforeAll(async () => {
    loading = await createTestApp({ open: false });
    port = await loading.app.grpc.listen('127.0.0.1', 0);
  });
  afterAll(async () => {
    await loading.dispose();
  });

  it('grpc readiness — before the engine is ready calls are FAILED_PRECONDITION `Engine not initialized`, as REST answers 412', async () => {
    const error = await failure(client(port).api('collections').list({}));
    expect(error.code).toBe(Code.FailedPrecondition);
    expect(error.rawMessage).toBe('Engine not initialized');
  });

  it('grpc readiness — HealthCheck answers while loading; grpc.health.v1 says NOT_SERVING, then SERVING once open', async () => {
    const health = await client(port).api('service').healthCheck({});
    expect(health.version).toBe('1.19.0');
    const probe = createClient(Health, createGrpcTransport({ baseUrl: `http://127.0.0.1:${port}` }));
    expect((await probe.check({ service: '' })).status).toBe(2);
    await loading.app.engine.open();
    expect((await probe.check({ service: '' })).status).toBe(1);
  });
});
