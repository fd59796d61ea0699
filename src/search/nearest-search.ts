// Plain nearest search (a nearest vector, or recommend's average_vector): over the whole
// collection the kernel answers, its graph or its exact scan as the tuning asks; over
// prefetched points the same distance re-scores them by exact scan.
import type { Collection, PointEntry } from '../engine/collection.js';
import type { VectorIndex } from '../native/vector-index.js';
import type { CandidateScorer } from './example-scorer.js';
import { exactScan } from './exact-scan.js';
import { nearestScore, prepareQuery } from './nearest-score.js';
import type { QueryStage } from './plan.js';
import type { SlotSet } from './query-environment.js';
import { scoreOrderOf } from './score-order.js';
import type { Scored, StageOutput } from './stage-output.js';

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
  const found = await collection.nearest(stage.using, query, limit + excluded.size, {
    ...(stage.tuning.ef !== undefined ? { ef: stage.tuning.ef } : {}),
    exact: stage.tuning.exact,
    ...(allowed ? { allowed: new Uint8Array(allowed.words.buffer, allowed.words.byteOffset, allowed.words.byteLength) } : {}),
  });
  const points: Scored[] = [];
  for (let position = 0; position < found.points.length && points.length < limit; position++) {
    const entry = found.points[position]!;
    if (excluded.size > 0 && excluded.has(entry.key)) continue;
    points.push({ entry, score: found.scores[position]! });
  }
  return { order: scoreOrderOf(index.distance), points };
}

/** The prefetched `candidates` re-scored by distance to `query`, the best `limit` kept. */
export function nearestAmong(index: VectorIndex, query: Float32Array, candidates: Iterable<PointEntry>, limit: number): Promise<StageOutput> {
  // Re-scored in chunks like any scan: a wide prefetch must not copy all its vectors at once.
  const prepared = prepareQuery(index.distance, query);
  const scorer: CandidateScorer = (rows, offset) => nearestScore(index.distance, prepared, rows, offset, index.dimension);
  return exactScan(index, scorer, candidates, limit, scoreOrderOf(index.distance));
}
