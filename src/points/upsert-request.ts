// Turns an upsert body (list form `points` or column form `batch`) into checked points. Every
// check runs here, before the collection's write queue, so a refused request writes nothing.
import { errors } from '../errors.js';
import { serializeJson } from '../json/serialize.js';
import { parsePointId, pointIdKey, type PointId } from './ids.js';
import type { Payload } from './selectors.js';
import type { SparseVector } from './sparse-vector.js';
import { parsePointVectors, type VectorLayout } from './vectors.js';

export interface CheckedPoint {
  id: PointId;
  key: string;
  vectors: Map<string, Float32Array>;
  /** Sparse vectors by name (src/points/sparse-vector.ts). */
  sparse: Map<string, SparseVector>;
  payload: Payload;
  payloadJson: string;
}

export interface UpsertBody {
  points?: { id: unknown; vector: unknown; payload?: Record<string, unknown> | null }[];
  batch?: { ids: unknown[]; vectors: unknown; payloads?: (Record<string, unknown> | null)[] | null };
}

export interface UpsertLimits {
  maxPoints: number;
  maxPayloadBytes: number;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkPayload(payload: unknown, field: string, limits: UpsertLimits): { payload: Payload; payloadJson: string } {
  if (payload === undefined || payload === null) return { payload: {}, payloadJson: '{}' };
  if (!isPlainObject(payload)) throw errors.invalidField(field, 'expected a JSON object');
  const payloadJson = serializeJson(payload);
  if (Buffer.byteLength(payloadJson, 'utf8') > limits.maxPayloadBytes) {
    throw errors.invalidField(field, `payload is larger than the limit of ${limits.maxPayloadBytes} bytes`);
  }
  return { payload, payloadJson };
}

function checkPoint(id: unknown, vector: unknown, payload: unknown, field: string, layout: VectorLayout, limits: UpsertLimits): CheckedPoint {
  let parsedId: PointId;
  try {
    parsedId = parsePointId(id);
  } catch (error) {
    throw errors.invalidInput(`${field}.id: ${(error as Error).message}`);
  }
  const sparse = new Map<string, SparseVector>();
  const vectors = parsePointVectors(vector, `${field}.vector`, layout, sparse);
  return { id: parsedId, key: pointIdKey(parsedId), vectors, sparse, ...checkPayload(payload, `${field}.payload`, limits) };
}

/** The column form as rows: `vectors` is an array of vectors, or an object of arrays per name. */
function batchRows(batch: NonNullable<UpsertBody['batch']>): { vector: unknown; field: string }[] {
  const count = batch.ids.length;
  if (Array.isArray(batch.vectors)) {
    if (batch.vectors.length !== count) {
      throw errors.invalidField('batch.vectors', `expected ${count} vectors (one per id), got ${batch.vectors.length}`);
    }
    return batch.vectors.map((vector, position) => ({ vector, field: `batch.vectors[${position}]` }));
  }
  if (!isPlainObject(batch.vectors)) throw errors.invalidField('batch.vectors', 'expected an array of vectors or an object of named vector arrays');
  const rows: Record<string, unknown>[] = Array.from({ length: count }, () => ({}));
  for (const [name, column] of Object.entries(batch.vectors)) {
    if (!Array.isArray(column)) throw errors.invalidField(`batch.vectors.${name}`, 'expected an array of vectors');
    if (column.length !== count) throw errors.invalidField(`batch.vectors.${name}`, `expected ${count} vectors (one per id), got ${column.length}`);
    column.forEach((vector, position) => {
      rows[position]![name] = vector;
    });
  }
  return rows.map((vector, position) => ({ vector, field: `batch.vectors[${position}]` }));
}

/** Checked points of an upsert body; 400 naming the field for the first problem found. */
export function checkUpsertBody(body: UpsertBody, layout: VectorLayout, limits: UpsertLimits): CheckedPoint[] {
  const hasPoints = body.points !== undefined && body.points !== null;
  const hasBatch = body.batch !== undefined && body.batch !== null;
  if (hasPoints === hasBatch) throw errors.invalidInput('Validation error in body: give either "points" or "batch"');
  if (hasPoints) {
    const points = body.points!;
    if (points.length > limits.maxPoints) throw errors.invalidField('points', `at most ${limits.maxPoints} points per request (got ${points.length})`);
    return points.map((point, position) => checkPoint(point.id, point.vector, point.payload, `points[${position}]`, layout, limits));
  }
  const batch = body.batch!;
  const count = batch.ids.length;
  if (count > limits.maxPoints) throw errors.invalidField('batch.ids', `at most ${limits.maxPoints} points per request (got ${count})`);
  const payloads = batch.payloads ?? undefined;
  if (payloads !== undefined && payloads.length !== count) {
    throw errors.invalidField('batch.payloads', `expected ${count} payloads (one per id), got ${payloads.length}`);
  }
  const rows = batchRows(batch);
  return batch.ids.map((id, position) => {
    const row = rows[position]!;
    let parsedId: PointId;
    try {
      parsedId = parsePointId(id);
    } catch (error) {
      throw errors.invalidInput(`batch.ids[${position}]: ${(error as Error).message}`);
    }
    const sparse = new Map<string, SparseVector>();
    const vectors = parsePointVectors(row.vector, row.field, layout, sparse);
    return { id: parsedId, key: pointIdKey(parsedId), vectors, sparse, ...checkPayload(payloads?.[position], `batch.payloads[${position}]`, limits) };
  });
}
