// TypeBox schemas of the search and query requests (docs/api.md §3, §5). They check shapes only;
// rules that span fields (limits from config, the refusals of docs/api.md §5.3, `limit`/`top`) live in
// ./request.ts so each can name its field. Qdrant clients send `null` for every optional field
// they leave unset, so optionals accept null. Unknown keys are refused: a misspelt option must
// not be silently ignored.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { LimitSchema } from '../points/request-schemas.js';
import { WithPayloadSchema, WithVectorSchema } from '../points/selectors.js';

const strict = { additionalProperties: false } as const;

/** An optional field that may also be sent as `null` (meaning "default"). */
function Maybe<Schema extends TSchema>(schema: Schema) {
  return Type.Optional(Type.Union([schema, Type.Null()]));
}

/**
 * A point id as sent: an unsigned integer (bigint above 2^53, from the lossless parser) or a
 * UUID string. The exact id rules (UUID forms, the 400 message) are applied when the id is
 * resolved, by the points module's parser.
 */
export const PointIdInput = Type.Union([Type.Integer({ minimum: 0 }), Type.BigInt({ minimum: 0n }), Type.String()]);

/**
 * A dense query vector as sent. Integer literals beyond 2^53 arrive as bigint from the lossless
 * parser (docs/api.md §2); they are numbers all the same, accepted here as upsert accepts them,
 * and parseDenseVector turns them into float32 (and checks the float32 range).
 */
export const DenseVector = Type.Array(Type.Union([Type.Number(), Type.BigInt()]), { minItems: 1 });

/** A multivector as sent: rows of numbers (docs/api.md §20); parseMultiVector checks every row. */
export const MultiDenseVector = Type.Array(DenseVector, { minItems: 1 });

/** What a query may point at: a dense vector, a multivector or the id of a stored point. */
export const VectorInput = Type.Union([DenseVector, MultiDenseVector, PointIdInput]);

/** A sparse vector as sent; src/points/sparse-vector.ts checks its entries and names the bad one. */
export const SparseVectorInput = Type.Object({ indices: Type.Array(Type.Unknown()), values: Type.Array(Type.Unknown()) }, strict);

/** Text the server turns into a vector itself (BM25, src/text/bm25.ts checks model and options). */
export const DocumentInput = Type.Object({ text: Type.String(), model: Type.String(), options: Maybe(Type.Unknown()) }, strict);

/** What a nearest query may point at: any VectorInput, a sparse vector or a Document. */
export const QueryVectorInput = Type.Union([DenseVector, MultiDenseVector, SparseVectorInput, DocumentInput, PointIdInput]);

export const ContextPair = Type.Object({ positive: VectorInput, negative: VectorInput }, strict);
const ContextInput = Type.Union([ContextPair, Type.Array(ContextPair), Type.Null()]);

export const RecommendStrategy = Type.Union([
  Type.Literal('average_vector'),
  Type.Literal('best_score'),
  Type.Literal('sum_scores'),
]);

export const OrderByInput = Type.Union([
  Type.String({ minLength: 1 }),
  Type.Object(
    {
      key: Type.String({ minLength: 1 }),
      direction: Maybe(Type.Union([Type.Literal('asc'), Type.Literal('desc')])),
      start_from: Maybe(Type.Union([Type.Number(), Type.String()])),
    },
    strict,
  ),
]);

/** Ranges are checked by ./request.ts, which names the field in Qdrant's words. */
export const MmrInput = Type.Object({ diversity: Maybe(Type.Number()), candidates_limit: Maybe(Type.Integer()) }, strict);
export const NearestQuery = Type.Object({ nearest: QueryVectorInput, mmr: Maybe(MmrInput) }, strict);
export const RecommendQuery = Type.Object(
  {
    recommend: Type.Object(
      {
        positive: Maybe(Type.Array(VectorInput)),
        negative: Maybe(Type.Array(VectorInput)),
        strategy: Maybe(RecommendStrategy),
      },
      strict,
    ),
  },
  strict,
);
export const DiscoverQuery = Type.Object(
  { discover: Type.Object({ target: VectorInput, context: ContextInput }, strict) },
  strict,
);
export const ContextQuery = Type.Object({ context: ContextInput }, strict);
/** Number ranges (finite float32, the pair weights) are checked by ./request.ts, naming the field. */
export const FeedbackItem = Type.Object({ example: VectorInput, score: Type.Number() }, strict);
export const NaiveFeedbackStrategy = Type.Object(
  { naive: Type.Object({ a: Type.Number(), b: Type.Number(), c: Type.Number() }, strict) },
  strict,
);
export const RelevanceFeedbackQuery = Type.Object(
  {
    relevance_feedback: Type.Object(
      { target: VectorInput, feedback: Type.Array(FeedbackItem), strategy: NaiveFeedbackStrategy },
      strict,
    ),
  },
  strict,
);
export const OrderByQuery = Type.Object({ order_by: OrderByInput }, strict);
export const FusionQuery = Type.Object({ fusion: Type.Union([Type.Literal('rrf'), Type.Literal('dbsf')]) }, strict);
export const RrfQuery = Type.Object(
  {
    rrf: Type.Object(
      {
        // k = 0 would divide by zero at rank 0.
        k: Maybe(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
        weights: Maybe(Type.Array(Type.Number({ minimum: 0 }))),
      },
      strict,
    ),
  },
  strict,
);
export const SampleQuery = Type.Object({ sample: Type.Literal('random') }, strict);
/** The expression is checked by ./formula.ts, which names the offending part. */
export const FormulaQuery = Type.Object({ formula: Type.Unknown(), defaults: Maybe(Type.Record(Type.String(), Type.Unknown())) }, strict);

/** Every `query` form of docs/api.md §5. */
export const QueryInterface = Type.Union([
  QueryVectorInput,
  NearestQuery,
  RecommendQuery,
  DiscoverQuery,
  ContextQuery,
  RelevanceFeedbackQuery,
  OrderByQuery,
  FusionQuery,
  RrfQuery,
  SampleQuery,
  FormulaQuery,
]);

export const SearchParams = Type.Object(
  {
    // 0 would be a walk that looks at nothing: refused, as Qdrant refuses it.
    hnsw_ef: Maybe(Type.Integer({ minimum: 1, maximum: 100_000 })),
    exact: Maybe(Type.Boolean()),
    // docs/api.md §15: used when the vector is quantized, no effect otherwise.
    quantization: Maybe(
      Type.Object(
        { ignore: Maybe(Type.Boolean()), rescore: Maybe(Type.Boolean()), oversampling: Maybe(Type.Number({ minimum: 1 })) },
        strict,
      ),
    ),
    indexed_only: Maybe(Type.Boolean()),
    acorn: Maybe(Type.Object({ enable: Maybe(Type.Boolean()), max_selectivity: Maybe(Type.Number()) }, strict)),
  },
  strict,
);

// The points module owns the selector shapes: one definition for retrieve, scroll and search.
export const WithPayloadSelector = WithPayloadSchema;
export const WithVectorSelector = WithVectorSchema;

export const LookupLocation = Type.Object(
  { collection: Type.String({ minLength: 1 }), vector: Maybe(Type.String()), shard_key: Type.Optional(Type.Unknown()) },
  strict,
);

/** Filters are checked by the filter module, which names the offending condition. */
const FilterInput = Type.Optional(Type.Unknown());

/** Above the configured cap it is clamped, by ./request.ts. */
export const LimitInput = LimitSchema;

/** The fields a prefetch shares with the request; prefetches nest. */
function stageFields<Self extends TSchema>(self: Self) {
  return {
    prefetch: Maybe(Type.Union([self, Type.Array(self)])),
    query: Maybe(QueryInterface),
    using: Maybe(Type.String()),
    filter: FilterInput,
    params: Maybe(SearchParams),
    score_threshold: Maybe(Type.Number()),
    limit: Maybe(LimitInput),
    lookup_from: Maybe(LookupLocation),
  };
}

export const Prefetch = Type.Recursive((self) => Type.Object(stageFields(self), strict), { $id: 'Prefetch' });

/**
 * Cluster mode only (docs/architecture.md §13): the whole collection's IDF statistics per sparse
 * vector name, sent by a coordinator to its shards. The routes refuse it from any other caller.
 */
export const ClusterIdfStatistics = Type.Record(
  Type.String(),
  Type.Object(
    {
      document_count: Type.Integer({ minimum: 0 }),
      indices: Type.Array(Type.Integer({ minimum: 0, maximum: 4_294_967_295 })),
      document_frequencies: Type.Array(Type.Integer({ minimum: 0 })),
    },
    strict,
  ),
);

export const QueryRequest = Type.Object(
  {
    ...stageFields(Prefetch),
    offset: Maybe(Type.Integer({ minimum: 0 })),
    with_payload: Maybe(WithPayloadSelector),
    with_vector: Maybe(WithVectorSelector),
    // Single node: there is one shard, so a shard selector changes nothing.
    shard_key: Type.Optional(Type.Unknown()),
    cluster_idf_statistics: Type.Optional(ClusterIdfStatistics),
  },
  strict,
);

export const QueryBatchRequest = Type.Object({ searches: Type.Array(QueryRequest) }, strict);

/** `{name, vector}`: a named dense vector, or Qdrant's NamedSparseVector. */
export const NamedVector = Type.Object({ name: Type.String(), vector: Type.Union([DenseVector, SparseVectorInput]) }, strict);

export const SearchRequest = Type.Object(
  {
    vector: Type.Union([DenseVector, NamedVector]),
    // `limit` is required, `top` is Qdrant's alias; request.ts insists on one of them.
    limit: Maybe(LimitInput),
    top: Maybe(LimitInput),
    offset: Maybe(Type.Integer({ minimum: 0 })),
    filter: FilterInput,
    params: Maybe(SearchParams),
    with_payload: Maybe(WithPayloadSelector),
    with_vector: Maybe(WithVectorSelector),
    with_vectors: Maybe(WithVectorSelector),
    score_threshold: Maybe(Type.Number()),
    shard_key: Type.Optional(Type.Unknown()),
    cluster_idf_statistics: Type.Optional(ClusterIdfStatistics),
  },
  strict,
);

export const SearchBatchRequest = Type.Object({ searches: Type.Array(SearchRequest) }, strict);

export type PointIdInput = Static<typeof PointIdInput>;
export type VectorInput = Static<typeof VectorInput>;
export type QueryVectorInput = Static<typeof QueryVectorInput>;
export type QueryInterface = Static<typeof QueryInterface>;
export type SearchParams = Static<typeof SearchParams>;
export type WithPayloadSelector = Static<typeof WithPayloadSelector>;
export type WithVectorSelector = Static<typeof WithVectorSelector>;
export type LookupLocation = Static<typeof LookupLocation>;
export type PrefetchBody = Static<typeof Prefetch>;
export type QueryRequestBody = Static<typeof QueryRequest>;
export type QueryBatchBody = Static<typeof QueryBatchRequest>;
export type SearchRequestBody = Static<typeof SearchRequest>;
export type SearchBatchBody = Static<typeof SearchBatchRequest>;
export type OrderByInput = Static<typeof OrderByInput>;
