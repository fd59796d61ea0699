// Collection configuration (docs/api.md §4): the stored form with defaults filled in, the rules that
// build and update it from checked requests, and the `config` part of CollectionInfo. Options we
// do not act on yet are still validated, stored and echoed, so Qdrant clients see what they sent.
// The request schemas themselves are in ./collection-request-schemas.ts.
import type { Distance } from '../native/vector-index.js';
import { unsupportedQuantization } from './quantization.js';
import type { CreateCollectionRequest, StrictModeConfig, UpdateCollectionRequest, VectorParams } from './collection-request-schemas.js';

type Json = Record<string, unknown>;

/** The stored configuration: every default filled in, nulls removed. Persisted as JSON. */
export interface CollectionConfig {
  /** `single`: one unnamed vector (stored under the name ""); `named`: a map of names. */
  vectors_shape: 'single' | 'named';
  /**
   * The single unnamed vector was declared as a map `{"": {...}}` (LangChain does): it behaves
   * as the unnamed vector and is echoed in the map form it was given (docs/api.md §4.1).
   */
  unnamed_vector_as_map?: true;
  vectors: Record<string, Json & { size: number; distance: Distance }>;
  shard_number: number;
  sharding_method?: string;
  replication_factor: number;
  write_consistency_factor: number;
  on_disk_payload: boolean;
  sparse_vectors?: Record<string, Json>;
  hnsw_config: Json & { m: number; ef_construct: number; full_scan_threshold: number; max_indexing_threads: number };
  optimizer_config: Json;
  wal_config: Json;
  quantization_config: Json | null;
  strict_mode_config?: StrictModeConfig;
  metadata?: Json;
}

export const unnamedVector = '';

export const defaultHnswConfig = { m: 16, ef_construct: 100, full_scan_threshold: 10_000, max_indexing_threads: 0, on_disk: false };
const defaultOptimizerConfig = {
  deleted_threshold: 0.2,
  vacuum_min_vector_number: 1000,
  default_segment_number: 0,
  max_segment_size: null,
  memmap_threshold: null,
  indexing_threshold: 10_000,
  flush_interval_sec: 5,
  max_optimization_threads: null,
};
const defaultWalConfig = { wal_capacity_mb: 32, wal_segments_ahead: 0 };

/** A copy without the keys whose value is null ("default"), recursively for plain objects. */
export function withoutNulls<Value>(value: Value): Value {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const result: Json = {};
  for (const [key, child] of Object.entries(value as Json)) {
    if (child === null || child === undefined) continue;
    result[key] = withoutNulls(child);
  }
  return result as Value;
}

function isSingleVectorParams(value: unknown): value is VectorParams {
  return typeof value === 'object' && value !== null && 'size' in value && 'distance' in value;
}

/** A problem with a create request that the schema cannot express; the caller raises the 400. */
export class ConfigProblem extends Error {
  constructor(
    readonly field: string,
    problem: string,
  ) {
    super(problem);
  }
}

/**
 * Refuses a dense datatype QuiverDB does not store: Qdrant v1.19's `turbo4` quantizes each
 * element to 4 bits with TurboQuant, which the kernel has no arena for (docs/api.md §21).
 */
export function checkDenseDatatype(datatype: string | null | undefined, field: string): void {
  if (datatype === 'turbo4') {
    throw new ConfigProblem(field, 'datatype turbo4 (TurboQuant, 4 bits per element) is not supported; use float32, float16 or uint8, or quantization_config for compact codes');
  }
}

/**
 * `quantization` is Qdrant's accepted alias of `quantization_config` (docs/api.md §4.1): the one
 * given, or a ConfigProblem when both are.
 */
function quantizationOf<Value>(request: { quantization_config?: Value; quantization?: Value }, where: string): Value | undefined {
  if (request.quantization_config != null && request.quantization != null) {
    throw new ConfigProblem(`${where}quantization`, 'give either quantization_config or quantization, not both');
  }
  const value = request.quantization_config ?? request.quantization ?? undefined;
  // Shapes QuiverDB does not act on are refused rather than stored and ignored (docs/api.md §15).
  const unsupported = unsupportedQuantization(value);
  if (unsupported) throw new ConfigProblem(`${where}quantization_config.${unsupported.field}`, unsupported.message);
  return value;
}

/** The stored form of one vector's parameters: nulls removed, the quantization alias folded in. */
function storedVectorParams(params: VectorParams, where: string): CollectionConfig['vectors'][string] {
  const quantization = quantizationOf(params, `${where}.`);
  const { quantization: _alias, ...rest } = params;
  const stored = withoutNulls({ ...rest, quantization_config: quantization }) as CollectionConfig['vectors'][string];
  return stored;
}

export interface ConfigLimits {
  max_vector_size: number;
}

/**
 * The stored configuration for a validated create request; throws ConfigProblem for what the
 * schema cannot check (both spellings at once, sizes above the limit, no vectors at all).
 */
export function buildCollectionConfig(request: CreateCollectionRequest, limits: ConfigLimits): CollectionConfig | 'vectors_config_required' {
  if (request.vectors_config != null && request.vectors != null) {
    throw new ConfigProblem('vectors', 'give either vectors_config or vectors, not both');
  }
  const vectorsInput = request.vectors_config ?? request.vectors ?? undefined;
  const sparse = request.sparse_vectors ?? undefined;
  if (vectorsInput === undefined && (sparse === undefined || Object.keys(sparse).length === 0)) return 'vectors_config_required';
  const field = request.vectors_config != null ? 'vectors_config' : 'vectors';
  // A map holding only "" is the unnamed vector, as in Qdrant (its default vector name is "").
  const onlyUnnamedInMap =
    vectorsInput !== undefined && !isSingleVectorParams(vectorsInput) && Object.keys(vectorsInput).length === 1 && unnamedVector in vectorsInput;
  const shape: 'single' | 'named' = isSingleVectorParams(vectorsInput) || onlyUnnamedInMap ? 'single' : 'named';
  const namedInput: Record<string, VectorParams> =
    vectorsInput === undefined ? {} : isSingleVectorParams(vectorsInput) ? { [unnamedVector]: vectorsInput } : (vectorsInput as Record<string, VectorParams>);
  const vectors: CollectionConfig['vectors'] = {};
  for (const [name, params] of Object.entries(namedInput)) {
    const where = isSingleVectorParams(vectorsInput) ? field : `${field}.${name === unnamedVector ? '""' : name}`;
    if (params.size > limits.max_vector_size) {
      throw new ConfigProblem(`${where}.size`, `vector size ${params.size} is above the limit of ${limits.max_vector_size}`);
    }
    checkDenseDatatype(params.datatype, `${where}.datatype`);
    if (params.multivector_config != null && params.datatype != null && params.datatype !== 'float32') {
      throw new ConfigProblem(`${where}.datatype`, `a multivector stores float32 rows; datatype ${params.datatype} is not supported for multivectors`);
    }
    vectors[name] = storedVectorParams(params, where);
  }
  for (const name of Object.keys(sparse ?? {})) {
    if (name in vectors) throw new ConfigProblem(`sparse_vectors.${name}`, 'a sparse vector must not share a name with a dense vector');
  }
  const quantization = quantizationOf(request, '');
  const config: CollectionConfig = {
    vectors_shape: shape,
    ...(onlyUnnamedInMap ? { unnamed_vector_as_map: true as const } : {}),
    vectors,
    shard_number: request.shard_number ?? 1,
    replication_factor: request.replication_factor ?? 1,
    write_consistency_factor: request.write_consistency_factor ?? 1,
    on_disk_payload: request.on_disk_payload ?? true,
    hnsw_config: { ...defaultHnswConfig, ...withoutNulls(request.hnsw_config ?? {}) } as CollectionConfig['hnsw_config'],
    optimizer_config: { ...defaultOptimizerConfig, ...withoutNulls(request.optimizers_config ?? {}) },
    wal_config: { ...defaultWalConfig, ...withoutNulls(request.wal_config ?? {}) },
    quantization_config: quantization ? withoutNulls(quantization) : null,
  };
  if (request.sharding_method != null) config.sharding_method = request.sharding_method;
  if (sparse !== undefined) config.sparse_vectors = withoutNulls(sparse) as Record<string, Json>;
  if (request.strict_mode_config != null) config.strict_mode_config = withoutNulls(request.strict_mode_config);
  if (request.metadata != null) config.metadata = request.metadata;
  return config;
}

function mergeMetadata(current: Json | undefined, patch: Json): Json | undefined {
  const merged: Json = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return Object.keys(merged).length > 0 ? merged : undefined;
}

/** The configuration after a PATCH; throws ConfigProblem for a vector name that does not exist. */
export function applyCollectionUpdate(current: CollectionConfig, update: UpdateCollectionRequest): CollectionConfig {
  const next: CollectionConfig = structuredClone(current);
  for (const [name, diff] of Object.entries(update.vectors ?? {})) {
    const vector = next.vectors[name];
    if (!vector) throw new ConfigProblem(`vectors.${name === '' ? '""' : name}`, `vector name ${JSON.stringify(name)} does not exist in this collection`);
    if (diff.hnsw_config != null) vector.hnsw_config = { ...(vector.hnsw_config as Json | undefined), ...withoutNulls(diff.hnsw_config) };
    const quantization = quantizationOf(diff, `vectors.${name === '' ? '""' : name}.`);
    if (quantization === 'Disabled') delete vector.quantization_config;
    else if (quantization != null) vector.quantization_config = withoutNulls(quantization);
    if (diff.on_disk != null) vector.on_disk = diff.on_disk;
    if (diff.memory != null) vector.memory = diff.memory;
  }
  if (update.optimizers_config != null) next.optimizer_config = { ...next.optimizer_config, ...withoutNulls(update.optimizers_config) };
  if (update.params != null) {
    const params = withoutNulls(update.params);
    if (params.replication_factor != null) next.replication_factor = params.replication_factor;
    if (params.write_consistency_factor != null) next.write_consistency_factor = params.write_consistency_factor;
    if (params.on_disk_payload != null) next.on_disk_payload = params.on_disk_payload;
  }
  if (update.hnsw_config != null) next.hnsw_config = { ...next.hnsw_config, ...(withoutNulls(update.hnsw_config) as Json) } as CollectionConfig['hnsw_config'];
  const quantization = quantizationOf(update, '');
  if (quantization === 'Disabled') next.quantization_config = null;
  else if (quantization != null) next.quantization_config = withoutNulls(quantization);
  if (update.sparse_vectors != null) {
    // As Qdrant: PATCH changes the index params and modifier of existing sparse vectors only.
    for (const [name, diff] of Object.entries(update.sparse_vectors)) {
      const params = next.sparse_vectors?.[name];
      if (!params) throw new ConfigProblem(`sparse_vectors.${name}`, `sparse vector name ${JSON.stringify(name)} does not exist in this collection`);
      if (diff.index != null) params.index = { ...(params.index as Json | undefined), ...withoutNulls(diff.index) };
      if (diff.modifier != null) params.modifier = diff.modifier;
    }
  }
  if (update.strict_mode_config != null) next.strict_mode_config = { ...next.strict_mode_config, ...withoutNulls(update.strict_mode_config) };
  if (update.metadata != null) {
    const metadata = mergeMetadata(next.metadata, update.metadata);
    if (metadata) next.metadata = metadata;
    else delete next.metadata;
  }
  return next;
}

/** The `config` object of CollectionInfo, in Qdrant's shape. */
export function describeCollectionConfig(config: CollectionConfig): Json {
  const params: Json = {
    vectors: config.vectors_shape === 'single' && !config.unnamed_vector_as_map ? config.vectors[unnamedVector] : config.vectors,
    shard_number: config.shard_number,
    replication_factor: config.replication_factor,
    write_consistency_factor: config.write_consistency_factor,
    on_disk_payload: config.on_disk_payload,
  };
  if (config.sharding_method !== undefined) params.sharding_method = config.sharding_method;
  if (config.sparse_vectors !== undefined) params.sparse_vectors = config.sparse_vectors;
  const described: Json = {
    params,
    hnsw_config: config.hnsw_config,
    optimizer_config: config.optimizer_config,
    wal_config: config.wal_config,
    quantization_config: config.quantization_config,
  };
  if (config.strict_mode_config !== undefined) described.strict_mode_config = config.strict_mode_config;
  if (config.metadata !== undefined) described.metadata = config.metadata;
  return described;
}

/** The HNSW parameters that apply to one vector: its own hnsw_config over the collection's. */
export function effectiveHnswConfig(config: CollectionConfig, vectorName: string): CollectionConfig['hnsw_config'] {
  const own = (config.vectors[vectorName]?.hnsw_config ?? {}) as Json;
  return { ...config.hnsw_config, ...own } as CollectionConfig['hnsw_config'];
}
