// Runs a QueryPlan against a collection (docs/api.md §3, §5). A stage with prefetches runs them
// first and then re-scores, fuses, orders or samples only their points; a stage without
// prefetches searches the whole collection (the kernel for nearest forms, an exact scan for the
// example-based forms). The root's filter applies to every prefetch under it. Ids used as query
// examples are left out of every result of the request.
//
// This file only walks the stage tree and picks, per form, the module that answers it:
// ./nearest-search.ts (with ./mmr-stage.ts for MMR), ./exact-scan.ts with ./query-vectors.ts (example-based forms),
// ./ordered-stages.ts (no query, order_by), ./random-sample.ts, ./prefetch-fusion.ts,
// ./formula-stage.ts, and ./sparse-search.ts for stages whose `using` names a sparse vector.
import { checkMultivectorForm } from './multivector-forms.js';
import { matrixScan } from './multivector-examples.js';
import { isMultiVectorIndex } from '../engine/multi-vector-index.js';
import type { Collection } from '../engine/collection.js';
import { errors } from '../errors.js';
import { liveCandidates, prefetchedCandidates } from './candidates.js';
import { exampleIdKeys } from './example-ids.js';
import { exactScan } from './exact-scan.js';
import { fieldPath } from './field-path.js';
import { formulaStage } from './formula-stage.js';
import { mmrPick } from './mmr-stage.js';
import { nearestAmong, nearestInCollection } from './nearest-search.js';
import { orderByIndex, orderByPayload, pointsById } from './ordered-stages.js';
import type { QueryPlan, QueryStage } from './plan.js';
import { fusePrefetches } from './prefetch-fusion.js';
import type { QueryEnvironment } from './query-environment.js';
import { QueryVectors } from './query-vectors.js';
import { randomSample } from './random-sample.js';
import { sparseAmong, sparseInCollection } from './sparse-search.js';
import { combinedFilter, StageFilters, type FilterUse } from './stage-filters.js';
import { withThreshold, type StageOutput } from './stage-output.js';

// Defined in ./query-environment.ts; also exported here, where the filter bridge imports SlotSet from.
export type { QueryEnvironment, SlotSet } from './query-environment.js';

/** `excluded` until `run` sets it: one empty set for every run, not one made per run. */
const noExamples: ReadonlySet<string> = new Set<string>();

export class QueryRun {
  /** Keys of points used as examples in this collection: never returned. */
  private excluded: ReadonlySet<string> = noExamples;
  private readonly filters: StageFilters;
  private readonly vectors: QueryVectors;
  /** Cluster mode: the whole collection's IDF statistics, used instead of this shard's (./idf.ts). */
  private idfStatistics: QueryPlan['idfStatistics'];

  constructor(
    private readonly collection: Collection,
    private readonly environment: QueryEnvironment,
  ) {
    this.filters = new StageFilters(collection, environment);
    this.vectors = new QueryVectors(collection, environment);
  }

  /** Runs the plan; the result is best first, offset applied. */
  async run(plan: QueryPlan): Promise<StageOutput> {
    this.excluded = exampleIdKeys(plan, this.collection.name);
    this.idfStatistics = plan.idfStatistics;
    const output = await this.stage(plan, [], plan.limit + plan.offset);
    // Every stage has answered, so no kernel search still reads a filter's slots.
    this.filters.release();
    return { order: output.order, points: plan.offset > 0 ? output.points.slice(plan.offset) : output.points };
  }

  // Not async itself: a stage without prefetches hands back searchCollection's own promise, one
  // promise and its hops fewer on every plain search (bench/README.md, "Fewer promises a search").
  private stage(stage: QueryStage, inherited: FilterUse[], limit: number): Promise<StageOutput> {
    const filters = stage.filter === undefined ? inherited : [...inherited, { filter: stage.filter, field: fieldPath(stage.field, 'filter') }];
    if (stage.prefetches.length === 0) return this.searchCollection(stage, filters, limit);
    return this.stageWithPrefetches(stage, filters, limit);
  }

  private async stageWithPrefetches(stage: QueryStage, filters: FilterUse[], limit: number): Promise<StageOutput> {
    const children = await Promise.all(stage.prefetches.map((child) => this.stage(child, filters, child.limit)));
    return this.combine(stage, children, limit);
  }

  /** A stage without prefetches: its form over the whole collection. */
  private async searchCollection(stage: QueryStage, filters: FilterUse[], limit: number): Promise<StageOutput> {
    const form = stage.query;
    // Planned before anything else, whatever the form: a bad filter is the first 400 reported, naming its field.
    const allowed = filters.length === 0 ? undefined : await this.filters.allowed(filters);
    if (!form) return pointsById(this.collection, combinedFilter(filters), this.excluded, limit);
    if (form.kind === 'order_by') return orderByIndex(this.collection, form.orderBy, combinedFilter(filters), this.excluded, limit);
    if (form.kind === 'sample') return randomSample(liveCandidates(this.collection, allowed, this.excluded), limit);
    if (form.kind === 'rrf' || form.kind === 'dbsf') throw errors.fusionWithoutPrefetch('');
    // request.ts refuses a formula without prefetches; this only keeps the form list exhaustive.
    if (form.kind === 'formula') throw errors.invalidBodyField(fieldPath(stage.field, 'query'), 'cannot apply Formula without prefetches');
    if (this.collection.sparse.isSparse(stage.using)) {
      return withThreshold(await sparseInCollection(this.collection, stage, this.vectors, allowed, this.excluded, limit, this.idfStatistics?.get(stage.using)), stage.scoreThreshold);
    }

    const index = this.collection.vectorIndex(stage.using, fieldPath(stage.field, 'using'));
    checkMultivectorForm(index, form, stage);
    const query = this.vectors.nearestVector(form, stage);
    if (query && form.kind === 'nearest' && form.mmr) {
      const candidates = await nearestInCollection(this.collection, stage, index, query, allowed, this.excluded, form.mmr.candidatesLimit);
      return mmrPick(index, query, withThreshold(candidates, stage.scoreThreshold), form.mmr, limit);
    }
    if (query) return withThreshold(await nearestInCollection(this.collection, stage, index, query, allowed, this.excluded, limit), stage.scoreThreshold);
    const scorer = this.vectors.exampleScorer(form, stage, index.distance, index.dimension)!;
    const entries = liveCandidates(this.collection, allowed, this.excluded);
    const scanned = isMultiVectorIndex(index) ? await matrixScan(index, scorer, entries, limit) : await exactScan(index, scorer, entries, limit);
    return withThreshold(scanned, stage.scoreThreshold);
  }

  /** A stage with prefetches: its form over what they found. */
  private async combine(stage: QueryStage, children: StageOutput[], limit: number): Promise<StageOutput> {
    const form = stage.query!;
    if (form.kind === 'rrf' || form.kind === 'dbsf') return withThreshold(fusePrefetches(form, children, limit), stage.scoreThreshold);

    // Every other form works on the union of the prefetched points, each once.
    const candidates = prefetchedCandidates(this.collection, children, this.excluded);
    if (form.kind === 'order_by') return orderByPayload(form.orderBy, stage, candidates, limit);
    if (form.kind === 'sample') return randomSample(candidates, limit);
    if (form.kind === 'formula') return withThreshold(await formulaStage(this.collection, this.environment, form.formula, stage, children, candidates, limit), stage.scoreThreshold);
    if (this.collection.sparse.isSparse(stage.using)) {
      return withThreshold(sparseAmong(this.collection, stage, this.vectors, candidates, limit, this.idfStatistics?.get(stage.using)), stage.scoreThreshold);
    }

    const index = this.collection.vectorIndex(stage.using, fieldPath(stage.field, 'using'));
    checkMultivectorForm(index, form, stage);
    const query = this.vectors.nearestVector(form, stage);
    if (query && form.kind === 'nearest' && form.mmr) {
      const nearest = await nearestAmong(index, query, candidates, form.mmr.candidatesLimit);
      return mmrPick(index, query, withThreshold(nearest, stage.scoreThreshold), form.mmr, limit);
    }
    if (query) return withThreshold(await nearestAmong(index, query, candidates, limit), stage.scoreThreshold);
    const scorer = this.vectors.exampleScorer(form, stage, index.distance, index.dimension)!;
    const scanned = isMultiVectorIndex(index) ? await matrixScan(index, scorer, candidates, limit) : await exactScan(index, scorer, candidates, limit);
    return withThreshold(scanned, stage.scoreThreshold);
  }
}
