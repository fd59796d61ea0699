// Nearest search under a sparse vector name (docs/api.md §5.6): score = dot product over the
// indices query and point share (after the IDF weights when the vector asks for them), larger
// is better, exact, ties broken by point id. Over the whole collection the kernel's sparse
// index answers (its pruned top-k, or its exact twin with `exact: true`); over prefetched
// points the stored vectors are re-scored here. Only the nearest form applies to sparse names.
import type { Collection, PointEntry } from '../engine/collection.js';
import { errors } from '../errors.js';
import type { SparseVector } from '../native/sparse-index-contract.js';
import { comparePointIds } from '../points/ids.js';
import { fieldPath } from './field-path.js';
import { withIdfWeights, type IdfStatistics } from './idf.js';
import type { QueryStage } from './plan.js';
import type { SlotSet } from './query-environment.js';
import type { QueryVectors } from './query-vectors.js';
import type { Scored, StageOutput } from './stage-output.js';

/** Dot product over shared indices of two vectors with ascending indices. */
export function sparseDot(left: SparseVector, right: SparseVector): number {
  let score = 0;
  let leftPosition = 0;
  let rightPosition = 0;
  while (leftPosition < left.indices.length && rightPosition < right.indices.length) {
    const leftIndex = left.indices[leftPosition]!;
    const rightIndex = right.indices[rightPosition]!;
    if (leftIndex === rightIndex) {
      score += left.values[leftPosition]! * right.values[rightPosition]!;
      leftPosition += 1;
      rightPosition += 1;
    } else if (leftIndex < rightIndex) leftPosition += 1;
    else rightPosition += 1;
  }
  return score;
}

/** Best first; equal scores by ascending point id. */
function byScoreThenId(left: Scored, right: Scored): number {
  return right.score - left.score || comparePointIds(left.entry.id, right.entry.id);
}

/** The stage's query vector, with the IDF weights applied when the sparse vector uses them. */
function stageQuery(collection: Collection, stage: QueryStage, vectors: QueryVectors, statistics?: IdfStatistics): SparseVector {
  const form = stage.query!;
  const field = stage.queryField ?? fieldPath(stage.field, 'query');
  if (form.kind !== 'nearest') {
    throw errors.invalidField(fieldPath(stage.field, 'using'), `${JSON.stringify(stage.using)} is a sparse vector: only nearest queries are supported on sparse vectors`);
  }
  const query = vectors.resolveSparse(form.target, stage, field);
  return collection.sparse.usesIdf(stage.using) ? withIdfWeights(collection.sparse.index(stage.using), query, statistics) : query;
}

/**
 * The best `limit` points of the collection for the stage's sparse query among the `allowed`
 * slots, leaving out `excluded`. The kernel breaks ties by slot, so when the cut falls inside a
 * group of equal scores it is asked for more until the whole group is in, then ties go by id.
 */
export async function sparseInCollection(
  collection: Collection,
  stage: QueryStage,
  vectors: QueryVectors,
  allowed: SlotSet | undefined,
  excluded: ReadonlySet<string>,
  limit: number,
  statistics?: IdfStatistics,
): Promise<StageOutput> {
  const query = stageQuery(collection, stage, vectors, statistics);
  const wanted = limit + excluded.size;
  const options = {
    exact: stage.tuning.exact,
    ...(allowed ? { allowed: new Uint8Array(allowed.words.buffer, allowed.words.byteOffset, allowed.words.byteLength) } : {}),
  };
  const bound = Math.max(wanted, collection.slotCapacity);
  let k = wanted;
  let found = await collection.nearestSparse(stage.using, query, k, options);
  while (wanted > 0 && found.points.length >= k && k < bound && found.scores[k - 1] === found.scores[Math.min(wanted, found.scores.length) - 1]) {
    k = Math.min(bound, k * 2);
    found = await collection.nearestSparse(stage.using, query, k, options);
  }
  const scored: Scored[] = [];
  found.points.forEach((entry, position) => {
    if (excluded.size === 0 || !excluded.has(entry.key)) scored.push({ entry, score: found.scores[position]! });
  });
  return { order: 'larger_better', points: scored.sort(byScoreThenId).slice(0, limit) };
}

/** The prefetched `candidates` re-scored by the stage's sparse query; points without the vector are left out. */
export function sparseAmong(
  collection: Collection,
  stage: QueryStage,
  vectors: QueryVectors,
  candidates: Iterable<PointEntry>,
  limit: number,
  statistics?: IdfStatistics,
): StageOutput {
  const query = stageQuery(collection, stage, vectors, statistics);
  const scored: Scored[] = [];
  for (const entry of candidates) {
    const stored = collection.storedSparseVector(entry, stage.using);
    // Scored in float32, as the kernel scores, so equal scores compare equal.
    if (stored) scored.push({ entry, score: Math.fround(sparseDot(query, stored)) });
  }
  return { order: 'larger_better', points: scored.sort(byScoreThenId).slice(0, limit) };
}
