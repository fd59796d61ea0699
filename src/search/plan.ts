// The checked, normalised form of a search or query request: what the executor runs. Built by
// ./request.ts from the validated body; never sees HTTP.
import type { Formula } from './formula.js';
import type { IdfStatistics } from './idf.js';
import type { SparseVector } from '../points/sparse-vector.js';
import type { FeedbackPair, NaiveStrategy } from './relevance-feedback.js';
import type { OrderByInput, PointIdInput, WithPayloadSelector, WithVectorSelector } from './schemas.js';

/**
 * A query vector given inline (dense, or sparse: `{indices, values}` or a BM25 Document already
 * turned into its query vector), or the id of a point whose vector is used.
 */
export type VectorSource = { kind: 'vector'; values: (number | bigint)[] } | { kind: 'multi'; rows: (number | bigint)[][] } | { kind: 'sparse'; vector: SparseVector } | { kind: 'point'; id: PointIdInput };

export interface ContextPairSource {
  positive: VectorSource;
  negative: VectorSource;
}

/** One `relevance_feedback` example and the feedback score it was given. */
export interface FeedbackExampleSource {
  example: VectorSource;
  score: number;
}

export type RecommendStrategy = 'average_vector' | 'best_score' | 'sum_scores';

export interface OrderBySpec {
  key: string;
  direction: 'asc' | 'desc';
  startFrom?: number | string;
}

/** Maximal marginal relevance over a nearest query's candidates (docs/api.md §5.5). */
export interface MmrSpec {
  /** 1 - diversity: the weight of relevance against unlikeness to the points already picked. */
  lambda: number;
  /** How many nearest points MMR picks from. */
  candidatesLimit: number;
}

export type QueryForm =
  | { kind: 'nearest'; target: VectorSource; mmr?: MmrSpec }
  | { kind: 'recommend'; strategy: RecommendStrategy; positive: VectorSource[]; negative: VectorSource[] }
  | { kind: 'discover'; target: VectorSource; pairs: ContextPairSource[] }
  | { kind: 'context'; pairs: ContextPairSource[] }
  | { kind: 'relevance_feedback'; target: VectorSource; feedback: FeedbackExampleSource[]; strategy: NaiveStrategy; pairs: FeedbackPair[] }
  | { kind: 'order_by'; orderBy: OrderBySpec }
  | { kind: 'rrf'; k: number; weights?: number[] }
  | { kind: 'dbsf' }
  | { kind: 'sample' }
  | { kind: 'formula'; formula: Formula };

export interface SearchTuning {
  /** Candidate list size for the graph walk; undefined = the kernel's default. */
  ef?: number;
  /** True: brute force, never the graph. */
  exact: boolean;
  /** `quantization.oversampling` as sent (strict mode bounds it). */
  oversampling?: number;
  /** `params.quantization` as sent (docs/api.md §15); undefined = the defaults. */
  quantization?: { ignore?: boolean; rescore?: boolean; oversampling?: number };
}

export interface LookupSpec {
  collection: string;
  /** Vector name in that collection; '' = its unnamed vector. */
  vector: string;
}

export interface QueryStage {
  /** Where this stage sits in the request, for messages: '' for the root, 'prefetch[0]' ... */
  field: string;
  query?: QueryForm;
  /** Where the query vector sits, for messages, when not `<field>.query`: `vector` in a search request. */
  queryField?: string;
  prefetches: QueryStage[];
  /** Vector name; '' = the unnamed vector. */
  using: string;
  /** The filter as sent; the filter module parses it. Undefined or null: no filter. */
  filter?: unknown;
  tuning: SearchTuning;
  scoreThreshold?: number;
  limit: number;
  lookupFrom?: LookupSpec;
}

export interface QueryPlan extends QueryStage {
  offset: number;
  withPayload: WithPayloadSelector;
  withVector: WithVectorSelector;
  /** Cluster mode only: the whole collection's IDF statistics per sparse vector name (./idf.ts). */
  idfStatistics?: ReadonlyMap<string, IdfStatistics>;
}

export const defaultRrfK = 2;
export const defaultQueryLimit = 10;
export const defaultMmrDiversity = 0.5;
/** The kernel's cap on the candidates of one MMR pick (its pairwise work grows with their square). */
export const maxMmrCandidates = 16_384;

export type { OrderByInput };
