// Qdrant's Python client with prefer_grpc=True runs a whole workflow against the gRPC door
// (test/python/grpc_workflow.py). Its venv is made by scripts/python-env.mjs (pinned
// test/python/requirements.txt); without python3 or the network the test is skipped with the reason.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGrpcServer, type GrpcTestServer } from './grpc-server.js';
import { pythonClientProblem, runPythonScript } from '../support/python-client.js';

const problem = pythonClientProblem();
const ready = problem === undefined;
if (!ready) console.warn(`python-client.test: skipped, ${problem}`);

describe.skipIf(!ready)('qdrant-client (Python) with prefer_grpc=True', () => {
  let server: GrpcTestServer;
  beforeAll(async () => {
    server = await startGrpcServer();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('python grpc — create, upsert (2^64 - 1 and a UUID), index, filtered query, fusion, scroll, count, payload edits, delete, drop', async () => {
    const result = await runPythonScript('grpc_workflow.py', [String(server.grpcPort)]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe('ok create,upsert,index,filtered-query,fusion,scroll-count,payload,drop');
  }, 60_000);
});
