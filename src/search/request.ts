// Turns a validated search or query body into a QueryPlan, applying the rules a schema cannot
// express: limits from config, `limit`/`top`, defaults, and the refusals of docs/api.md §5 at every
// level of nesting. Every failure is a 400 that names the field or the level.
import { errors } from '../errors.js';
import { parsePointId } from '../points/ids.js';
import { looksLikeDocument, looksSparse, parseSparseInput } from '../points/sparse-vector.js';
import { clampLimit } from '../points/request-schemas.js';
import { payloadSelection } from '../points/selectors.js';
import { idfStatisticsOf } from './cluster-idf-statistics.js';
import { parseFormula } from './formula.js';
import { feedbackPairs, type NaiveStrategy } from './relevance-feedback.js';
import {
  defaultMmrDiversity,
  defaultQueryLimit,
  defaultRrfK,
  maxMmrCandidates,
  type MmrSpec,
  type ContextPairSource,
  type QueryForm,
  type QueryPlan,
  type QueryStage,
  type SearchTuning,
  type VectorSource,
} from './plan.js';
import type {
  PrefetchBody,
  QueryBatchBody,
  QueryInterface,
  QueryRequestBody,
  SearchBatchBody,
  SearchParams,
  QueryVectorInput,
  SearchRequestBody,
  VectorInput,
  WithPayloadSelector,
} from './schemas.js';

export interface RequestLimits {
  /** Cap on `limit` (a larger one is clamped to it) and largest `offset` (a larger one is refused). */
  maxLimit: number;
  /** Most searches in one batch. */
  maxBatch: number;
  /** Deepest prefetch nesting; bounds the work one request can cause. */
  maxPrefetchDepth: number;
  /** Most examples (ids or vectors) in one query form. */
  maxExamples: number;
  /** Most prefetches in one request, at all levels together: nesting multiplies work. */
  maxPrefetches: number;
}

export const defaultRequestLimits: RequestLimits = { maxLimit: 10_000, maxBatch: 1_000, maxPrefetchDepth: 8, maxExamples: 1_024, maxPrefetches: 64 };

function join(prefix: string, field: string): string {
  return prefix === '' ? field : `${prefix}.${field}`;
}

/** " (at prefetch[0])" for nested levels, nothing at the root, so root messages stay Qdrant's. */
function where(stageField: string): string {
  return stageField === '' ? '' : ` (at ${stageField})`;
}

function checkOffset(field: string, value: number, limits: RequestLimits): number {
  if (value > limits.maxLimit) throw errors.invalidBodyField(field, `must be at most ${limits.maxLimit} (got ${value})`);
  return value;
}

function tuningOf(params: SearchParams | null | undefined): SearchTuning {
  const tuning: SearchTuning = { exact: params?.exact === true };
  if (params?.hnsw_ef !== undefined && params.hnsw_ef !== null && params.hnsw_ef > 0) tuning.ef = params.hnsw_ef;
  const oversampling = params?.quantization?.oversampling;
  if (oversampling !== undefined && oversampling !== null) tuning.oversampling = oversampling;
  const quantization = params?.quantization;
  if (quantization) {
    tuning.quantization = {
      ...(quantization.ignore != null ? { ignore: quantization.ignore } : {}),
      ...(quantization.rescore != null ? { rescore: quantization.rescore } : {}),
      ...(oversampling != null ? { oversampling } : {}),
    };
  }
  return tuning;
}

/** Whether a query array is a multivector's rows rather than one vector's numbers. */
function isRows(input: readonly unknown[]): input is (number | bigint)[][] {
  return Array.isArray(input[0]);
}

/** A vector, a sparse vector or Document, or a point id; checked here, where its field is known for the 400. */
function vectorSource(field: string, input: QueryVectorInput): VectorSource {
  if (Array.isArray(input)) return isRows(input) ? { kind: 'multi', rows: input } : { kind: 'vector', values: input as (number | bigint)[] };
  if (looksSparse(input) || looksLikeDocument(input)) return { kind: 'sparse', vector: parseSparseInput(input, field, 'query') };
  try {
    return { kind: 'point', id: parsePointId(input) };
  } catch (error) {
    throw errors.invalidField(field, (error as Error).message);
  }
}

function examples(field: string, inputs: VectorInput[] | null | undefined, limits: RequestLimits): VectorSource[] {
  if (!inputs) return [];
  if (inputs.length > limits.maxExamples) throw errors.invalidBodyField(field, `at most ${limits.maxExamples} examples (got ${inputs.length})`);
  return inputs.map((input, position) => vectorSource(`${field}[${position}]`, input));
}

type ContextInput = { positive: VectorInput; negative: VectorInput } | { positive: VectorInput; negative: VectorInput }[] | null;

function contextPairs(field: string, input: ContextInput, limits: RequestLimits): ContextPairSource[] {
  const pairs = input === null ? [] : Array.isArray(input) ? input : [input];
  if (pairs.length * 2 > limits.maxExamples) throw errors.invalidBodyField(field, `at most ${limits.maxExamples / 2} pairs (got ${pairs.length})`);
  return pairs.map((pair, position) => ({
    positive: vectorSource(`${field}[${position}].positive`, pair.positive),
    negative: vectorSource(`${field}[${position}].negative`, pair.negative),
  }));
}

/** A number the engine can hold as a float32 (Qdrant reads these fields as f32). */
function checkFloat32(field: string, value: number): number {
  if (!Number.isFinite(Math.fround(value))) throw errors.invalidBodyField(field, `must be a finite 32-bit float (got ${value})`);
  return value;
}

type RelevanceFeedbackInput = Extract<QueryInterface, { relevance_feedback: unknown }>['relevance_feedback'];

/**
 * `relevance_feedback` (docs/api.md §5.7): the target, the scored examples and the naive strategy.
 * The pairs and their weights depend only on the feedback scores, so they are computed here, where
 * a weight that is not a finite number (a zero confidence raised to a negative `b`) is a 400.
 */
function relevanceFeedback(field: string, input: RelevanceFeedbackInput, limits: RequestLimits): QueryForm {
  if (input.feedback.length + 1 > limits.maxExamples) {
    throw errors.invalidBodyField(`${field}.feedback`, `at most ${limits.maxExamples - 1} examples (got ${input.feedback.length})`);
  }
  const target = vectorSource(`${field}.target`, input.target);
  const feedback = input.feedback.map((item, position) => ({
    example: vectorSource(`${field}.feedback[${position}].example`, item.example),
    score: checkFloat32(`${field}.feedback[${position}].score`, item.score),
  }));
  const naive = input.strategy.naive;
  const strategy: NaiveStrategy = {
    a: checkFloat32(`${field}.strategy.naive.a`, naive.a),
    b: checkFloat32(`${field}.strategy.naive.b`, naive.b),
    c: checkFloat32(`${field}.strategy.naive.c`, naive.c),
  };
  const pairs = feedbackPairs(feedback.map((item) => item.score), strategy);
  for (const pair of pairs) {
    if (!Number.isFinite(Math.fround(pair.weight))) {
      throw errors.invalidBodyField(
        `${field}.strategy.naive`,
        `the weight confidence^b * c of the pair feedback[${pair.better}], feedback[${pair.worse}] is not a finite 32-bit float (got ${pair.weight}): a negative b needs the scores of every pair to differ`,
      );
    }
  }
  return { kind: 'relevance_feedback', target, feedback, strategy, pairs };
}

function isVectorInput(query: QueryInterface): query is QueryVectorInput {
  return typeof query !== 'object' || query === null || Array.isArray(query) || typeof query === 'bigint' || looksSparse(query) || looksLikeDocument(query);
}

type MmrInput = { diversity?: number | null; candidates_limit?: number | null };

/**
 * A nearest query's `mmr`, checked: diversity in 0..1, candidates_limit at least 1 (and at most the
 * kernel's cap); candidates default to the stage's `limit` and are clamped to the search limit cap.
 */
function mmrSpec(field: string, input: MmrInput, stageLimit: number, limits: RequestLimits): MmrSpec {
  const diversity = input.diversity ?? defaultMmrDiversity;
  if (!(diversity >= 0 && diversity <= 1)) throw errors.invalidBodyField(`${field}.diversity`, `must be between 0 and 1 (got ${diversity})`);
  const candidates = input.candidates_limit ?? stageLimit;
  if (candidates < 1) throw errors.invalidBodyField(`${field}.candidates_limit`, `must be at least 1 (got ${candidates})`);
  if (candidates > maxMmrCandidates) throw errors.invalidBodyField(`${field}.candidates_limit`, `must be at most ${maxMmrCandidates} (got ${candidates})`);
  return { lambda: 1 - diversity, candidatesLimit: Math.min(candidates, limits.maxLimit) };
}

/**
 * The `query` field's form; `field` is where it sits, e.g. `prefetch[1].query`. `stageLimit` is
 * the stage's `limit`, the default number of MMR candidates.
 */
export function queryForm(field: string, query: QueryInterface, limits: RequestLimits = defaultRequestLimits, stageLimit = defaultQueryLimit): QueryForm {
  if (isVectorInput(query)) return { kind: 'nearest', target: vectorSource(field, query) };
  if ('nearest' in query) {
    const form: QueryForm = { kind: 'nearest', target: vectorSource(`${field}.nearest`, query.nearest) };
    if (query.mmr !== undefined && query.mmr !== null) form.mmr = mmrSpec(`${field}.mmr`, query.mmr, stageLimit, limits);
    return form;
  }
  if ('recommend' in query) {
    const input = query.recommend;
    const strategy = input.strategy ?? 'average_vector';
    const positive = examples(`${field}.recommend.positive`, input.positive, limits);
    const negative = examples(`${field}.recommend.negative`, input.negative, limits);
    if (strategy === 'average_vector' && positive.length === 0) {
      throw errors.invalidBodyField(`${field}.recommend.positive`, 'the average_vector strategy needs at least one positive example');
    }
    if (positive.length + negative.length === 0) {
      throw errors.invalidBodyField(`${field}.recommend`, 'needs at least one positive or negative example');
    }
    return { kind: 'recommend', strategy, positive, negative };
  }
  if ('discover' in query) {
    return {
      kind: 'discover',
      target: vectorSource(`${field}.discover.target`, query.discover.target),
      pairs: contextPairs(`${field}.discover.context`, query.discover.context, limits),
    };
  }
  if ('context' in query) {
    const pairs = contextPairs(`${field}.context`, query.context, limits);
    if (pairs.length === 0) throw errors.invalidBodyField(`${field}.context`, 'needs at least one positive/negative pair');
    return { kind: 'context', pairs };
  }
  if ('relevance_feedback' in query) return relevanceFeedback(`${field}.relevance_feedback`, query.relevance_feedback, limits);
  if ('order_by' in query) {
    const orderBy = query.order_by;
    if (typeof orderBy === 'string') return { kind: 'order_by', orderBy: { key: orderBy, direction: 'asc' } };
    return {
      kind: 'order_by',
      orderBy: {
        key: orderBy.key,
        direction: orderBy.direction ?? 'asc',
        ...(orderBy.start_from !== undefined && orderBy.start_from !== null ? { startFrom: orderBy.start_from } : {}),
      },
    };
  }
  if ('fusion' in query) return query.fusion === 'rrf' ? { kind: 'rrf', k: defaultRrfK } : { kind: 'dbsf' };
  if ('formula' in query) return { kind: 'formula', formula: parseFormula(query.formula, query.defaults, field) };
  if ('rrf' in query) {
    const form: QueryForm = { kind: 'rrf', k: query.rrf.k ?? defaultRrfK };
    if (query.rrf.weights) form.weights = query.rrf.weights;
    return form;
  }
  return { kind: 'sample' };
}

function prefetchList(prefetch: PrefetchBody | PrefetchBody[] | null | undefined): PrefetchBody[] {
  if (prefetch === undefined || prefetch === null) return [];
  return Array.isArray(prefetch) ? prefetch : [prefetch];
}

interface Budget {
  prefetches: number;
}

/** One level of a query request (the root or a prefetch), with its refusals. */
function stage(field: string, body: PrefetchBody, depth: number, limits: RequestLimits, budget: Budget): QueryStage {
  const bodies = prefetchList(body.prefetch);
  budget.prefetches += bodies.length;
  if (budget.prefetches > limits.maxPrefetches) {
    throw errors.invalidBodyField(join(field, 'prefetch'), `at most ${limits.maxPrefetches} prefetches per request, counting every level`);
  }
  if (bodies.length > 0 && depth >= limits.maxPrefetchDepth) {
    throw errors.invalidBodyField(join(field, 'prefetch'), `prefetches nest at most ${limits.maxPrefetchDepth} levels deep`);
  }
  const limit = clampLimit(body.limit ?? defaultQueryLimit, limits.maxLimit);
  const query = body.query === undefined || body.query === null ? undefined : queryForm(join(field, 'query'), body.query, limits, limit);
  const using = body.using ?? '';
  const threshold = body.score_threshold ?? undefined;

  // Qdrant's checks, in Qdrant's order, so a request with several problems gets its message.
  if (bodies.length > 0 && query === undefined) throw errors.prefetchWithoutQuery(where(field));
  if (threshold !== undefined) {
    if (query === undefined) throw errors.scoreThresholdWithoutQuery(where(field));
    if (query.kind === 'order_by') throw errors.scoreThresholdWithOrderBy(where(field));
  }
  const isFusion = query?.kind === 'rrf' || query?.kind === 'dbsf';
  if (isFusion && using !== '') throw errors.fusionWithUsing(where(field));
  if (isFusion && bodies.length === 0) throw errors.fusionWithoutPrefetch(where(field));
  if (query?.kind === 'formula' && bodies.length === 0) {
    throw errors.invalidBodyField(join(field, 'query'), 'cannot apply Formula without prefetches: a formula re-scores the points they return');
  }
  if (query?.kind === 'rrf' && query.weights && query.weights.length !== bodies.length) {
    throw errors.invalidBodyField(`${join(field, 'query')}.rrf.weights`, `needs one weight per prefetch: got ${query.weights.length}, expected ${bodies.length}`);
  }

  const prefetches = bodies.map((child, position) => stage(`${join(field, 'prefetch')}[${position}]`, child, depth + 1, limits, budget));
  const result: QueryStage = {
    field,
    prefetches,
    using,
    tuning: tuningOf(body.params),
    limit,
  };
  if (query !== undefined) result.query = query;
  if (body.filter !== undefined && body.filter !== null) result.filter = body.filter;
  if (threshold !== undefined) result.scoreThreshold = threshold;
  if (body.lookup_from) result.lookupFrom = { collection: body.lookup_from.collection, vector: body.lookup_from.vector ?? '' };
  return result;
}

/**
 * The `with_payload` paths, checked now: the answer shapes payloads only when there are points,
 * and a malformed path must be a 400 whether or not anything matched.
 */
function checkedWithPayload(field: string, value: WithPayloadSelector | null | undefined): WithPayloadSelector {
  const selector = value ?? false;
  payloadSelection(selector, false, join(field, 'with_payload'));
  return selector;
}

export function queryPlan(body: QueryRequestBody, limits: RequestLimits = defaultRequestLimits, field = ''): QueryPlan {
  const root = stage(field, body, 0, limits, { prefetches: 0 });
  return {
    ...root,
    offset: checkOffset(join(field, 'offset'), body.offset ?? 0, limits),
    withPayload: checkedWithPayload(field, body.with_payload),
    withVector: body.with_vector ?? false,
    ...withIdfStatistics(body.cluster_idf_statistics, join(field, 'cluster_idf_statistics')),
  };
}

function withIdfStatistics(input: Parameters<typeof idfStatisticsOf>[0], field: string): Pick<QueryPlan, 'idfStatistics'> {
  const statistics = idfStatisticsOf(input, field);
  return statistics ? { idfStatistics: statistics } : {};
}

export function searchPlan(body: SearchRequestBody, limits: RequestLimits = defaultRequestLimits, field = ''): QueryPlan {
  const limit = body.limit ?? body.top;
  if (limit === undefined || limit === null) throw errors.invalidBodyField(join(field, 'limit'), 'missing required field');
  const named = !Array.isArray(body.vector);
  const values = Array.isArray(body.vector) ? body.vector : body.vector.vector;
  const target: VectorSource = Array.isArray(values) ? { kind: 'vector', values } : { kind: 'sparse', vector: parseSparseInput(values, join(field, 'vector.vector'), 'query') };
  const plan: QueryPlan = {
    field,
    query: { kind: 'nearest', target },
    queryField: join(field, 'vector'),
    prefetches: [],
    using: named ? (body.vector as { name: string }).name : '',
    tuning: tuningOf(body.params),
    limit: clampLimit(limit, limits.maxLimit),
    offset: checkOffset(join(field, 'offset'), body.offset ?? 0, limits),
    withPayload: checkedWithPayload(field, body.with_payload),
    withVector: body.with_vector ?? body.with_vectors ?? false,
    ...withIdfStatistics(body.cluster_idf_statistics, join(field, 'cluster_idf_statistics')),
  };
  if (body.filter !== undefined && body.filter !== null) plan.filter = body.filter;
  if (body.score_threshold !== undefined && body.score_threshold !== null) plan.scoreThreshold = body.score_threshold;
  return plan;
}

function checkBatch(count: number, limits: RequestLimits): void {
  if (count > limits.maxBatch) throw errors.invalidBodyField('searches', `at most ${limits.maxBatch} searches per batch (got ${count})`);
}

export function searchBatchPlans(body: SearchBatchBody, limits: RequestLimits = defaultRequestLimits): QueryPlan[] {
  checkBatch(body.searches.length, limits);
  return body.searches.map((search, position) => searchPlan(search, limits, `searches[${position}]`));
}

export function queryBatchPlans(body: QueryBatchBody, limits: RequestLimits = defaultRequestLimits): QueryPlan[] {
  checkBatch(body.searches.length, limits);
  return body.searches.map((search, position) => queryPlan(search, limits, `searches[${position}]`));
}
