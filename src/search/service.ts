// The search and query services: plans in, ScoredPoints out (docs/api.md §3). Handlers call these;
// they never see HTTP. A batch of plain unfiltered nearest searches goes to the kernel in one
// call (the fast path, ./nearest-batch.ts); everything else runs plan by plan through QueryRun
// (its slow twin, which the tests compare it with).
import type { Collection } from '../engine/collection.js';
import { vectorSelection } from '../points/selectors.js';
import { QueryRun } from './execute.js';
import { nearestBatchGroups, runNearestGroup } from './nearest-batch.js';
import type { QueryPlan, QueryStage } from './plan.js';
import type { QueryEnvironment } from './query-environment.js';
import { toScoredPoints, type ScoredPoint } from './scored-points.js';
import type { StageOutput } from './stage-output.js';

export type { ScoredPoint } from './scored-points.js';

/**
 * Every `lookup_from` collection must exist, at every level, whatever the query form: a raw
 * vector reads nothing from it, but naming a missing collection is still a 404.
 */
function checkLookups(stage: QueryStage, environment: QueryEnvironment): void {
  if (stage.lookupFrom) environment.collectionNamed(stage.lookupFrom.collection);
  for (const child of stage.prefetches) checkLookups(child, environment);
}

/** Strict mode's search limits (docs/api.md §4.5) for a stage and every prefetch under it. */
function checkStrictMode(collection: Collection, stage: QueryStage): void {
  collection.strictMode.checkSearch({ limit: stage.limit, exact: stage.tuning.exact, ef: stage.tuning.ef, oversampling: stage.tuning.oversampling });
  for (const child of stage.prefetches) checkStrictMode(collection, child);
}

export async function runPlan(collection: Collection, environment: QueryEnvironment, plan: QueryPlan): Promise<ScoredPoint[]> {
  collection.assertOperable();
  checkStrictMode(collection, plan);
  checkLookups(plan, environment);
  // An unknown with_vector name is a 400 before any work.
  collection.checkVectorSelection(vectorSelection(plan.withVector, false), plan.field === '' ? 'with_vector' : `${plan.field}.with_vector`);
  const output: StageOutput = await new QueryRun(collection, environment).run(plan);
  return toScoredPoints(collection, output.points, plan);
}

/**
 * Runs several plans. Plain nearest plans that share a vector name and tuning go to the kernel
 * as one batch; the rest run one by one. Answers are in request order either way.
 */
export async function runPlans(collection: Collection, environment: QueryEnvironment, plans: readonly QueryPlan[]): Promise<ScoredPoint[][]> {
  collection.assertOperable();
  collection.strictMode.checkSearchBatch(plans.length);
  for (const plan of plans) checkStrictMode(collection, plan);
  const answers: (ScoredPoint[] | undefined)[] = new Array(plans.length);
  const batched = new Set<number>();
  const work: Promise<void>[] = [];
  for (const positions of nearestBatchGroups(plans)) {
    for (const position of positions) batched.add(position);
    work.push(runNearestGroup(collection, plans, positions, answers));
  }
  plans.forEach((plan, position) => {
    if (batched.has(position)) return;
    work.push(
      runPlan(collection, environment, plan).then((answer) => {
        answers[position] = answer;
      }),
    );
  });
  await Promise.all(work);
  return answers as ScoredPoint[][];
}
