// Requests that name prefetched candidates by id (`has_id`) go in chunks: the union of several
// prefetches may exceed what one shard request returns (`max_search_limit`, docs/api.md §8).
import type { WirePoint } from './wire-point.js';

/** Candidates per shard request: well under the default `max_search_limit` (10 000). */
export const candidatesPerRequest = 1_000;

export function chunksOf(points: readonly WirePoint[]): WirePoint[][] {
  const chunks: WirePoint[][] = [];
  for (let start = 0; start < points.length; start += candidatesPerRequest) chunks.push(points.slice(start, start + candidatesPerRequest));
  return chunks;
}
