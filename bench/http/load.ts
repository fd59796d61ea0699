// HTTP load: a fixed set of search bodies cycled over N connections, and the server's CPU use
// over the same wall time (process CPU seconds / wall seconds; 2.0 = both cores busy). Driven by
// wrk where it is installed (bench/http/wrk.ts: it leaves the server more of the two cores),
// else by autocannon in this process; the result says which.
import autocannon from 'autocannon';
import { searchBody } from './client.js';
import type { DataSet } from './data.js';
import type { ServerProcess } from './server.js';
import { wrkAvailable, wrkLoad } from './wrk.js';

export interface LoadResult {
  connections: number;
  filtered: boolean;
  requests_per_s: number;
  p50_ms: number;
  p99_ms: number;
  errors: number;
  non2xx: number;
  server_cpu_cores: number;
  /** The load generator over the same time: on 2 cores it competes with the server. */
  client_cpu_cores: number;
  generator: 'wrk' | 'autocannon';
}

export async function drive(server: ServerProcess, data: DataSet, connections: number, duration_s: number, filtered: boolean): Promise<LoadResult> {
  const bodies = Array.from({ length: data.queryCount }, (_, query) => searchBody(data, query, filtered));
  const path = `/collections/${data.name}/points/search`;
  if (wrkAvailable()) {
    const cpuBefore = server.cpuSeconds();
    const started = performance.now();
    const result = await wrkLoad(`${server.url}${path}`, bodies, connections, duration_s);
    const wall_s = (performance.now() - started) / 1000;
    const { requests_per_s, p50_ms, p99_ms, errors, non2xx } = result;
    const server_cpu_cores = (server.cpuSeconds() - cpuBefore) / wall_s;
    return { connections, filtered, requests_per_s, p50_ms, p99_ms, errors, non2xx, server_cpu_cores, client_cpu_cores: result.cpu_s / wall_s, generator: 'wrk' };
  }
  const requests = bodies.map((body) => ({ method: 'POST' as const, path, headers: { 'content-type': 'application/json' }, body }));
  const cpuBefore = server.cpuSeconds();
  const clientBefore = process.cpuUsage();
  const started = performance.now();
  const result = await autocannon({ url: server.url, connections, duration: duration_s, requests });
  const wall_s = (performance.now() - started) / 1000;
  const cpu_s = server.cpuSeconds() - cpuBefore;
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
    client_cpu_cores: (client.user + client.system) / 1e6 / wall_s,
    generator: 'autocannon',
  };
}
