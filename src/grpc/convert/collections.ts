// Collection messages <-> REST's collection bodies and CollectionInfo (docs/api.md §4).
import { fromJson, type JsonValue, type MessageInitShape } from '@bufbuild/protobuf';
import {
  CollectionStatus,
  Datatype,
  Distance,
  HnswConfigDiffSchema,
  Modifier,
  OptimizersConfigDiffSchema,
  PayloadSchemaType,
  StrictModeConfigSchema,
  WalConfigDiffSchema,
  type CollectionInfoSchema,
  type CreateCollection,
  type CreateVectorNameRequest,
  type OptimizersConfigDiff,
  type SparseVectorConfig,
  type UpdateCollection,
  type VectorParams,
  type VectorParamsDiff,
  type VectorsConfig,
  type VectorsConfigDiff,
  type VectorsConfigSchema,
  type SparseVectorConfigSchema,
} from '@qdrant/js-client-grpc';
import type { DescMessage } from '@bufbuild/protobuf';
import { invalidArgument } from '../status.js';
import { definedOnly } from './filter.js';
import { plainMessage } from './plain.js';
import { quantizationMessage, quantizationToJson } from './quantization.js';
import { mapToJson, jsonToMap } from './values.js';

type Json = Record<string, unknown>;

// ---- requests: messages -> REST bodies -------------------------------------------------------

function optimizersToJson(config: OptimizersConfigDiff | undefined): Json | undefined {
  const json = plainMessage(config);
  if (!json) return undefined;
  delete json.deprecated_max_optimization_threads;
  const threads = config?.maxOptimizationThreads?.variant;
  if (threads?.case === 'setting') json.max_optimization_threads = 'auto';
  return json;
}

function vectorParamsToJson(params: VectorParams): Json {
  return definedOnly({
    quantization_config: quantizationToJson(params.quantizationConfig),
    size: Number(params.size),
    // The enum's names are REST's distance names (Cosine, Euclid, Dot, Manhattan).
    distance: Distance[params.distance],
    hnsw_config: plainMessage(params.hnswConfig),
    on_disk: params.onDisk,
    datatype: params.datatype === undefined || params.datatype === Datatype.Default ? undefined : Datatype[params.datatype]?.toLowerCase(),
    multivector_config: params.multivectorConfig ? { comparator: 'max_sim' } : undefined,
  });
}

function vectorsConfigToJson(config: VectorsConfig | undefined): unknown {
  const one = config?.config;
  if (one?.case === 'params') return vectorParamsToJson(one.value);
  if (one?.case === 'paramsMap') {
    const named: Json = {};
    for (const [name, params] of Object.entries(one.value.map)) named[name] = vectorParamsToJson(params);
    return named;
  }
  return undefined;
}

function vectorParamsDiffToJson(diff: VectorParamsDiff): Json {
  return definedOnly({ hnsw_config: plainMessage(diff.hnswConfig), quantization_config: quantizationToJson(diff.quantizationConfig), on_disk: diff.onDisk });
}

function vectorsDiffToJson(config: VectorsConfigDiff | undefined): unknown {
  const one = config?.config;
  if (one?.case === 'params') return { '': vectorParamsDiffToJson(one.value) };
  if (one?.case === 'paramsMap') {
    const named: Json = {};
    for (const [name, diff] of Object.entries(one.value.map)) named[name] = vectorParamsDiffToJson(diff);
    return named;
  }
  return undefined;
}

function sparseToJson(config: SparseVectorConfig | undefined): Json | undefined {
  if (!config) return undefined;
  const named: Json = {};
  for (const [name, params] of Object.entries(config.map)) {
    named[name] = definedOnly({
      index: plainMessage(params.index),
      modifier: params.modifier === undefined ? undefined : params.modifier === Modifier.Idf ? 'idf' : 'none',
    });
  }
  return named;
}

/** CreateVectorName's config -> REST's VectorNameConfig (docs/api.md §4.7). */
export function vectorNameConfigToJson(request: CreateVectorNameRequest): Json {
  const one = request.vectorConfig;
  const datatype = (value: Datatype | undefined) => (value === undefined || value === Datatype.Default ? undefined : Datatype[value]?.toLowerCase());
  if (one.case === 'denseConfig') {
    return {
      dense: definedOnly({
        size: Number(one.value.size),
        distance: Distance[one.value.distance],
        datatype: datatype(one.value.datatype),
        multivector_config: one.value.multivectorConfig ? { comparator: 'max_sim' } : undefined,
      }),
    };
  }
  if (one.case === 'sparseConfig') {
    return { sparse: definedOnly({ modifier: one.value.modifier === undefined ? undefined : one.value.modifier === Modifier.Idf ? 'idf' : 'none', datatype: datatype(one.value.datatype) }) };
  }
  throw invalidArgument('vector_config', 'a dense_config or a sparse_config must be set');
}

export function createCollectionToJson(request: CreateCollection): Json {
  return definedOnly({
    vectors: vectorsConfigToJson(request.vectorsConfig),
    quantization_config: quantizationToJson(request.quantizationConfig),
    sparse_vectors: sparseToJson(request.sparseVectorsConfig),
    shard_number: request.shardNumber,
    replication_factor: request.replicationFactor,
    write_consistency_factor: request.writeConsistencyFactor,
    on_disk_payload: request.onDiskPayload,
    hnsw_config: plainMessage(request.hnswConfig),
    optimizers_config: optimizersToJson(request.optimizersConfig),
    wal_config: plainMessage(request.walConfig),
    strict_mode_config: plainMessage(request.strictModeConfig),
    metadata: Object.keys(request.metadata).length > 0 ? mapToJson(request.metadata, 'metadata') : undefined,
  });
}

export function updateCollectionToJson(request: UpdateCollection): Json {
  return definedOnly({
    vectors: vectorsDiffToJson(request.vectorsConfig),
    quantization_config: quantizationToJson(request.quantizationConfig),
    sparse_vectors: sparseToJson(request.sparseVectorsConfig),
    params: plainMessage(request.params),
    hnsw_config: plainMessage(request.hnswConfig),
    optimizers_config: optimizersToJson(request.optimizersConfig),
    strict_mode_config: plainMessage(request.strictModeConfig),
    metadata: Object.keys(request.metadata).length > 0 ? mapToJson(request.metadata, 'metadata') : undefined,
  });
}

// ---- answers: REST JSON -> messages -----------------------------------------------------------

/** REST JSON (bigints allowed) as protobuf JSON: int64 as decimal strings, as the JSON mapping allows. */
function protoJson(value: unknown): JsonValue {
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) return value.map(protoJson);
  if (typeof value === 'object' && value !== null) {
    const json: Record<string, JsonValue> = {};
    for (const [key, item] of Object.entries(value)) if (item !== undefined && item !== null) json[key] = protoJson(item);
    return json;
  }
  return value as JsonValue;
}

/** A REST config object read into a message; fields the message does not have are left out. */
function configMessage<Schema extends DescMessage>(schema: Schema, json: unknown) {
  if (json === undefined || json === null) return undefined;
  return fromJson(schema, protoJson(json), { ignoreUnknownFields: true });
}

function enumByName<Enum extends Record<string, string | number>>(enumeration: Enum, name: unknown, fallback: number): number {
  if (typeof name !== 'string') return fallback;
  for (const [key, value] of Object.entries(enumeration)) if (typeof value === 'number' && key.toLowerCase() === name.toLowerCase()) return value;
  return fallback;
}

function vectorParamsMessage(json: Json): MessageInitShape<typeof VectorsConfigSchema>['config'] extends infer _ ? object : never {
  return {
    size: BigInt(Number(json.size ?? 0)),
    distance: enumByName(Distance, json.distance, Distance.UnknownDistance),
    hnswConfig: configMessage(HnswConfigDiffSchema, json.hnsw_config),
    onDisk: typeof json.on_disk === 'boolean' ? json.on_disk : undefined,
    datatype: json.datatype === undefined || json.datatype === null ? undefined : enumByName(Datatype, json.datatype, Datatype.Default),
    quantizationConfig: quantizationMessage(json.quantization_config),
    // A multivector (docs/api.md §20): MaxSim is the proto's only comparator (its value 0).
    multivectorConfig: json.multivector_config ? { comparator: 0 } : undefined,
  };
}

function vectorsConfigMessage(json: unknown): MessageInitShape<typeof VectorsConfigSchema> | undefined {
  if (typeof json !== 'object' || json === null) return undefined;
  if ('size' in json) return { config: { case: 'params', value: vectorParamsMessage(json as Json) } };
  const map: Record<string, object> = {};
  for (const [name, params] of Object.entries(json as Record<string, Json>)) map[name] = vectorParamsMessage(params);
  return { config: { case: 'paramsMap', value: { map } } };
}

function sparseConfigMessage(json: unknown): MessageInitShape<typeof SparseVectorConfigSchema> | undefined {
  if (typeof json !== 'object' || json === null) return undefined;
  const map: Record<string, object> = {};
  for (const [name, params] of Object.entries(json as Record<string, Json>)) {
    const index = params.index as Json | undefined;
    map[name] = {
      index: index ? { fullScanThreshold: index.full_scan_threshold === undefined || index.full_scan_threshold === null ? undefined : BigInt(index.full_scan_threshold as number), onDisk: index.on_disk ?? undefined } : undefined,
      modifier: params.modifier === 'idf' ? Modifier.Idf : params.modifier === undefined ? undefined : Modifier.None,
    };
  }
  return { map };
}

const statusByName: Record<string, CollectionStatus> = {
  green: CollectionStatus.Green,
  yellow: CollectionStatus.Yellow,
  red: CollectionStatus.Red,
  grey: CollectionStatus.Grey,
};

function payloadSchemaMessage(json: unknown): Record<string, object> {
  const schema: Record<string, object> = {};
  if (typeof json !== 'object' || json === null) return schema;
  for (const [key, info] of Object.entries(json as Record<string, Json>)) {
    schema[key] = {
      dataType: enumByName(PayloadSchemaType, info.data_type, PayloadSchemaType.UnknownType),
      points: typeof info.points === 'number' || typeof info.points === 'bigint' ? BigInt(info.points) : undefined,
    };
  }
  return schema;
}

const count = (value: unknown) => (typeof value === 'number' || typeof value === 'bigint' ? BigInt(value) : undefined);

export function collectionInfoMessage(json: Json): MessageInitShape<typeof CollectionInfoSchema> {
  const config = (json.config ?? {}) as Json;
  const params = (config.params ?? {}) as Json;
  const optimizer = json.optimizer_status;
  return {
    status: statusByName[String(json.status)] ?? CollectionStatus.UnknownCollectionStatus,
    optimizerStatus: optimizer === 'ok' ? { ok: true, error: '' } : { ok: false, error: String((optimizer as { error?: unknown } | undefined)?.error ?? '') },
    segmentsCount: count(json.segments_count) ?? 0n,
    pointsCount: count(json.points_count),
    indexedVectorsCount: count(json.indexed_vectors_count),
    payloadSchema: payloadSchemaMessage(json.payload_schema),
    config: {
      params: {
        shardNumber: Number(params.shard_number ?? 1),
        onDiskPayload: Boolean(params.on_disk_payload),
        replicationFactor: params.replication_factor === undefined ? undefined : Number(params.replication_factor),
        writeConsistencyFactor: params.write_consistency_factor === undefined ? undefined : Number(params.write_consistency_factor),
        vectorsConfig: vectorsConfigMessage(params.vectors),
        sparseVectorsConfig: sparseConfigMessage(params.sparse_vectors),
      },
      hnswConfig: configMessage(HnswConfigDiffSchema, config.hnsw_config),
      optimizerConfig: configMessage(OptimizersConfigDiffSchema, withoutThreads(config.optimizer_config)),
      walConfig: configMessage(WalConfigDiffSchema, config.wal_config),
      strictModeConfig: configMessage(StrictModeConfigSchema, config.strict_mode_config),
      quantizationConfig: quantizationMessage(config.quantization_config),
      metadata: jsonToMap(config.metadata as Json | undefined),
    },
  };
}

/** max_optimization_threads is a message in the proto and a number or "auto" in REST: left out. */
function withoutThreads(json: unknown): unknown {
  if (typeof json !== 'object' || json === null) return json;
  const { max_optimization_threads: _threads, ...rest } = json as Json;
  return rest;
}
