// REST and gRPC side by side (docs/api.md §12): the same searches and queries (k = 10, the same
// cycle of query vectors, optionally the same keyword filter) at the same concurrency, REST
// driven by autocannon, gRPC by N official gRPC clients (@qdrant/js-client-grpc), each with its own
// HTTP/2 connection and one call in flight, as autocannon keeps one request per connection.
import autocannon from 'autocannon';
import { QdrantClient } from '@qdrant/js-client-grpc';
import { rowJson, toFloats, type DataSet } from './data.js';
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

async function restRate(server: ServerProcess, data: DataSet, call: DoorCall, connections: number, duration_s: number, filtered: boolean) {
  const requests = Array.from({ length: data.queryCount }, (_, query) => ({
    method: 'POST' as const,
    path: `/collections/${data.name}/points/${call}`,
    headers: { 'content-type': 'application/json' },
    body: restBody(data, query, call, filtered),
  }));
  const result = await autocannon({ url: server.url, connections, duration: duration_s, requests });
  return { perSecond: result.requests.average, p50: result.latency.p50 };
}

async function grpcRate(clients: QdrantClient[], data: DataSet, call: DoorCall, duration_s: number, filtered: boolean) {
  const floats = toFloats(data.queries);
  const vectors = Array.from({ length: data.queryCount }, (_, query) => Array.from(floats.subarray(query * data.dimension, (query + 1) * data.dimension)));
  const filter = filtered
    ? { must: [{ conditionOneOf: { case: 'field' as const, value: { key: 'category', match: { matchValue: { case: 'keyword' as const, value: 'c3' } } } } }], should: [], mustNot: [] }
    : undefined;
  const latencies: number[] = [];
  let errors = 0;
  const deadline = performance.now() + duration_s * 1000;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    clients.map(async (client) => {
      const points = client.api('points');
      while (performance.now() < deadline) {
        const vector = vectors[next++ % vectors.length]!;
        const begun = performance.now();
        try {
          if (call === 'search') await points.search({ collectionName: data.name, vector, limit: 10n, filter });
          else await points.query({ collectionName: data.name, query: { variant: { case: 'nearest', value: { variant: { case: 'dense', value: { data: vector } } } } }, limit: 10n, filter });
          latencies.push(performance.now() - begun);
        } catch {
          errors += 1;
        }
      }
    }),
  );
  const wall_s = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { perSecond: latencies.length / wall_s, p50: Math.round(latencies[Math.floor(latencies.length / 2)] ?? 0), errors };
}

/** REST then gRPC for each call, concurrency and filter choice; `grpcPort` is the server's gRPC door. */
export async function compareDoors(server: ServerProcess, grpcPort: number, data: DataSet, duration_s: number, filters: readonly boolean[]): Promise<DoorResult[]> {
  const results: DoorResult[] = [];
  for (const connections of [1, 64]) {
    const clients = Array.from({ length: connections }, () => new QdrantClient({ host: '127.0.0.1', port: grpcPort, https: false, checkCompatibility: false, compression: false }));
    for (const call of ['search', 'query'] as const) {
      for (const filtered of filters) {
        const rest = await restRate(server, data, call, connections, duration_s, filtered);
        const grpc = await grpcRate(clients, data, call, duration_s, filtered);
        results.push({ call, connections, filtered, rest_per_s: rest.perSecond, grpc_per_s: grpc.perSecond, rest_p50_ms: rest.p50, grpc_p50_ms: grpc.p50, grpc_errors: grpc.errors });
        console.log(
          `${call.padEnd(6)} ${filtered ? 'filtered' : 'plain   '} ${String(connections).padStart(2)} conn: REST ${rest.perSecond.toFixed(0)} req/s (p50 ${rest.p50} ms), gRPC ${grpc.perSecond.toFixed(0)} calls/s (p50 ${grpc.p50} ms), gRPC/REST ${((100 * grpc.perSecond) / rest.perSecond).toFixed(0)}%${grpc.errors > 0 ? `, ${grpc.errors} gRPC errors` : ''}`,
        );
      }
    }
  }
  return results;
}
