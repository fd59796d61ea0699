// HTTP load with autocannon: a fixed set of search bodies cycled over N connections, and the
// server's CPU use over the same wall time (process CPU seconds / wall seconds; 2.0 = both
// cores busy).
import autocannon from 'autocannon';
import { searchBody } from './client.js';
import { staggeredClients } from './staggered-clients.js';
import type { DataSet } from './data.js';
import type { ServerProcess } from './server.js';

export interface LoadResult {
  connections: number;
  filtered: boolean;
  requests_per_s: number;
  p50_ms: number;
  p99_ms: number;
  errors: number;
  non2xx: number;
  server_cpu_cores: number;
  /** The server's JS thread alone: 1.0 means the event loop was never idle. */
  server_js_thread_cores: number;
  /** This process (the load generator) over the same time: on 2 cores it competes with the server. */
  client_cpu_cores: number;
}

export async function drive(server: ServerProcess, data: DataSet, connections: number, duration_s: number, filtered: boolean): Promise<LoadResult> {
  const requests = Array.from({ length: data.queryCount }, (_, query) => ({
    method: 'POST' as const,
    path: `/collections/${data.name}/points/search`,
    headers: { 'content-type': 'application/json' },
    body: searchBody(data, query, filtered),
  }));
  const cpuBefore = server.cpuSeconds();
  const jsThreadBefore = server.jsThreadCpuSeconds();
  const clientBefore = process.cpuUsage();
  const started = performance.now();
  const result = await autocannon({ url: server.url, connections, duration: duration_s, requests, setupClient: staggeredClients(requests, connections) });
  const wall_s = (performance.now() - started) / 1000;
  const cpu_s = server.cpuSeconds() - cpuBefore;
  const jsThread_s = server.jsThreadCpuSeconds() - jsThreadBefore;
  const client = process.cpuUsage(clientBefore);
  return {
    connections,
    filtered,
    requests_per_s: result.requests.average,
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
    server_cpu_cores: cpu_s / wall_s,
    server_js_thread_cores: jsThread_s / wall_s,
    client_cpu_cores: (client.user + client.system) / 1e6 / wall_s,
  };
}
