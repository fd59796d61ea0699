// One read sent to every shard at once (docs/architecture.md §13+, "distributed reads"). The
// first failure wins: a shard's 4xx is answered once, as is; a shard without a live replica is
// the reader's 503 naming it.
import type { ShardReader } from './shard-reader.js';

export function everyShard<Result>(reader: ShardReader, method: 'GET' | 'POST', path: string, body?: unknown): Promise<Result[]> {
  const calls: Promise<Result>[] = [];
  for (let shard = 0; shard < reader.shardCount; shard++) calls.push(reader.call<Result>(shard, method, path, body));
  return Promise.all(calls);
}
