// Exact distributed reads: one collection-scoped REST read answered across shards exactly as one
// node holding all the points would (docs/architecture.md §12+, "distributed reads").

import { QuiverError } from '../../errors.js';
import type { ShardReader } from './shard-reader.js';

export type { ShardReader } from './shard-reader.js';

/** Answers one collection-scoped REST read across shards exactly as one node holding all the
 * points would (same ids, order, scores). `path` is collection-relative, e.g. '/points/search'. */
export function distributedRead(reader: ShardReader, method: 'GET' | 'POST', path: string, body: unknown): Promise<unknown> {
  void reader;
  void body;
  return Promise.reject(new QuiverError('invalid_input', `${method} ${path} is not supported in cluster mode yet`));
}

export function isDistributedReadPath(method: string, path: string): boolean {
  void method;
  void path;
  return false;
}
