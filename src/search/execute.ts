// Runs a QueryPlan against a collection (API.md §3, §5). A stage with prefetches runs them
// first and then re-scores, fuses, orders or samples only their points; a stage without
// prefetches searches the whole collection (the kernel for nearest forms, an exact scan for the
// example-based forms). The root's filter applies to every prefetch under it. Ids used as query
// examples are left out of every result of the request.
import type { Collection, PointEntry } from '../engine/collection.js';
import { errors } from '../errors.js';
import type { Distance, VectorIndex } from '../native/vector-index.js';
import { scroll } from '../filter/scroll.js';
import { comparePointIds, formatPointId, parsePointId, pointIdKey } from '../points/ids.js';
import { parseDenseVector } from '../points/vectors.js';
import { averageVector } from './example-scores.js';
import { exampleScorer, type CandidateScorer, type ExampleForm } from './example-scorer.js';
import { fuseDbsf, fuseRrf, type RankedList } from './fusion.js';
import { nearestScore, prepareQuery } from './nearest-score.js';
import { orderBoundary, orderByPath, orderValueOf, type OrderedValue } from './order-value.js';
import type { OrderBySpec, QueryForm, QueryPlan, QueryStage, VectorSource } from './plan.js';
import { compareScores, passesThreshold, scoreOrderOf, type ScoreOrder } from './score-order.js';
import { TopK } from './top-k.js';

/**
 * The slots a filter allows, as the filter module's SlotSet provides them: a bitset whose words
 * are, byte for byte, the kernel's `allowed` layout (see vector-index.ts).
 */
export interface SlotSet {
  readonly words: Uint32Array;
  has(slot: number): boolean;
  clone(): SlotSet;
  intersect(other: SlotSet): SlotSet;
}

export interface Scored {
  entry: PointEntry;
  score: number;
  /** Set by order_by queries: the payload value points were ordered by. */
  orderValue?: OrderedValue;
}

export interface StageOutput {
  order: ScoreOrder;
  points: Scored[];
}

/** What the executor needs from the world outside one collection. */
export interface QueryEnvironment {
  /** Another collection, for `lookup_from` (404 / 412 as the registry answers). */
  collectionNamed(name: string): Collection;
  /** The slots of `collection` that `filter` accepts; a 400 naming `field` for a bad filter. */
  allowedSlots(collection: Collection, filter: unknown, field: string): SlotSet | Promise<SlotSet>;
}

/** Rows fetched from the kernel per step of an exact scan: bounds memory and JS-thread time. */
const scanChunkRows = 1024;

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function join(prefix: string, field: string): string {
  return prefix === '' ? field : `${prefix}.${field}`;
}

interface FilterUse {
  filter: unknown;
  field: string;
}

/** Ids named by a form's examples, in the collection the ids are looked up in. */
function sourcesOf(form: QueryForm | undefined): VectorSource[] {
  if (!form) return [];
  switch (form.kind) {
    case 'nearest':
      return [form.target];
    case 'recommend':
      return [...form.positive, ...form.negative];
    case 'discover':
      return [form.target, ...form.pairs.flatMap((pair) => [pair.positive, pair.negative])];
    case 'context':
      return form.pairs.flatMap((pair) => [pair.positive, pair.negative]);
    default:
      return [];
  }
}

export class QueryRun {
  /** Keys of points used as examples in this collection: never returned. */
  private readonly excluded = new Set<string>();
  private readonly filterCache = new Map<unknown, Promise<SlotSet>>();

  constructor(
    private readonly collection: Collection,
    private readonly environment: QueryEnvironment,
  ) {}

  /** Runs the plan; the result is best first, offset applied. */
  async run(plan: QueryPlan): Promise<StageOutput> {
    this.collectExcluded(plan);
    const output = await this.stage(plan, [], plan.limit + plan.offset);
    return { order: output.order, points: plan.offset > 0 ? output.points.slice(plan.offset) : output.points };
  }

  private collectExcluded(stage: QueryStage): void {
    // Ids looked up in another collection are not this collection's points.
    if (!stage.lookupFrom || stage.lookupFrom.collection === this.collection.name) {
      for (const source of sourcesOf(stage.query)) {
        if (source.kind === 'point') this.excluded.add(pointIdKey(parsePointId(source.id)));
      }
    }
    for (const child of stage.prefetches) this.collectExcluded(child);
  }

  private async stage(stage: QueryStage, inherited: FilterUse[], limit: number): Promise<StageOutput> {
    const filters = stage.filter === undefined ? inherited : [...inherited, { filter: stage.filter, field: join(stage.field, 'filter') }];
    if (stage.prefetches.length === 0) return this.searchCollection(stage, filters, limit);
    const children = await Promise.all(stage.prefetches.map((child) => this.stage(child, filters, child.limit)));
    return this.combine(stage, children, limit);
  }

  // ---- inputs ---------------------------------------------------------------------------

  private indexFor(collection: Collection, vectorName: string, field: string): VectorIndex {
    return collection.vectorIndex(vectorName, field);
  }

  /** The query vector a source names, checked against the dimension of `using`. */
  private resolveVector(source: VectorSource, stage: QueryStage, field: string): Float32Array {
    const dimension = this.indexFor(this.collection, stage.using, join(stage.field, 'using')).dimension;
    if (source.kind === 'vector') {
      // Dimension, finiteness and the float32 range (1e39 would become Infinity): a 400, not a kernel error.
      return parseDenseVector(source.values, field, dimension);
    }
    const id = parsePointId(source.id);
    const lookup = stage.lookupFrom;
    const collection = lookup ? this.environment.collectionNamed(lookup.collection) : this.collection;
    const vectorName = lookup ? lookup.vector : stage.using;
    const entry = collection.pointById(id);
    if (!entry) throw errors.pointNotFound(formatPointId(id));
    this.indexFor(collection, vectorName, lookup ? join(stage.field, 'lookup_from.vector') : join(stage.field, 'using'));
    const vector = collection.storedVector(entry, vectorName);
    if (!vector) throw errors.invalidField(field, `point ${formatPointId(id)} has no vector ${JSON.stringify(vectorName)}`);
    if (vector.length !== dimension) throw errors.dimensionMismatch(field, dimension, vector.length);
    return vector;
  }

  private resolveAll(sources: VectorSource[], stage: QueryStage, field: string): Float32Array[] {
    return sources.map((source, position) => this.resolveVector(source, stage, `${field}[${position}]`));
  }

  /** The nearest-search vector of a nearest or average_vector form; undefined for the others. */
  private nearestVector(form: QueryForm, stage: QueryStage): Float32Array | undefined {
    const field = stage.queryField ?? join(stage.field, 'query');
    if (form.kind === 'nearest') return this.resolveVector(form.target, stage, field);
    if (form.kind === 'recommend' && form.strategy === 'average_vector') {
      const positives = this.resolveAll(form.positive, stage, `${field}.recommend.positive`);
      const negatives = this.resolveAll(form.negative, stage, `${field}.recommend.negative`);
      return averageVector(positives, negatives, positives[0]!.length);
    }
    return undefined;
  }

  /** The score function of an example-based form (best_score, sum_scores, discover, context). */
  private exampleScorerFor(form: QueryForm, stage: QueryStage, distance: Distance, dimension: number): CandidateScorer | undefined {
    const field = stage.queryField ?? join(stage.field, 'query');
    let example: ExampleForm | undefined;
    const pairs = (list: { positive: VectorSource; negative: VectorSource }[], pairsField: string) =>
      list.map((pair, position) => ({
        positive: this.resolveVector(pair.positive, stage, `${pairsField}[${position}].positive`),
        negative: this.resolveVector(pair.negative, stage, `${pairsField}[${position}].negative`),
      }));
    if (form.kind === 'recommend' && form.strategy !== 'average_vector') {
      example = {
        kind: form.strategy,
        positives: this.resolveAll(form.positive, stage, `${field}.recommend.positive`),
        negatives: this.resolveAll(form.negative, stage, `${field}.recommend.negative`),
      };
    } else if (form.kind === 'discover') {
      example = { kind: 'discover', target: this.resolveVector(form.target, stage, `${field}.discover.target`), pairs: pairs(form.pairs, `${field}.discover.context`) };
    } else if (form.kind === 'context') {
      example = { kind: 'context', pairs: pairs(form.pairs, `${field}.context`) };
    }
    return example ? exampleScorer(distance, dimension, example) : undefined;
  }

  /** The filters' slots intersected, or undefined when no filter applies. */
  private async allowed(filters: FilterUse[]): Promise<SlotSet | undefined> {
    let combined: SlotSet | undefined;
    for (const use of filters) {
      let pending = this.filterCache.get(use.filter);
      if (!pending) {
        pending = Promise.resolve(this.environment.allowedSlots(this.collection, use.filter, use.field));
        this.filterCache.set(use.filter, pending);
      }
      const slots = await pending;
      combined = combined ? combined.clone().intersect(slots) : slots;
    }
    return combined;
  }

  private keep(entry: PointEntry | undefined, allowed: SlotSet | undefined): entry is PointEntry {
    if (entry === undefined) return false;
    if (allowed && !allowed.has(entry.slot)) return false;
    return this.excluded.size === 0 || !this.excluded.has(entry.key);
  }

  private applyThreshold(stage: QueryStage, output: StageOutput): StageOutput {
    const threshold = stage.scoreThreshold;
    if (threshold === undefined) return output;
    return { order: output.order, points: output.points.filter((point) => passesThreshold(output.order, point.score, threshold)) };
  }

  // ---- a stage over the whole collection -------------------------------------------------

  private async searchCollection(stage: QueryStage, filters: FilterUse[], limit: number): Promise<StageOutput> {
    const form = stage.query;
    const allowed = await this.allowed(filters);
    if (!form) return this.byId(filters, limit);
    if (form.kind === 'order_by') return this.orderByIndex(form.orderBy, filters, limit);
    if (form.kind === 'sample') return this.sample(this.liveEntries(allowed), limit);
    if (form.kind === 'rrf' || form.kind === 'dbsf') throw errors.fusionWithoutPrefetch('');

    const index = this.indexFor(this.collection, stage.using, join(stage.field, 'using'));
    const query = this.nearestVector(form, stage);
    if (query) {
      const found = await this.collection.nearest(stage.using, query, limit + this.excluded.size, {
        ...(stage.tuning.ef !== undefined ? { ef: stage.tuning.ef } : {}),
        exact: stage.tuning.exact,
        ...(allowed ? { allowed: new Uint8Array(allowed.words.buffer, allowed.words.byteOffset, allowed.words.byteLength) } : {}),
      });
      const points: Scored[] = [];
      for (let position = 0; position < found.points.length && points.length < limit; position++) {
        const entry = found.points[position]!;
        if (this.excluded.size > 0 && this.excluded.has(entry.key)) continue;
        points.push({ entry, score: found.scores[position]! });
      }
      return this.applyThreshold(stage, { order: scoreOrderOf(index.distance), points });
    }
    const scorer = this.exampleScorerFor(form, stage, index.distance, index.dimension)!;
    return this.applyThreshold(stage, await this.scan(index, scorer, this.liveEntries(allowed), limit));
  }

  /** Live points the filters allow and the request does not exclude, in slot order. */
  private *liveEntries(allowed: SlotSet | undefined): Generator<PointEntry> {
    const capacity = this.collection.slotCapacity;
    for (let slot = 0; slot < capacity; slot++) {
      const entry = this.collection.pointBySlot(slot);
      if (this.keep(entry, allowed)) yield entry;
    }
  }

  /** The request's filters as one filter for the filter module's scroll (already validated). */
  private combinedFilter(filters: FilterUse[]): unknown {
    if (filters.length === 0) return undefined;
    return filters.length === 1 ? filters[0]!.filter : { must: filters.map((use) => use.filter) };
  }

  /** Scroll's answer as scored points, leaving out excluded ids. */
  private fromScroll(found: ReturnType<typeof scroll>, limit: number): Scored[] {
    const points: Scored[] = [];
    for (const record of found.points) {
      const entry = this.collection.pointById(record.id);
      if (!this.keep(entry, undefined) || points.length === limit) continue;
      points.push({ entry, score: 0, ...(record.order_value !== undefined ? { orderValue: record.order_value } : {}) });
    }
    return points;
  }

  /** No query: points by id ascending, exactly as scroll pages them; score 0. */
  private byId(filters: FilterUse[], limit: number): StageOutput {
    const found = scroll(this.collection, {
      offset: undefined,
      limit: limit + this.excluded.size,
      filter: this.combinedFilter(filters),
      orderBy: undefined,
      payload: { kind: 'none' },
      vector: { kind: 'none' },
    });
    return { order: 'larger_better', points: this.fromScroll(found, limit) };
  }

  /** Exact scan in chunks: the example-based forms compare every candidate with the examples. */
  private async scan(index: VectorIndex, scorer: CandidateScorer, entries: Iterable<PointEntry>, limit: number, order: ScoreOrder = 'larger_better'): Promise<StageOutput> {
    const selector = new TopK(limit, order);
    const kept: PointEntry[] = [];
    let chunk: PointEntry[] = [];
    const dimension = index.dimension;
    const flush = () => {
      const rows = index.vectors(Uint32Array.from(chunk, (entry) => entry.slot));
      chunk.forEach((entry, position) => {
        const offset = position * dimension;
        if (Number.isNaN(rows[offset])) return; // no vector under this name
        kept.push(entry);
        selector.offer(kept.length - 1, scorer(rows, offset));
      });
      chunk = [];
    };
    for (const entry of entries) {
      chunk.push(entry);
      if (chunk.length === scanChunkRows) {
        flush();
        await yieldToEventLoop();
      }
    }
    if (chunk.length > 0) flush();
    return { order, points: selector.drain().map((selected) => ({ entry: kept[selected.position]!, score: selected.score })) };
  }

  /**
   * order_by over the whole collection walks the key's range index, exactly as scroll with
   * order_by does (same 400 without a range index, same order for several values and ties).
   */
  private orderByIndex(spec: OrderBySpec, filters: FilterUse[], limit: number): StageOutput {
    const found = scroll(this.collection, {
      offset: undefined,
      limit: limit + this.excluded.size,
      filter: this.combinedFilter(filters),
      orderBy: { key: spec.key, direction: spec.direction, startFrom: spec.startFrom },
      payload: { kind: 'none' },
      vector: { kind: 'none' },
    });
    return { order: spec.direction === 'asc' ? 'smaller_better' : 'larger_better', points: this.fromScroll(found, limit) };
  }

  /**
   * order_by over prefetched points reads each point's payload: the candidates are few, and the
   * value chosen for a field with several values is the one the index walk would meet first.
   */
  private orderBy(spec: OrderBySpec, stage: QueryStage, entries: Iterable<PointEntry>, limit: number): StageOutput {
    const field = `${join(stage.field, 'query')}.order_by`;
    const ascending = spec.direction === 'asc';
    const path = orderByPath(spec.key, `${field}.key`);
    const start = spec.startFrom === undefined ? undefined : orderBoundary(spec.startFrom, `${field}.start_from`);
    const ordered: Scored[] = [];
    for (const entry of entries) {
      const value = orderValueOf(entry.payload, path, ascending);
      if (value === undefined) continue;
      if (start !== undefined && (ascending ? value < start : value > start)) continue;
      ordered.push({ entry, score: 0, orderValue: value });
    }
    ordered.sort((left, right) => {
      const difference = (left.orderValue as number) - (right.orderValue as number);
      return (ascending ? difference : -difference) || comparePointIds(left.entry.id, right.entry.id);
    });
    return { order: ascending ? 'smaller_better' : 'larger_better', points: ordered.slice(0, limit) };
  }

  /** `limit` points chosen uniformly at random (reservoir sampling: one pass, O(limit) memory). */
  private sample(entries: Iterable<PointEntry>, limit: number): StageOutput {
    const reservoir: PointEntry[] = [];
    let seen = 0;
    for (const entry of entries) {
      seen++;
      if (reservoir.length < limit) reservoir.push(entry);
      else {
        const replace = Math.floor(Math.random() * seen);
        if (replace < limit) reservoir[replace] = entry;
      }
    }
    // Shuffle, so the order says nothing either.
    for (let position = reservoir.length - 1; position > 0; position--) {
      const other = Math.floor(Math.random() * (position + 1));
      [reservoir[position], reservoir[other]] = [reservoir[other]!, reservoir[position]!];
    }
    return { order: 'larger_better', points: reservoir.map((entry) => ({ entry, score: 0 })) };
  }

  // ---- a stage over its prefetches -------------------------------------------------------

  private async combine(stage: QueryStage, children: StageOutput[], limit: number): Promise<StageOutput> {
    const form = stage.query!;
    if (form.kind === 'rrf' || form.kind === 'dbsf') {
      const byKey = new Map<string, PointEntry>();
      const lists: RankedList[] = children.map((child) => ({
        order: child.order,
        entries: child.points.map((point) => {
          byKey.set(point.entry.key, point.entry);
          return { key: point.entry.key, score: point.score };
        }),
      }));
      const fused = form.kind === 'rrf' ? fuseRrf(lists, form.k, form.weights) : fuseDbsf(lists);
      const points = fused.slice(0, limit).map((entry) => ({ entry: byKey.get(entry.key)!, score: entry.score }));
      return this.applyThreshold(stage, { order: 'larger_better', points });
    }

    // Every other form works on the union of the prefetched points, each once.
    const union = new Map<string, PointEntry>();
    for (const child of children) {
      for (const point of child.points) if (!union.has(point.entry.key) && this.keep(point.entry, undefined)) union.set(point.entry.key, point.entry);
    }
    // A point deleted since its prefetch ran is dropped here rather than returned stale.
    const candidates = [...union.values()].filter((entry) => this.collection.pointBySlot(entry.slot) === entry);
    if (form.kind === 'order_by') return this.orderBy(form.orderBy, stage, candidates, limit);
    if (form.kind === 'sample') return this.sample(candidates, limit);

    const index = this.indexFor(this.collection, stage.using, join(stage.field, 'using'));
    const query = this.nearestVector(form, stage);
    if (query) {
      // Re-scored in chunks like any scan: a wide prefetch must not copy all its vectors at once.
      const prepared = prepareQuery(index.distance, query);
      const scorer: CandidateScorer = (rows, offset) => nearestScore(index.distance, prepared, rows, offset, index.dimension);
      return this.applyThreshold(stage, await this.scan(index, scorer, candidates, limit, scoreOrderOf(index.distance)));
    }
    const scorer = this.exampleScorerFor(form, stage, index.distance, index.dimension)!;
    return this.applyThreshold(stage, await this.scan(index, scorer, candidates, limit));
  }
}

/** Best first per `order`; exported for tests that build references. */
export function sortScored(points: Scored[], order: ScoreOrder): Scored[] {
  const compare = compareScores(order);
  return points.sort((left, right) => compare(left.score, right.score));
}
