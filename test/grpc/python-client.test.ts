// Qdrant's Python client with prefer_grpc=True runs a whole workflow against the gRPC door
// (test/python/grpc_workflow.py). Its venv is made by scripts/python-env.mjs (pinned
// test/python/requirements.txt); without python3 or the network the test is skipped with the reason.
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGrpcServer, type GrpcTestServer } from './grpc-server.js';

const root = join(import.meta.dirname, '..', '..');
const python = join(root, '.cache', 'python-venv', 'bin', 'python');
const environment = spawnSync(process.execPath, [join(root, 'scripts', 'python-env.mjs')], { stdio: 'pipe', encoding: 'utf8', timeout: 300_000 });
const ready = environment.status === 0;
if (!ready) console.warn(`python-client.test: skipped, the Python venv could not be made: ${environment.stderr}`);

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

describe.skipIf(!ready)('qdrant-client (Python) with prefer_grpc=True', () => {
  let server: GrpcTestServer;
  beforeAll(async () => {
    server = await startGrpcServer();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('python grpc — create, upsert (2^64 - 1 and a UUID), index, filtered query, fusion, scroll, count, payload edits, delete, drop', async () => {
    const result = await runPython(join(root, 'test', 'python', 'grpc_workflow.py'), [String(server.grpcPort)]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe('ok create,upsert,index,filtered-query,fusion,scroll-count,payload,drop');
  }, 60_000);
});
