// REST and gRPC side by side (docs/api.md §14): the same searches and queries (k = 10, the same
// cycle of query vectors, optionally the same keyword filter) at the same concurrency. REST is
// driven by autocannon (request bodies built once, answers not parsed); gRPC the same way: the
// request messages are encoded once with Qdrant's descriptors, and N HTTP/2 connections each keep
// one call in flight, reading only the status. A full client (@qdrant/js-client-grpc) would spend
// more CPU per call in this process than the server does, and would measure itself, not the door.
import { connect, type ClientHttp2Session } from 'node:http2';
import autocannon from 'autocannon';
import { create, toBinary } from '@bufbuild/protobuf';
import { QueryPointsSchema, SearchPointsSchema } from '@qdrant/js-client-grpc';
import { rowJson, toFloats, type DataSet } from './data.js';
import { staggeredClients } from './staggered-clients.js';
import type { ServerProcess } from './server.js';

export type DoorCall = 'search' | 'query';

export interface DoorResult {
  call: DoorCall;
  connections: number;
  filtered: boolean;
  rest_per_s: number;
  grpc_per_s: number;
  rest_p50_ms: number;
  grpc_p50_ms: number;
  grpc_errors: number;
}

function restBody(data: DataSet, query: number, call: DoorCall, filtered: boolean): string {
  const filter = filtered ? `,"filter":{"must":[{"key":"category","match":{"value":"c3"}}]}` : '';
  const vector = rowJson(data.queries, query, data.dimension);
  return call === 'search' ? `{"vector":${vector},"limit":10${filter}}` : `{"query":${vector},"limit":10${filter}}`;
}

export async function restRate(server: ServerProcess, data: DataSet, call: DoorCall, connections: number, duration_s: number, filtered: boolean) {
  const requests = Array.from({ length: data.queryCount }, (_, query) => ({
    method: 'POST' as const,
    path: `/collections/${data.name}/points/${call}`,
    headers: { 'content-type': 'application/json' },
    body: restBody(data, query, call, filtered),
  }));
  const result = await autocannon({ url: server.url, connections, duration: duration_s, requests, setupClient: staggeredClients(requests, connections) });
  return { perSecond: result.requests.average, p50: result.latency.p50 };
}

/** Each query's request as a length-prefixed gRPC message, encoded once. */
function grpcFrames(data: DataSet, call: DoorCall, filtered: boolean): Buffer[] {
  const floats = toFloats(data.queries);
  const filter = filtered
    ? { must: [{ conditionOneOf: { case: 'field' as const, value: { key: 'category', match: { matchValue: { case: 'keyword' as const, value: 'c3' } } } } }], should: [], mustNot: [] }
    : undefined;
  return Array.from({ length: data.queryCount }, (_, query) => {
    const vector = Array.from(floats.subarray(query * data.dimension, (query + 1) * data.dimension));
    const message =
      call === 'search'
        ? toBinary(SearchPointsSchema, create(SearchPointsSchema, { collectionName: data.name, vector, limit: 10n, filter }))
        : toBinary(QueryPointsSchema, create(QueryPointsSchema, { collectionName: data.name, query: { variant: { case: 'nearest', value: { variant: { case: 'dense', value: { data: vector } } } } }, limit: 10n, filter }));
    const frame = Buffer.alloc(5 + message.length);
    frame.writeUInt32BE(message.length, 1);
    Buffer.from(message).copy(frame, 5);
    return frame;
  });
}

/** One unary call; resolves with its grpc-status (0 is OK). */
function unary(session: ClientHttp2Session, path: string, frame: Buffer): Promise<number> {
  return new Promise((resolve) => {
    const stream = session.request({ ':method': 'POST', ':path': path, 'content-type': 'application/grpc', te: 'trailers' });
    let status = -1;
    stream.on('response', (headers) => {
      if (headers['grpc-status'] !== undefined) status = Number(headers['grpc-status']);
    });
    stream.on('trailers', (trailers) => {
      status = Number(trailers['grpc-status']);
    });
    stream.on('data', () => undefined);
    stream.on('error', () => resolve(-1));
    stream.on('close', () => resolve(status));
    stream.end(frame);
  });
}

/** N HTTP/2 connections, one call in flight each, for `duration_s`; counts the calls that answered OK. */
export async function grpcRate(grpcPort: number, data: DataSet, call: DoorCall, connections: number, duration_s: number, filtered: boolean) {
  const frames = grpcFrames(data, call, filtered);
  const path = call === 'search' ? '/qdrant.Points/Search' : '/qdrant.Points/Query';
  const sessions = Array.from({ length: connections }, () => connect(`http://127.0.0.1:${grpcPort}`));
  const latencies: number[] = [];
  let errors = 0;
  let next = 0;
  const started = performance.now();
  const deadline = started + duration_s * 1000;
  await Promise.all(
    sessions.map(async (session) => {
      while (performance.now() < deadline) {
        const begun = performance.now();
        const status = await unary(session, path, frames[next++ % frames.length]!);
        if (status === 0) latencies.push(performance.now() - begun);
        else errors += 1;
      }
    }),
  );
  const wall_s = (performance.now() - started) / 1000;
  for (const session of sessions) session.close();
  latencies.sort((a, b) => a - b);
  return { perSecond: latencies.length / wall_s, p50: Math.round(latencies[Math.floor(latencies.length / 2)] ?? 0), errors };
}

/** REST then gRPC for each call, concurrency and filter choice; `grpcPort` is the server's gRPC door. */
export async function compareDoors(server: ServerProcess, grpcPort: number, data: DataSet, duration_s: number, filters: readonly boolean[]): Promise<DoorResult[]> {
  const results: DoorResult[] = [];
  await server.grpcListening;
  for (const connections of [1, 64]) {
    for (const call of ['search', 'query'] as const) {
      for (const filtered of filters) {
        const rest = await restRate(server, data, call, connections, duration_s, filtered);
        const grpc = await grpcRate(grpcPort, data, call, connections, duration_s, filtered);
        results.push({ call, connections, filtered, rest_per_s: rest.perSecond, grpc_per_s: grpc.perSecond, rest_p50_ms: rest.p50, grpc_p50_ms: grpc.p50, grpc_errors: grpc.errors });
        console.log(
          `${call.padEnd(6)} ${filtered ? 'filtered' : 'plain   '} ${String(connections).padStart(2)} conn: REST ${rest.perSecond.toFixed(0)} req/s (p50 ${rest.p50} ms), gRPC ${grpc.perSecond.toFixed(0)} calls/s (p50 ${grpc.p50} ms), gRPC/REST ${((100 * grpc.perSecond) / rest.perSecond).toFixed(0)}%${grpc.errors > 0 ? `, ${grpc.errors} gRPC errors` : ''}`,
        );
      }
    }
  }
  return results;
}
