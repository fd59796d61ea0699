// Plain nearest search (a nearest vector, or recommend's average_vector): over the whole
// collection the kernel answers, its graph or its exact scan as the tuning asks; over
// prefetched points the kernel re-scores them with the routine its searches use, so a point
// scores the same float from a search, a prefetch re-score or a query by id (docs/api.md §5).
import type { Collection, PointEntry } from '../engine/collection.js';
import type { SearchOptions, VectorIndex } from '../native/vector-index.js';
import { scanChunkRows } from './exact-scan.js';
import type { QueryStage } from './plan.js';
import type { SlotSet } from './query-environment.js';
import { scoreOrderOf } from './score-order.js';
import type { Scored, StageOutput } from './stage-output.js';
import { TopK } from './top-k.js';

/**
 * The kernel's `limit` nearest points to `query` among the `allowed` slots, leaving out the
 * `excluded` points (it is asked for that many more, so excluding them never shortens the answer).
 */
export async function nearestInCollection(
  collection: Collection,
  stage: QueryStage,
  index: VectorIndex,
  query: Float32Array,
  allowed: SlotSet | undefined,
  excluded: ReadonlySet<string>,
  limit: number,
): Promise<StageOutput> {
  const options: SearchOptions = { exact: stage.tuning.exact };
  if (stage.tuning.ef !== undefined) options.ef = stage.tuning.ef;
  if (stage.tuning.quantization) options.quantization = stage.tuning.quantization;
  if (allowed) options.allowed = new Uint8Array(allowed.words.buffer, allowed.words.byteOffset, allowed.words.byteLength);
  const found = await collection.nearest(stage.using, query, limit + excluded.size, options);
  const points: Scored[] = [];
  for (let position = 0; position < found.points.length && points.length < limit; position++) {
    const entry = found.points[position]!;
    if (excluded.size > 0 && excluded.has(entry.key)) continue;
    points.push({ entry, score: found.scores[position]! });
  }
  return { order: scoreOrderOf(index.distance), points };
}

/**
 * The prefetched `candidates` re-scored by distance to `query`, the best `limit` kept. Scored in
 * chunks, so a wide prefetch never sends all its slots to the kernel at once; a point without a
 * vector under the index's name is skipped.
 */
export async function nearestAmong(index: VectorIndex, query: Float32Array, candidates: Iterable<PointEntry>, limit: number): Promise<StageOutput> {
  const order = scoreOrderOf(index.distance);
  const selector = new TopK(limit, order);
  const entries = [...candidates];
  for (let start = 0; start < entries.length; start += scanChunkRows) {
    const chunk = entries.slice(start, start + scanChunkRows);
    const scores = await index.scoreSlots(query, Uint32Array.from(chunk, (entry) => entry.slot));
    // NaN (no vector) is never kept by the selector.
    scores.forEach((score, position) => selector.offer(start + position, score));
  }
  return { order, points: selector.drain().map((selected) => ({ entry: entries[selected.position]!, score: selected.score })) };
}
