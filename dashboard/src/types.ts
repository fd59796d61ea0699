// The parts of the REST answers the dashboard reads (docs/api.md §3, §4.3).

export type PointId = number | string;

export interface DenseVectorParams {
  size: number;
  distance: string;
}

export interface CollectionInfo {
  status: 'green' | 'yellow' | 'red' | 'grey';
  optimizer_status: unknown;
  points_count: number;
  indexed_vectors_count: number;
  segments_count: number;
  config: {
    params: {
      vectors: DenseVectorParams | Record<string, DenseVectorParams>;
      sparse_vectors?: Record<string, unknown>;
      [key: string]: unknown;
    };
    hnsw_config?: Record<string, unknown>;
    optimizer_config?: Record<string, unknown>;
    [key: string]: unknown;
  };
  payload_schema: Record<string, { data_type: string; points?: number; params?: unknown }>;
}

export type VectorValue = number[] | { indices: number[]; values: number[] } | number[][];

export interface Record_ {
  id: PointId;
  payload?: Record<string, unknown> | null;
  vector?: VectorValue | Record<string, VectorValue> | null;
}

export interface ScoredPoint extends Record_ {
  score: number;
}

/** The dense vector names of a collection; "" is the unnamed vector. */
export function denseVectors(info: CollectionInfo): Array<{ name: string } & DenseVectorParams> {
  const vectors = info.config.params.vectors;
  if (typeof (vectors as DenseVectorParams).size === 'number') return [{ name: '', ...(vectors as DenseVectorParams) }];
  return Object.entries(vectors as Record<string, DenseVectorParams>).map(([name, params]) => ({ name, ...params }));
}

/** One named vector out of a record's `vector` field (an array for the unnamed vector). */
export function vectorOf(record: Record_, name: string): VectorValue | undefined {
  const vector = record.vector;
  if (vector === null || vector === undefined) return undefined;
  if (Array.isArray(vector)) return name === '' ? vector : undefined;
  return (vector as Record<string, VectorValue>)[name];
}

/** A point id typed in a box: digits are an integer id, anything else a UUID string. */
export function parsePointId(text: string): PointId {
  const trimmed = text.trim();
  return /^\d+$/.test(trimmed) && Number.isSafeInteger(Number(trimmed)) ? Number(trimmed) : trimmed;
}
