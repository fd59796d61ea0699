// The frameworks Qdrant's users come through: LangChain (langchain-qdrant), LlamaIndex
// (llama-index-vector-stores-qdrant) and Haystack (qdrant-haystack), each with its own Qdrant
// integration, run for real against a server with both doors (test/python/frameworks_workflow.py):
// create, write with metadata, retrieve plain and filtered, delete, reopen or count — once with
// the client on REST and once preferring gRPC. The venv is made by scripts/python-env.mjs from
// the pinned test/python/frameworks-requirements.txt; without python3 or the network the test is
// skipped with the reason.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGrpcServer, type GrpcTestServer } from './grpc/grpc-server.js';
import { frameworksVenv, pythonVenvProblem, runPythonScript } from './support/python-client.js';

const problem = pythonVenvProblem(frameworksVenv);
const ready = problem === undefined;
if (!ready) console.warn(`frameworks.test: skipped, ${problem}`);

describe.skipIf(!ready)('LangChain, LlamaIndex and Haystack through their Qdrant integrations', () => {
  let server: GrpcTestServer;
  beforeAll(async () => {
    server = await startGrpcServer();
  });
  afterAll(async () => {
    await server.stop();
  });

  for (const door of ['rest', 'grpc'] as const) {
    it(`frameworks over ${door === 'rest' ? 'REST' : 'gRPC'} — each integration writes, retrieves (with a metadata filter), deletes and reads back`, async () => {
      const restPort = new URL(server.url).port;
      const result = await runPythonScript('frameworks_workflow.py', [restPort, String(server.grpcPort), door], frameworksVenv);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout.trim()).toBe('ok langchain,llamaindex,haystack');
    }, 120_000);
  }
});
