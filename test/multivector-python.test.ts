// Qdrant's Python client drives multivectors (docs/api.md §20) over REST and over gRPC
// (test/python/multivector_workflow.py checks every answer against brute-force MaxSim written in
// Python). Its venv is made by scripts/python-env.mjs, as for test/grpc/python-client.test.ts;
// without python3 or the network the test is skipped with the reason.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGrpcServer, type GrpcTestServer } from './grpc/grpc-server.js';
import { pythonClientProblem, runPythonScript } from './support/python-client.js';

const problem = pythonClientProblem();
const ready = problem === undefined;
if (!ready) console.warn(`multivector-python.test: skipped, ${problem}`);

describe.skipIf(!ready)('qdrant-client (Python) with multivectors', () => {
  let server: GrpcTestServer;
  beforeAll(async () => {
    server = await startGrpcServer();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('python multivector — REST then gRPC: create with MaxSim, upsert number[][], query, filter, dense-then-multivector rerank, with_vectors', async () => {
    const restPort = new URL(server.url).port;
    const result = await runPythonScript('multivector_workflow.py', [restPort, String(server.grpcPort)]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe('ok rest,grpc');
  }, 60_000);
});
