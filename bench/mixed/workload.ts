// The mixed workload: N connections, each a loop that picks search, upsert or scroll by weight
// and records the latency and status of every request, over keep-alive HTTP/1.1 (node:http,
// lighter than fetch, so the load generator takes less of the machine from the server).
import { Agent, request } from 'node:http';
import { mulberry32 } from '../../test/support/seeded-random.js';
import { rowJson, type DataSet } from '../http/data.js';

export type OperationName = 'search' | 'upsert' | 'scroll';

export interface OperationStats {
  latencies_ms: number[];
  ok: number;
  /** Refused by a full write queue (docs/api.md §8): expected back-pressure, not a failure. */
  unavailable: number;
  /** Any other non-200 answer or a transport error: a failure of the run. */
  failed: number;
  firstFailure?: string;
}

export interface WorkloadOptions {
  url: string;
  data: DataSet;
  connections: number;
  duration_ms: number;
  weights: Record<OperationName, number>;
  /** Points per upsert request. */
  upsertBatch: number;
  seed: number;
}

interface Answer {
  status: number;
  body: string;
}

function send(agent: Agent, url: URL, method: string, path: string, body: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      { agent, host: url.hostname, port: url.port, method, path, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        incoming.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

function emptyStats(): OperationStats {
  return { latencies_ms: [], ok: 0, unavailable: 0, failed: 0 };
}

/** The value below which `fraction` of the sorted latencies fall (nearest rank). */
export function percentile(sorted: number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))]!;
}

/** Runs the workload for its duration; returns the statistics per operation. */
export async function runWorkload(options: WorkloadOptions): Promise<Record<OperationName, OperationStats>> {
  const { data, url: base } = options;
  const url = new URL(base);
  const agent = new Agent({ keepAlive: true, maxSockets: options.connections });
  const stats: Record<OperationName, OperationStats> = { search: emptyStats(), upsert: emptyStats(), scroll: emptyStats() };
  const names = (Object.keys(options.weights) as OperationName[]).filter((name) => options.weights[name] > 0);
  const total = names.reduce((sum, name) => sum + options.weights[name], 0);
  const deadline = performance.now() + options.duration_ms;
  const collectionPath = `/collections/${data.name}`;

  async function connection(index: number): Promise<void> {
    const random = mulberry32(options.seed + index);
    while (performance.now() < deadline) {
      let draw = random() * total;
      const operation = names.find((name) => (draw -= options.weights[name]) < 0) ?? names[names.length - 1]!;
      let method = 'POST';
      let path: string;
      let body: string;
      if (operation === 'search') {
        path = `${collectionPath}/points/search`;
        body = `{"vector":${rowJson(data.queries, Math.floor(random() * data.queryCount), data.dimension)},"limit":10}`;
      } else if (operation === 'scroll') {
        path = `${collectionPath}/points/scroll`;
        body = `{"limit":50,"offset":${Math.floor(random() * data.count)},"with_payload":true}`;
      } else {
        method = 'PUT';
        path = `${collectionPath}/points?wait=true`;
        // Rows of the data set under ids that are half overwrites, half new points.
        const points: string[] = [];
        for (let position = 0; position < options.upsertBatch; position++) {
          const row = Math.floor(random() * data.count);
          const id = Math.floor(random() * data.count * 2);
          points.push(`{"id":${id},"vector":${rowJson(data.vectors, row, data.dimension)},"payload":{"category":"c${id % data.categories}"}}`);
        }
        body = `{"points":[${points.join(',')}]}`;
      }
      const started = performance.now();
      const record = stats[operation];
      try {
        const answer = await send(agent, url, method, path, body);
        const elapsed = performance.now() - started;
        if (answer.status === 200) {
          record.ok += 1;
          record.latencies_ms.push(elapsed);
        } else if (answer.status === 503) {
          record.unavailable += 1;
          // A polite client honours Retry-After; the loop stays busy with its other operations.
        } else {
          record.failed += 1;
          record.firstFailure ??= `${answer.status} ${answer.body.slice(0, 200)}`;
        }
      } catch (error) {
        record.failed += 1;
        record.firstFailure ??= (error as Error).message;
      }
    }
  }

  await Promise.all(Array.from({ length: options.connections }, (_, index) => connection(index)));
  agent.destroy();
  for (const record of Object.values(stats)) record.latencies_ms.sort((a, b) => a - b);
  return stats;
}
