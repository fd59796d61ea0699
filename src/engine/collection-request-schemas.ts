// The collection request schemas (docs/api.md §4): the TypeBox shapes of the create and update
// bodies, and the null-stripping they are checked after. Rules that span fields or need the
// configured limits live with the configuration model in ./collection-config.ts, which raises
// them naming the field.
import { Type, type Static, type TSchema } from '@sinclair/typebox';

/**
 * Optional. `null` also means "default" (docs/api.md §4): requests have their nulls removed by
 * `withoutDefaultNulls` before these schemas check them, so errors name the exact field.
 */
function Nullable<Schema extends TSchema>(schema: Schema) {
  return Type.Optional(schema);
}

/** Keys whose objects are free JSON where a null is meaningful (metadata: null removes a key). */
const freeJsonKeys = new Set(['metadata', 'init_from']);

/** A request without its "default" nulls, except inside free-JSON objects. */
export function withoutDefaultNulls(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const result: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
    if (child === null || child === undefined) continue;
    result[key] = freeJsonKeys.has(key) ? child : withoutDefaultNulls(child);
  }
  return result;
}

const strict = { additionalProperties: false } as const;
const PositiveInteger = Type.Integer({ minimum: 1 });
const NonNegativeInteger = Type.Integer({ minimum: 0 });

/**
 * Qdrant v1.19's memory tier of one stored structure (docs/api.md §4.1): accepted, validated and
 * echoed; QuiverDB keeps everything in RAM, so it changes nothing yet.
 */
export const MemoryTierSchema = Type.Union([Type.Literal('pinned'), Type.Literal('cached'), Type.Literal('cold')]);

export const DistanceSchema = Type.Union([Type.Literal('Cosine'), Type.Literal('Euclid'), Type.Literal('Dot'), Type.Literal('Manhattan')]);

/**
 * A dense vector's datatype. Qdrant v1.19's `turbo4` (TurboQuant, 4 bits per element) is accepted
 * by the schema so that the refusal names it (collection-config.ts, docs/api.md §21).
 */
export const DenseDatatypeSchema = Type.Union(['float32', 'float16', 'uint8', 'turbo4'].map((value) => Type.Literal(value)));

/** A sparse vector's datatype: accepted, stored and echoed; weights stay float32 (docs/api.md §21). */
export const SparseDatatypeSchema = Type.Union(['float32', 'float16', 'uint8'].map((value) => Type.Literal(value)));

/**
 * One schema for create and PATCH (and a vector's own hnsw_config): the ranges are the kernel's
 * (docs/api.md §4.1), so a PATCH can never store a value the next start cannot build an index
 * with. full_scan_threshold (KB) stays below 2^53 / 1024, so its vector count is a safe integer.
 */
export const HnswConfigSchema = Type.Object(
  {
    // 0 is Qdrant's switch for "no HNSW graph" (every search an exact scan); 1 links nothing useful.
    m: Nullable(Type.Union([Type.Literal(0), Type.Integer({ minimum: 2, maximum: 128 })])),
    ef_construct: Nullable(Type.Integer({ minimum: 4, maximum: 4096 })),
    full_scan_threshold: Nullable(Type.Integer({ minimum: 10, maximum: 2 ** 43 })),
    max_indexing_threads: Nullable(Type.Integer({ minimum: 0, maximum: 256 })),
    on_disk: Nullable(Type.Boolean()),
    payload_m: Nullable(NonNegativeInteger),
    inline_storage: Nullable(Type.Boolean()),
    memory: Nullable(MemoryTierSchema),
  },
  strict,
);

const ScalarQuantization = Type.Object(
  {
    scalar: Type.Object(
      {
        type: Type.Literal('int8'),
        quantile: Nullable(Type.Number({ minimum: 0.5, maximum: 1 })),
        always_ram: Nullable(Type.Boolean()),
        memory: Nullable(MemoryTierSchema),
      },
      strict,
    ),
  },
  strict,
);
const ProductQuantization = Type.Object(
  {
    product: Type.Object(
      {
        compression: Type.Union(['x4', 'x8', 'x16', 'x32', 'x64'].map((value) => Type.Literal(value))),
        always_ram: Nullable(Type.Boolean()),
        memory: Nullable(MemoryTierSchema),
      },
      strict,
    ),
  },
  strict,
);
const BinaryQuantization = Type.Object(
  {
    binary: Type.Object(
      {
        always_ram: Nullable(Type.Boolean()),
        memory: Nullable(MemoryTierSchema),
        encoding: Nullable(Type.Union(['one_bit', 'two_bits', 'one_and_half_bits'].map((value) => Type.Literal(value)))),
        query_encoding: Nullable(Type.Union(['default', 'binary', 'scalar4bits', 'scalar8bits'].map((value) => Type.Literal(value)))),
      },
      strict,
    ),
  },
  strict,
);
// Qdrant v1.19's TurboQuant shape: accepted by the schema so that the refusal names it (docs/api.md §15).
const TurboQuantization = Type.Object({ turbo: Type.Record(Type.String(), Type.Unknown()) }, strict);
export const QuantizationConfigSchema = Type.Union([ScalarQuantization, ProductQuantization, BinaryQuantization, TurboQuantization]);

export const VectorParamsSchema = Type.Object(
  {
    size: PositiveInteger,
    distance: DistanceSchema,
    hnsw_config: Nullable(HnswConfigSchema),
    quantization_config: Nullable(QuantizationConfigSchema),
    quantization: Nullable(QuantizationConfigSchema),
    on_disk: Nullable(Type.Boolean()),
    // Original vectors live in a memory map in Qdrant: they can be cached or cold, never pinned.
    memory: Nullable(Type.Union([Type.Literal('cached'), Type.Literal('cold')])),
    datatype: Nullable(DenseDatatypeSchema),
    multivector_config: Nullable(Type.Object({ comparator: Type.Literal('max_sim') }, strict)),
  },
  strict,
);
export type VectorParams = Static<typeof VectorParamsSchema>;

export const OptimizersConfigSchema = Type.Object(
  {
    deleted_threshold: Nullable(Type.Number({ minimum: 0, maximum: 1 })),
    vacuum_min_vector_number: Nullable(Type.Integer({ minimum: 100 })),
    default_segment_number: Nullable(NonNegativeInteger),
    max_segment_size: Nullable(NonNegativeInteger),
    memmap_threshold: Nullable(NonNegativeInteger),
    indexing_threshold: Nullable(NonNegativeInteger),
    flush_interval_sec: Nullable(NonNegativeInteger),
    max_optimization_threads: Nullable(Type.Union([NonNegativeInteger, Type.Literal('auto')])),
    prevent_unoptimized: Nullable(Type.Boolean()),
  },
  strict,
);

export const WalConfigSchema = Type.Object(
  {
    wal_capacity_mb: Nullable(PositiveInteger),
    wal_segments_ahead: Nullable(NonNegativeInteger),
    wal_retain_closed: Nullable(NonNegativeInteger),
  },
  strict,
);

export const SparseVectorParamsSchema = Type.Object(
  {
    index: Nullable(
      Type.Object(
        {
          full_scan_threshold: Nullable(NonNegativeInteger),
          on_disk: Nullable(Type.Boolean()),
          datatype: Nullable(SparseDatatypeSchema),
        },
        strict,
      ),
    ),
    modifier: Nullable(Type.Union([Type.Literal('none'), Type.Literal('idf')])),
  },
  strict,
);

const FreeObject = Type.Record(Type.String(), Type.Unknown());

/**
 * Qdrant's StrictModeConfig (docs/api.md §4.5). The limits are enforced by ./strict-mode.ts;
 * the per-vector multivector and sparse limits are kept as given.
 */
export const StrictModeConfigSchema = Type.Object(
  {
    enabled: Nullable(Type.Boolean()),
    max_query_limit: Nullable(PositiveInteger),
    max_timeout: Nullable(PositiveInteger),
    unindexed_filtering_retrieve: Nullable(Type.Boolean()),
    unindexed_filtering_update: Nullable(Type.Boolean()),
    search_max_hnsw_ef: Nullable(PositiveInteger),
    search_allow_exact: Nullable(Type.Boolean()),
    search_max_oversampling: Nullable(Type.Number({ minimum: 1 })),
    upsert_max_batchsize: Nullable(PositiveInteger),
    search_max_batchsize: Nullable(PositiveInteger),
    max_collection_vector_size_bytes: Nullable(PositiveInteger),
    read_rate_limit: Nullable(PositiveInteger),
    write_rate_limit: Nullable(PositiveInteger),
    max_collection_payload_size_bytes: Nullable(PositiveInteger),
    max_points_count: Nullable(PositiveInteger),
    filter_max_conditions: Nullable(PositiveInteger),
    condition_max_size: Nullable(PositiveInteger),
    multivector_config: Nullable(Type.Record(Type.String(), Type.Object({ max_vectors: Nullable(PositiveInteger) }, strict))),
    sparse_config: Nullable(Type.Record(Type.String(), Type.Object({ max_length: Nullable(PositiveInteger) }, strict))),
    max_payload_index_count: Nullable(PositiveInteger),
    max_resident_memory_percent: Nullable(Type.Integer({ minimum: 1, maximum: 100 })),
  },
  strict,
);
export type StrictModeConfig = Static<typeof StrictModeConfigSchema>;
const VectorsSchema = Type.Union([VectorParamsSchema, Type.Record(Type.String(), VectorParamsSchema)]);

export const CreateCollectionSchema = Type.Object(
  {
    vectors_config: Nullable(VectorsSchema),
    vectors: Nullable(VectorsSchema),
    shard_number: Nullable(PositiveInteger),
    sharding_method: Nullable(Type.Union([Type.Literal('auto'), Type.Literal('custom')])),
    replication_factor: Nullable(PositiveInteger),
    write_consistency_factor: Nullable(PositiveInteger),
    on_disk_payload: Nullable(Type.Boolean()),
    hnsw_config: Nullable(HnswConfigSchema),
    wal_config: Nullable(WalConfigSchema),
    optimizers_config: Nullable(OptimizersConfigSchema),
    quantization_config: Nullable(QuantizationConfigSchema),
    /** Qdrant's accepted alias of quantization_config; giving both is a 400. */
    quantization: Nullable(QuantizationConfigSchema),
    sparse_vectors: Nullable(Type.Record(Type.String(), SparseVectorParamsSchema)),
    strict_mode_config: Nullable(StrictModeConfigSchema),
    metadata: Nullable(FreeObject),
    init_from: Nullable(FreeObject),
  },
  strict,
);
export type CreateCollectionRequest = Static<typeof CreateCollectionSchema>;

const VectorParamsDiffSchema = Type.Object(
  {
    hnsw_config: Nullable(HnswConfigSchema),
    quantization_config: Nullable(Type.Union([QuantizationConfigSchema, Type.Literal('Disabled')])),
    quantization: Nullable(Type.Union([QuantizationConfigSchema, Type.Literal('Disabled')])),
    on_disk: Nullable(Type.Boolean()),
    memory: Nullable(Type.Union([Type.Literal('cached'), Type.Literal('cold')])),
  },
  strict,
);

export const UpdateCollectionSchema = Type.Object(
  {
    vectors: Nullable(Type.Record(Type.String(), VectorParamsDiffSchema)),
    optimizers_config: Nullable(OptimizersConfigSchema),
    params: Nullable(
      Type.Object(
        {
          replication_factor: Nullable(PositiveInteger),
          write_consistency_factor: Nullable(PositiveInteger),
          read_fan_out_factor: Nullable(NonNegativeInteger),
          on_disk_payload: Nullable(Type.Boolean()),
        },
        strict,
      ),
    ),
    hnsw_config: Nullable(HnswConfigSchema),
    quantization_config: Nullable(Type.Union([QuantizationConfigSchema, Type.Literal('Disabled')])),
    quantization: Nullable(Type.Union([QuantizationConfigSchema, Type.Literal('Disabled')])),
    sparse_vectors: Nullable(Type.Record(Type.String(), SparseVectorParamsSchema)),
    strict_mode_config: Nullable(StrictModeConfigSchema),
    metadata: Nullable(FreeObject),
  },
  strict,
);
export type UpdateCollectionRequest = Static<typeof UpdateCollectionSchema>;
