// `POST C/points/query` across shards (docs/api.md §5), run as a plan at the coordinator:
// - a stage without prefetches fans out with its filters (the inherited ones included) and
//   merges the shards' top lists by its order;
// - fusion (rrf, dbsf) fuses the merged child lists here, with src/search/fusion.ts;
// - a re-scoring stage asks every shard to score only the prefetched candidates it holds
//   (`has_id` + exact) and merges with one node's tie rule (candidate order; id for sparse);
// - order_by over prefetches reads the candidates' payloads and orders them with the same
//   routine one node uses (src/search/ordered-stages.ts);
// - a formula is evaluated here (./formula-merge.ts) on the merged scores and fetched payloads;
// - an IDF-weighted sparse stage is scored by every shard with the whole collection's
//   statistics (./idf-statistics.ts);
// - MMR takes the merged `candidates_limit` nearest points with their vectors and picks among
//   them here with the kernel's own selection (./mmr-merge.ts);
// - lookup_from is refused (./cluster-refusals.ts).
import type { PointEntry } from '../../engine/collection.js';
import { parsePointId } from '../../points/ids.js';
import type { Payload } from '../../points/selectors.js';
import { fuseDbsf, fuseRrf, type RankedList } from '../../search/fusion.js';
import { orderByPayload } from '../../search/ordered-stages.js';
import { defaultRrfK, type OrderBySpec, type QueryStage } from '../../search/plan.js';
import { passesThreshold, type ScoreOrder } from '../../search/score-order.js';
import { notInClusterMode } from './cluster-refusals.js';
import { chunksOf } from './candidate-chunks.js';
import { CollectionShape } from './collection-shape.js';
import { everyShard } from './fan-out.js';
import { formulaAcrossShards } from './formula-merge.js';
import { mmrOf, mmrPickAtCoordinator, withoutMmr, type MmrStage } from './mmr-merge.js';
import { IdfStatisticsGathering, nearestTarget, type IdfStatisticsByName } from './idf-statistics.js';
import { mergeRanked, mergeSorted } from './ranked-merge.js';
import type { ShardReader } from './shard-reader.js';
import { hasMmr, mergeKindOf, prefetchesOf, rankedByDistance, scoredOrder, scoresInFloat64 } from './stage-forms.js';
import { byId, keyOf, storedScore, wireScore, type WirePoint } from './wire-point.js';

type Body = Record<string, unknown>;

interface StageResult {
  order: ScoreOrder;
  points: WirePoint[];
}

interface Selectors {
  with_payload?: unknown;
  with_vector?: unknown;
}

const defaultLimit = 10;

function limitOf(stage: Body): number {
  return typeof stage.limit === 'number' ? stage.limit : defaultLimit;
}

function combinedFilter(filters: readonly unknown[]): unknown {
  if (filters.length === 0) return undefined;
  if (filters.length === 1) return filters[0];
  return { must: filters };
}

function hasIdFilter(points: readonly WirePoint[]): Body {
  return { must: [{ has_id: points.map((point) => point.id) }] };
}

/** The refusals, checked over the whole tree before any shard is asked. */
export async function checkClusterQuery(stage: Body, shape: () => Promise<CollectionShape>): Promise<void> {
  if (stage.lookup_from !== undefined && stage.lookup_from !== null) throw notInClusterMode('lookup_from (examples from another collection)');
  const kind = mergeKindOf(stage.query);
  if (kind === 'formula' && prefetchesOf(stage).some(scoresInFloat64)) {
    throw notInClusterMode('a formula over best_score, sum_scores, discover, context or relevance_feedback prefetches (query.formula)');
  }
  if (kind === 'fusion' && (stage.query as Body).fusion === 'dbsf' && prefetchesOf(stage).some(scoresInFloat64)) {
    throw notInClusterMode('dbsf fusion of best_score, sum_scores, discover, context or relevance_feedback prefetches (query.fusion)');
  }
  for (const child of prefetchesOf(stage)) await checkClusterQuery(child, shape);
}

function usingOf(stage: Body): string {
  return typeof stage.using === 'string' ? stage.using : '';
}

/** Every scored stage's sparse query, noted for the IDF statistics it needs. */
function noteIdfStages(stage: Body, gathering: IdfStatisticsGathering): void {
  if (mergeKindOf(stage.query) === 'scored') gathering.add(usingOf(stage), nearestTarget(stage.query));
  for (const child of prefetchesOf(stage)) noteIdfStages(child, gathering);
}

/** A shard request scored by `using`, with the whole collection's IDF statistics when it needs them. */
function withStatistics(request: Body, using: string, statistics: IdfStatisticsByName | undefined): Body {
  const entry = statistics?.[using];
  return entry ? { ...request, cluster_idf_statistics: { [using]: entry } } : request;
}

export class QueryMerge {
  private shapeRead: Promise<CollectionShape> | undefined;

  constructor(private readonly reader: ShardReader) {}

  shape(): Promise<CollectionShape> {
    this.shapeRead ??= CollectionShape.read(this.reader);
    return this.shapeRead;
  }

  /** The root of a query request: its points, offset applied, payloads and vectors as asked. */
  async run(body: Body): Promise<{ points: WirePoint[] }> {
    await checkClusterQuery(body, () => this.shape());
    const offset = typeof body.offset === 'number' ? body.offset : 0;
    const selectors: Selectors = { with_payload: body.with_payload ?? false, with_vector: body.with_vector ?? false };
    const leaf = prefetchesOf(body).length === 0 && !hasMmr(body.query);
    const gathering = new IdfStatisticsGathering(await this.shape());
    noteIdfStages(body, gathering);
    const statistics = await gathering.read(this.reader);
    const result = await this.stage(body, [], limitOf(body) + offset, statistics, leaf ? selectors : undefined);
    let points = result.points.slice(offset);
    if (!leaf) points = await this.withSelectors(points, selectors);
    return { points: points.map(render) };
  }

  private async stage(stage: Body, inherited: readonly unknown[], limit: number, statistics: IdfStatisticsByName | undefined, selectors?: Selectors): Promise<StageResult> {
    const filters = stage.filter === undefined || stage.filter === null ? inherited : [...inherited, stage.filter];
    const children = prefetchesOf(stage);
    const mmr = await this.coordinatorMmr(stage);
    if (mmr) return this.mmrStage(stage, mmr, filters, limit, statistics);
    if (children.length === 0) return this.leaf(stage, filters, limit, statistics, selectors);
    const outputs = await Promise.all(children.map((child) => this.stage(child, filters, limitOf(child), statistics)));
    return this.combine(stage, outputs, limit, statistics);
  }

  /** The stage's MMR when the coordinator picks it: a nearest query with MMR on a dense vector. */
  private async coordinatorMmr(stage: Body): Promise<MmrStage | undefined> {
    if (!hasMmr(stage.query) || (await this.shape()).distance(usingOf(stage)) === undefined) return undefined;
    // The default candidates_limit is the stage's own limit (the offset not counted), as one node reads it.
    return mmrOf(stage, limitOf(stage));
  }

  /**
   * MMR: the stage's `candidates_limit` nearest points, merged from the shards (over the whole
   * collection or among the prefetched points) with their vectors, then picked here.
   */
  private async mmrStage(stage: Body, mmr: MmrStage, filters: readonly unknown[], limit: number, statistics: IdfStatisticsByName | undefined): Promise<StageResult> {
    const using = usingOf(stage);
    const nearest = withoutMmr(stage);
    const withVector = { with_payload: false, with_vector: using === '' ? true : [using] };
    const children = prefetchesOf(stage);
    let candidates: StageResult;
    if (children.length === 0) candidates = await this.leaf(nearest, filters, mmr.mmr.candidatesLimit, statistics, withVector);
    else {
      const outputs = await Promise.all(children.map((child) => this.stage(child, filters, limitOf(child), statistics)));
      const rescored = await this.combine(nearest, outputs, mmr.mmr.candidatesLimit, statistics);
      candidates = { order: rescored.order, points: await this.withSelectors(rescored.points, withVector) };
    }
    const picks = await mmrPickAtCoordinator(mmr, using, (await this.shape()).distance(using)!, candidates.points, limit);
    return { order: candidates.order, points: picks.map(({ vector: _vector, ...point }) => point) };
  }

  /** A stage without prefetches: each shard answers it over its points; the lists merge. */
  private async leaf(stage: Body, filters: readonly unknown[], limit: number, statistics: IdfStatisticsByName | undefined, selectors?: Selectors): Promise<StageResult> {
    const request: Body = { limit, with_payload: selectors?.with_payload ?? false, with_vector: selectors?.with_vector ?? false };
    for (const field of ['query', 'using', 'params', 'score_threshold']) if (stage[field] !== undefined && stage[field] !== null) request[field] = stage[field];
    const filter = combinedFilter(filters);
    if (filter !== undefined) request.filter = filter;
    const answers = await everyShard<{ points: WirePoint[] }>(this.reader, 'POST', '/points/query', withStatistics(request, usingOf(stage), statistics));
    const lists = answers.map((answer) => answer.points.map((point) => ({ ...point, score: storedScore(point) })));
    const kind = mergeKindOf(stage.query);
    if (kind === 'by_id') return { order: 'larger_better', points: mergeSorted(lists, byId, limit) };
    if (kind === 'order_by') {
      const descending = orderSpecOf(stage.query).direction === 'desc';
      const compare = (left: WirePoint, right: WirePoint) => {
        const difference = (left.order_value ?? 0) - (right.order_value ?? 0);
        return (descending ? -difference : difference) || byId(left, right);
      };
      return { order: descending ? 'larger_better' : 'smaller_better', points: mergeSorted(lists, compare, limit) };
    }
    if (kind === 'sample') return { order: 'larger_better', points: randomPick(lists.flat(), limit) };
    const order = scoredOrder(stage, await this.shape());
    return { order, points: mergeRanked(lists, order, limit) };
  }

  /** A stage with prefetches, over the merged outputs of its children. */
  private async combine(stage: Body, children: readonly StageResult[], limit: number, statistics: IdfStatisticsByName | undefined): Promise<StageResult> {
    const kind = mergeKindOf(stage.query);
    const threshold = typeof stage.score_threshold === 'number' ? stage.score_threshold : undefined;
    if (kind === 'fusion') return withThreshold(fuse(stage.query as Body, children, limit), threshold);
    const candidates = unionOf(children);
    if (candidates.length === 0) return { order: 'larger_better', points: [] };
    if (kind === 'sample') return { order: 'larger_better', points: randomPick(candidates, limit) };
    if (kind === 'order_by') return this.orderCandidates(stage, candidates, limit);
    if (kind === 'formula') {
      const payloads = await this.fetch(candidates, { with_payload: true, with_vector: false });
      return withThreshold({ order: 'larger_better', points: await formulaAcrossShards(this.reader, stage.query as Body, children, candidates, payloads, limit) }, threshold);
    }
    return this.rescore(stage, candidates, limit, statistics);
  }

  /** order_by over the prefetched points: their payloads, ordered as one node orders them. */
  private async orderCandidates(stage: Body, candidates: readonly WirePoint[], limit: number): Promise<StageResult> {
    const stored = await this.fetch(candidates, { with_payload: true, with_vector: false });
    const entries: PointEntry[] = candidates.map((point) => {
      const found = stored.get(keyOf(point));
      return { id: parsePointId(point.id), key: keyOf(point), slot: 0, version: point.version ?? 0, payload: (found?.payload ?? {}) as Payload };
    });
    const output = orderByPayload(orderSpecOf(stage.query), { field: '' } as QueryStage, entries, limit);
    const versions = new Map(candidates.map((point) => [keyOf(point), point.version]));
    return {
      order: output.order,
      points: output.points.map((point) => ({ id: point.entry.id, version: versions.get(point.entry.key), score: 0, order_value: point.orderValue })),
    };
  }

  /**
   * A form re-scoring the prefetched points: each shard scores those it holds, exactly; the
   * lists merge with one node's tie rule (candidate order for dense and example forms, id for
   * sparse, where a candidate holding the vector but sharing no index scores 0). A sparse stage
   * is sent as a re-scoring of the chunk (a prefetch naming it), so a shard scores with one
   * node's re-scoring arithmetic (src/search/sparse-search.ts) rather than its index's.
   */
  private async rescore(stage: Body, candidates: readonly WirePoint[], limit: number, statistics: IdfStatisticsByName | undefined): Promise<StageResult> {
    const shape = await this.shape();
    const using = typeof stage.using === 'string' ? stage.using : '';
    // Dense nearest forms go through the index: `exact` makes a shard score every candidate it
    // holds. Example forms and sparse vectors score them all anyway.
    const order = scoredOrder(stage, shape);
    const byDistance = !shape.isSparse(using) && rankedByDistance(stage.query);
    const params = byDistance ? { ...((stage.params as Body | null) ?? {}), exact: true } : stage.params;
    const request: Body = { query: stage.query, limit, with_payload: false, with_vector: false };
    if (params !== undefined && params !== null) request.params = params;
    if (stage.using !== undefined && stage.using !== null) request.using = stage.using;
    if (stage.score_threshold !== undefined && stage.score_threshold !== null) request.score_threshold = stage.score_threshold;
    // Each chunk's best `limit` on each shard: together they hold the best `limit` of all.
    const answers = (
      await Promise.all(
        chunksOf(candidates).map((chunk) => {
          const named = shape.isSparse(using) ? { ...request, prefetch: { filter: hasIdFilter(chunk), limit: chunk.length } } : { ...request, filter: hasIdFilter(chunk) };
          return everyShard<{ points: WirePoint[] }>(this.reader, 'POST', '/points/query', withStatistics(named, using, statistics));
        }),
      )
    ).flat();
    const lists = answers.map((answer) => answer.points.map((point) => ({ ...point, score: storedScore(point) })));
    if (!shape.isSparse(using)) {
      const position = new Map(candidates.map((point, index) => [keyOf(point), index]));
      const byCandidate = (left: WirePoint, right: WirePoint) => position.get(keyOf(left))! - position.get(keyOf(right))!;
      // Each shard ties by its own slots: its runs of equal scores are put in candidate order first.
      return { order, points: mergeRanked(lists.map((list) => stableTies(list, byCandidate)), order, limit, byCandidate) };
    }
    const scored = lists.flat();
    const seen = new Set(scored.map(keyOf));
    const threshold = typeof stage.score_threshold === 'number' ? stage.score_threshold : undefined;
    if (threshold === undefined || passesThreshold('larger_better', 0, threshold)) {
      for (const chunk of chunksOf(candidates)) {
        const holding = await everyShard<{ points: WirePoint[] }>(this.reader, 'POST', '/points/query', {
          filter: { must: [{ has_id: chunk.map((point) => point.id) }, { has_vector: using }] },
          limit: chunk.length,
        });
        for (const point of holding.flatMap((answer) => answer.points)) if (!seen.has(keyOf(point))) scored.push({ ...point, score: 0 });
      }
    }
    scored.sort((left, right) => right.score! - left.score! || byId(left, right));
    return { order: 'larger_better', points: scored.slice(0, limit) };
  }

  /** The points' payloads and vectors as `selectors` ask, read from the shards holding them. */
  private async fetch(points: readonly WirePoint[], selectors: Selectors): Promise<Map<string, WirePoint>> {
    const found = new Map<string, WirePoint>();
    for (const chunk of chunksOf(points)) {
      const answers = await everyShard<{ points: WirePoint[] }>(this.reader, 'POST', '/points/query', {
        filter: hasIdFilter(chunk),
        limit: chunk.length,
        with_payload: selectors.with_payload,
        with_vector: selectors.with_vector,
      });
      for (const point of answers.flatMap((answer) => answer.points)) found.set(keyOf(point), point);
    }
    return found;
  }

  private async withSelectors(points: WirePoint[], selectors: Selectors): Promise<WirePoint[]> {
    if (points.length === 0 || (!selectors.with_payload && !selectors.with_vector)) return points;
    const stored = await this.fetch(points, selectors);
    return points.map((point) => {
      const found = stored.get(keyOf(point));
      const filled: WirePoint = { ...point };
      if (found?.payload !== undefined) filled.payload = found.payload;
      if (found?.vector !== undefined) filled.vector = found.vector;
      return filled;
    });
  }
}

/** Within a run of equal scores, one node's tie order; scores themselves stay sorted. */
function stableTies(list: WirePoint[], tie: (left: WirePoint, right: WirePoint) => number): WirePoint[] {
  const sorted: WirePoint[] = [];
  let start = 0;
  while (start < list.length) {
    let end = start + 1;
    while (end < list.length && list[end]!.score === list[start]!.score) end++;
    sorted.push(...list.slice(start, end).sort(tie));
    start = end;
  }
  return sorted;
}

function orderSpecOf(query: unknown): OrderBySpec {
  const orderBy = (query as Body).order_by;
  if (typeof orderBy === 'string') return { key: orderBy, direction: 'asc' };
  const spec = orderBy as { key: string; direction?: 'asc' | 'desc' | null; start_from?: number | string | null };
  return { key: spec.key, direction: spec.direction ?? 'asc', ...(spec.start_from !== undefined && spec.start_from !== null ? { startFrom: spec.start_from } : {}) };
}

/** The union of the children's points, each once, in the order first found (src/search/candidates.ts). */
function unionOf(children: readonly StageResult[]): WirePoint[] {
  const union = new Map<string, WirePoint>();
  for (const child of children) for (const point of child.points) if (!union.has(keyOf(point))) union.set(keyOf(point), point);
  return [...union.values()];
}

function fuse(query: Body, children: readonly StageResult[], limit: number): StageResult {
  const byKey = new Map<string, WirePoint>();
  const lists: RankedList[] = children.map((child) => ({
    order: child.order,
    entries: child.points.map((point) => {
      if (!byKey.has(keyOf(point))) byKey.set(keyOf(point), point);
      return { key: keyOf(point), score: point.score ?? 0 };
    }),
  }));
  const rrf = query.rrf as { k?: number | null; weights?: number[] | null } | undefined;
  const fused = query.fusion === 'dbsf' ? fuseDbsf(lists) : fuseRrf(lists, rrf?.k ?? defaultRrfK, rrf?.weights ?? undefined);
  const points = fused.slice(0, limit).map((entry) => ({ id: byKey.get(entry.key)!.id, version: byKey.get(entry.key)!.version, score: entry.score }));
  return { order: 'larger_better', points };
}

function withThreshold(result: StageResult, threshold: number | undefined): StageResult {
  if (threshold === undefined) return result;
  return { order: result.order, points: result.points.filter((point) => passesThreshold(result.order, point.score ?? 0, threshold)) };
}

/** `limit` points drawn uniformly from `points` (a sample has no one-node answer to match). */
function randomPick(points: readonly WirePoint[], limit: number): WirePoint[] {
  const pool = [...points];
  for (let index = pool.length - 1; index > 0; index--) {
    const other = Math.floor(Math.random() * (index + 1));
    [pool[index], pool[other]] = [pool[other]!, pool[index]!];
  }
  return pool.slice(0, limit).map((point) => ({ ...point, score: 0 }));
}

/** A ScoredPoint as one node writes it (src/search/scored-points.ts). */
export function render(point: WirePoint): WirePoint {
  const rendered: WirePoint = { id: point.id, version: point.version ?? 0, score: wireScore(point.score ?? 0) };
  if (point.payload !== undefined) rendered.payload = point.payload;
  if (point.vector !== undefined) rendered.vector = point.vector;
  if (point.order_value !== undefined) rendered.order_value = point.order_value;
  return rendered;
}

