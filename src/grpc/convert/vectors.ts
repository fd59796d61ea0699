// Vectors in and out: the gRPC Vector/Vectors/VectorInput messages <-> REST's vector JSON (a dense
// array, {indices, values} for sparse, an array of arrays for multi-vectors, or an object of
// named vectors).
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { Vector, VectorInput, Vectors, VectorsOutputSchema, VectorOutputSchema } from '@qdrant/js-client-grpc';
import { Float32Row } from '../../points/float32-row.js';
import { invalidArgument } from '../status.js';
import { idToJson } from './ids.js';

/** The explicit vector kinds both Vector and VectorInput carry, as REST's JSON. */
type ExplicitVector = Vector['vector'] | VectorInput['variant'];

/** The JSON of an explicit vector, or undefined when the oneof holds none of the shared kinds. */
function explicitVectorToJson(one: ExplicitVector, field: string): unknown {
  switch (one.case) {
    case 'dense':
      return one.value.data;
    case 'sparse':
      return { indices: one.value.indices, values: one.value.values };
    case 'multiDense':
      return one.value.vectors.map((dense) => dense.data);
    case 'document':
    case 'image':
    case 'object':
      throw invalidArgument(field, 'inference inputs (document, image, object) are not supported: send the vector itself');
    default:
      return undefined;
  }
}

/** One input vector (PointStruct, UpdateVectors). */
export function vectorToJson(vector: Vector, field: string): unknown {
  const explicit = explicitVectorToJson(vector.vector, field);
  if (explicit !== undefined) return explicit;
  // The deprecated flat form older clients still send: data, with indices for sparse and
  // vectors_count for multi-vectors.
  if (vector.indices) return { indices: vector.indices.data, values: vector.data };
  if (vector.vectorsCount !== undefined && vector.vectorsCount > 0) {
    const count = vector.vectorsCount;
    if (vector.data.length % count !== 0) throw invalidArgument(field, `${vector.data.length} numbers cannot be split into ${count} vectors`);
    const size = vector.data.length / count;
    return Array.from({ length: count }, (_, index) => vector.data.slice(index * size, (index + 1) * size));
  }
  return vector.data;
}

export function vectorsToJson(vectors: Vectors | undefined, field: string): unknown {
  const one = vectors?.vectorsOptions;
  if (one?.case === 'vector') return vectorToJson(one.value, field);
  if (one?.case === 'vectors') {
    const named: Record<string, unknown> = {};
    for (const [name, vector] of Object.entries(one.value.vectors)) named[name] = vectorToJson(vector, `${field}.${name}`);
    return named;
  }
  throw invalidArgument(field, 'vectors must be set (one vector or named vectors)');
}

/** A query's vector input: a point id, a dense, sparse or multi vector. */
export function vectorInputToJson(input: VectorInput | undefined, field: string): unknown {
  const one = input?.variant;
  if (one?.case === 'id') return idToJson(one.value, field);
  const explicit = one === undefined ? undefined : explicitVectorToJson(one, field);
  if (explicit === undefined) throw invalidArgument(field, 'a vector input must be set');
  return explicit;
}

type VectorOutputInit = MessageInitShape<typeof VectorOutputSchema>;

function isSparse(json: unknown): json is { indices: number[]; values: number[] } {
  return typeof json === 'object' && json !== null && !Array.isArray(json) && Array.isArray((json as { indices?: unknown }).indices);
}

/** A row as the message's float field takes it: the door keeps records' rows as float32 (rest-door.ts). */
function floatData(row: unknown): number[] {
  return row instanceof Float32Row ? Array.from(row.float32Values()) : ((row ?? []) as number[]);
}

function vectorOutput(json: unknown): VectorOutputInit {
  if (isSparse(json)) return { vector: { case: 'sparse', value: { indices: json.indices, values: json.values } } };
  if (Array.isArray(json) && (Array.isArray(json[0]) || json[0] instanceof Float32Row)) {
    return { vector: { case: 'multiDense', value: { vectors: (json as unknown[]).map((row) => ({ data: floatData(row) })) } } };
  }
  return { vector: { case: 'dense', value: { data: floatData(json) } } };
}

/** REST's `vector` of a point (absent, one unnamed vector, or named vectors) as VectorsOutput. */
export function vectorsOutput(json: unknown): MessageInitShape<typeof VectorsOutputSchema> | undefined {
  if (json === undefined || json === null) return undefined;
  if (Array.isArray(json) || json instanceof Float32Row) return { vectorsOptions: { case: 'vector', value: vectorOutput(json) } };
  const vectors: Record<string, VectorOutputInit> = {};
  for (const [name, vector] of Object.entries(json as Record<string, unknown>)) vectors[name] = vectorOutput(vector);
  return { vectorsOptions: { case: 'vectors', value: { vectors } } };
}
