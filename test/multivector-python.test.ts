// Qdrant's Python client drives multivectors (docs/api.md §20) over REST and over gRPC
// (test/python/multivector_workflow.py checks every answer against brute-force MaxSim written in
// Python). Its venv is made by scripts/python-env.mjs, as for test/grpc/python-client.test.ts;
// without python3 or the network the test is skipped with the reason.
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGrpcServer, type GrpcTestServer } from './grpc/grpc-server.js';

const root = join(import.meta.dirname, '..');
const python = join(root, '.cache', 'python-venv', 'bin', 'python');
const environment = spawnSync(process.execPath, [join(root, 'scripts', 'python-env.mjs')], { stdio: 'pipe', encoding: 'utf8', timeout: 300_000 });
const ready = environment.status === 0;
if (!ready) console.warn(`multivector-python.test: skipped, the Python venv could not be made: ${environment.stderr}`);

function runPython(script: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(python, [script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

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
    const result = await runPython(join(root, 'test', 'python', 'multivector_workflow.py'), [restPort, String(server.grpcPort)]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe('ok rest,grpc');
  }, 60_000);
});
