// The batch fast path: plain nearest searches (one inline vector, no MMR, no filter, no prefetch) that
// share a vector name and tuning go to the kernel in one call. Its slow twin is running each
// plan through QueryRun, which the search tests compare it with.
import type { Collection } from '../engine/collection.js';
import { parseDenseVector } from '../points/vectors.js';
import { vectorSelection } from '../points/selectors.js';
import type { QueryPlan } from './plan.js';
import { toScoredPoints, type ScoredPoint } from './scored-points.js';
import { passesThreshold, scoreOrderOf } from './score-order.js';
import type { Scored } from './stage-output.js';

/** A plan the batch fast path can take: one inline vector, no MMR, no filter, no prefetch. */
function isPlainNearest(plan: QueryPlan): boolean {
  return (
    plan.prefetches.length === 0 &&
    plan.filter === undefined &&
    plan.query?.kind === 'nearest' &&
    plan.query.mmr === undefined &&
    plan.query.target.kind === 'vector' &&
    plan.lookupFrom === undefined
  );
}

function tuningKey(plan: QueryPlan): string {
  return `${plan.using}\u0000${plan.tuning.ef ?? ''}\u0000${plan.tuning.exact}\u0000${JSON.stringify(plan.tuning.quantization ?? {})}`;
}

/**
 * Positions of the plain nearest plans, grouped by vector name and tuning; only groups of two
 * or more, since a lone plan gains nothing from a batch.
 */
export function nearestBatchGroups(plans: readonly QueryPlan[]): number[][] {
  const groups = new Map<string, number[]>();
  plans.forEach((plan, position) => {
    if (!isPlainNearest(plan)) return;
    const key = tuningKey(plan);
    const group = groups.get(key);
    if (group) group.push(position);
    else groups.set(key, [position]);
  });
  return [...groups.values()].filter((positions) => positions.length >= 2);
}

/** Runs one group as a single kernel batch, writing each plan's answer at its position. */
export async function runNearestGroup(collection: Collection, plans: readonly QueryPlan[], positions: number[], answers: (ScoredPoint[] | undefined)[]): Promise<void> {
  const first = plans[positions[0]!]!;
  const index = collection.vectorIndex(first.using, first.field === '' ? 'vector' : `${first.field}.vector`);
  const queries: Float32Array[] = [];
  let k = 0;
  for (const position of positions) {
    const plan = plans[position]!;
    collection.checkVectorSelection(vectorSelection(plan.withVector, false), `${plan.field}.with_vector`);
    const target = plan.query?.kind === 'nearest' ? plan.query.target : undefined;
    const values = target?.kind === 'vector' ? target.values : [];
    // Dimension, finiteness and the float32 range (1e39 would become Infinity): a 400, not a kernel error.
    queries.push(parseDenseVector(values, plan.queryField ?? (plan.field === '' ? 'query' : `${plan.field}.query`), index.dimension, index.distance));
    k = Math.max(k, plan.limit + plan.offset);
  }
  const found = await collection.nearestBatch(first.using, queries, k, {
    ...(first.tuning.ef !== undefined ? { ef: first.tuning.ef } : {}),
    exact: first.tuning.exact,
    ...(first.tuning.quantization ? { quantization: first.tuning.quantization } : {}),
  });
  const order = scoreOrderOf(index.distance);
  positions.forEach((position, number) => {
    const plan = plans[position]!;
    const result = found[number]!;
    const threshold = plan.scoreThreshold;
    const points: Scored[] = [];
    for (let rank = plan.offset; rank < result.points.length && points.length < plan.limit; rank++) {
      const score = result.scores[rank]!;
      if (threshold !== undefined && !passesThreshold(order, score, threshold)) break;
      points.push({ entry: result.points[rank]!, score });
    }
    answers[position] = toScoredPoints(collection, points, plan);
  });
}
