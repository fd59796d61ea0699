// The search and query services: plans in, ScoredPoints out (API.md §3). Handlers call these;
// they never see HTTP. A batch of plain unfiltered nearest searches goes to the kernel in one
// call (the fast path); everything else runs plan by plan through QueryRun (its slow twin,
// which the tests compare it with).
import type { Collection } from '../engine/collection.js';
import type { PointId } from '../points/ids.js';
import { float32ToNumber, parseDenseVector } from '../points/vectors.js';
import { payloadSelection, vectorSelection, type Payload } from '../points/selectors.js';
import { QueryRun, type QueryEnvironment, type Scored, type StageOutput } from './execute.js';
import type { QueryPlan, QueryStage } from './plan.js';
import { passesThreshold, scoreOrderOf } from './score-order.js';

export interface ScoredPoint {
  id: PointId;
  version: number;
  score: number;
  payload?: Payload;
  vector?: number[] | Record<string, number[]>;
  order_value?: number;
}

/** Scores leave as float32 values, written in their shortest form, as Qdrant's do. */
function wireScore(score: number): number {
  return float32ToNumber(Math.fround(score));
}

export function toScoredPoints(collection: Collection, points: readonly Scored[], plan: QueryPlan): ScoredPoint[] {
  if (points.length === 0) return [];
  const payload = payloadSelection(plan.withPayload, false);
  const vector = vectorSelection(plan.withVector, false);
  const entries = points.map((point) => point.entry);
  // Plain searches ask for neither payload nor vectors: build the answer without records.
  const records = payload.kind === 'none' && vector.kind === 'none' ? undefined : collection.toRecords(entries, payload, vector);
  return points.map((point, position) => {
    const scored: ScoredPoint = { id: point.entry.id, version: point.entry.version, score: wireScore(point.score) };
    const record = records?.[position];
    if (record?.payload !== undefined) scored.payload = record.payload;
    if (record?.vector !== undefined) scored.vector = record.vector;
    if (point.orderValue !== undefined) scored.order_value = point.orderValue;
    return scored;
  });
}

/**
 * Every `lookup_from` collection must exist, at every level, whatever the query form: a raw
 * vector reads nothing from it, but naming a missing collection is still a 404.
 */
function checkLookups(stage: QueryStage, environment: QueryEnvironment): void {
  if (stage.lookupFrom) environment.collectionNamed(stage.lookupFrom.collection);
  for (const child of stage.prefetches) checkLookups(child, environment);
}

export async function runPlan(collection: Collection, environment: QueryEnvironment, plan: QueryPlan): Promise<ScoredPoint[]> {
  collection.assertOperable();
  checkLookups(plan, environment);
  // An unknown with_vector name is a 400 before any work.
  collection.checkVectorSelection(vectorSelection(plan.withVector, false), plan.field === '' ? 'with_vector' : `${plan.field}.with_vector`);
  const output: StageOutput = await new QueryRun(collection, environment).run(plan);
  return toScoredPoints(collection, output.points, plan);
}

/** A plan the batch fast path can take: one inline vector, no filter, no prefetch. */
function isPlainNearest(plan: QueryPlan): boolean {
  return (
    plan.prefetches.length === 0 &&
    plan.filter === undefined &&
    plan.query?.kind === 'nearest' &&
    plan.query.target.kind === 'vector' &&
    plan.lookupFrom === undefined
  );
}

function tuningKey(plan: QueryPlan): string {
  return `${plan.using}\u0000${plan.tuning.ef ?? ''}\u0000${plan.tuning.exact}`;
}

/**
 * Runs several plans. Plain nearest plans that share a vector name and tuning go to the kernel
 * as one batch; the rest run one by one. Answers are in request order either way.
 */
export async function runPlans(collection: Collection, environment: QueryEnvironment, plans: readonly QueryPlan[]): Promise<ScoredPoint[][]> {
  collection.assertOperable();
  const answers: (ScoredPoint[] | undefined)[] = new Array(plans.length);
  const groups = new Map<string, number[]>();
  plans.forEach((plan, position) => {
    if (!isPlainNearest(plan)) return;
    const key = tuningKey(plan);
    const group = groups.get(key);
    if (group) group.push(position);
    else groups.set(key, [position]);
  });
  const work: Promise<void>[] = [];
  for (const positions of groups.values()) {
    if (positions.length < 2) continue;
    work.push(runNearestGroup(collection, plans, positions, answers));
  }
  plans.forEach((plan, position) => {
    const grouped = groups.get(tuningKey(plan));
    if (isPlainNearest(plan) && grouped && grouped.length >= 2) return;
    work.push(
      runPlan(collection, environment, plan).then((answer) => {
        answers[position] = answer;
      }),
    );
  });
  await Promise.all(work);
  return answers as ScoredPoint[][];
}

async function runNearestGroup(collection: Collection, plans: readonly QueryPlan[], positions: number[], answers: (ScoredPoint[] | undefined)[]): Promise<void> {
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
    queries.push(parseDenseVector(values, plan.queryField ?? (plan.field === '' ? 'query' : `${plan.field}.query`), index.dimension));
    k = Math.max(k, plan.limit + plan.offset);
  }
  const found = await collection.nearestBatch(first.using, queries, k, {
    ...(first.tuning.ef !== undefined ? { ef: first.tuning.ef } : {}),
    exact: first.tuning.exact,
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
