// bench:http's floors: the thinnest search servers over the same kernel, each a child process like
// the server under test, so that what QuiverDB's server costs beyond the stack it stands on reads
// apart from what the stack and the load generator leave of the kernel's own rate.
//
// Each floor parses the body with QuiverDB's own parser (parseJsonBytes: the kernel reads the
// vector's numbers), searches the same kernel index through the same asynchronous
// `VectorIndex.search` the server uses (inline or on the kernel pool, src/native/inline-search.ts)
// and answers `{"result": [{id, version, score}...], "status": "ok", "time": 0}` by
// JSON.stringify. Nothing else: no hooks, validation, auth, planner, payloads or storage; the
// keyword filter of bench:http is answered by the bitset of its points, computed once, as the
// kernel's own runs are (kernel.ts).
// - `fastify`: one fastify route (the stack the server is built on), no other plugin;
// - `node`: Node's own `http` server, no framework at all.
//
// Arguments: the kind, then the DataSet options as JSON (makeDataSet: the same points as the
// server's). Prints `{"msg":"floor listening","address":...}` once it answers (server.ts).
import Fastify from 'fastify';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseJsonBytes } from '../../src/json/parse.js';
import { makeDataSet } from './data.js';
import { buildKernel, type KernelSide } from './kernel.js';

export const floorKinds = ['fastify', 'node'] as const;
export type FloorKind = (typeof floorKinds)[number];

interface SearchBody {
  vector: number[];
  limit: number;
  filter?: unknown;
}

/** The answer's text for one search body: the part both floors share. */
async function answer(kernel: KernelSide, body: SearchBody): Promise<string> {
  const result = await kernel.index.search(Float32Array.from(body.vector), body.limit, body.filter === undefined ? {} : { allowed: kernel.filteredBits });
  const points: { id: number; version: number; score: number }[] = [];
  for (let position = 0; position < result.slots.length; position++) {
    // The benchmark's point ids are the kernel's slots (points are loaded in order from 0).
    points.push({ id: result.slots[position]!, version: 0, score: result.scores[position]! });
  }
  return JSON.stringify({ result: points, status: 'ok', time: 0 });
}

async function listenFastify(kernel: KernelSide): Promise<{ address: string; close(): Promise<void> }> {
  const app = Fastify({ logger: false });
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => {
    try {
      done(null, parseJsonBytes(body as Buffer));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  app.post('/collections/:collection_name/points/search', async (request, reply) => {
    reply.type('application/json');
    return answer(kernel, request.body as SearchBody);
  });
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  return { address, close: () => app.close() };
}

async function listenNode(kernel: KernelSide): Promise<{ address: string; close(): Promise<void> }> {
  const respond = (response: ServerResponse, status: number, text: string) => {
    response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    response.end(text);
  };
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method !== 'POST' || !request.url?.endsWith('/points/search')) return respond(response, 404, '{"status":{"error":"not found"}}');
      // Parsed inside the promise, so a malformed body is a 400, not an exception that ends the process.
      Promise.resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks))
        .then((body) => answer(kernel, parseJsonBytes(body) as SearchBody))
        .then(
          (text) => respond(response, 200, text),
          (error: unknown) => respond(response, 400, JSON.stringify({ status: { error: String(error) } })),
        );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { address: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

async function main(): Promise<void> {
  const kind = process.argv[2] as FloorKind;
  if (!floorKinds.includes(kind)) throw new Error(`floor kind must be one of ${floorKinds.join(', ')}`);
  const data = makeDataSet(JSON.parse(process.argv[3]!) as Parameters<typeof makeDataSet>[0]);
  const kernel = await buildKernel(data);
  const server = kind === 'fastify' ? await listenFastify(kernel) : await listenNode(kernel);
  console.log(JSON.stringify({ msg: 'floor listening', address: server.address }));
  process.once('SIGTERM', () => {
    void server.close().then(() => {
      kernel.index.close();
      process.exit(0);
    });
  });
}

// Run as a script (bench:http starts it); imported, it only lends its kinds.
if (process.argv[1]?.endsWith('floor-server.ts')) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
