// Turning a sparse vector as sent (`{"indices": [...], "values": [...]}`, or a BM25 Document
// `{"text", "model": "qdrant/bm25"}` the server embeds itself) into its checked, canonical
// form: indices ascending and distinct, u32; values finite 32-bit floats. Every problem is the
// registry's 400 naming the field (docs/api.md §3.6), so a batch is refused before any write.
import { errors } from '../errors.js';
import type { SparseVector } from '../native/sparse-index-contract.js';
import { textDocumentVector } from '../text/bm25.js';
import { describeJsonValue } from '../json/describe.js';
import { checkSparseNorm } from './vector-norm.js';

export type { SparseVector };

const float32Maximum = 3.4028234663852886e38;
const u32Maximum = 0xffff_ffff;

/**
 * An object as JSON gives one: not null, not an array, nor a typed array — the fast upsert
 * parser's dense vectors are Float64Arrays, and `'values' in` one is true
 * (TypedArray.prototype.values), so one would look like a sparse vector.
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !ArrayBuffer.isView(value);
}

function describe(value: unknown): string {
  if (typeof value === 'bigint') return value.toString();
  return describeJsonValue(value, 40);
}

/** True for `{"indices", "values"}` — the shape that says "sparse", checked or not. */
export function looksSparse(value: unknown): value is Record<string, unknown> {
  return isPlainObject(value) && ('indices' in value || 'values' in value);
}

/** True for a Document (`{"text", "model", ...}`): text the server turns into a vector. */
export function looksLikeDocument(value: unknown): value is Record<string, unknown> {
  return isPlainObject(value) && 'text' in value;
}

/** Sorts a vector's entries by index (the order the store and the kernel keep). */
function canonical(indices: number[], values: number[]): SparseVector {
  const order = indices.map((_, position) => position).sort((left, right) => indices[left]! - indices[right]!);
  return { indices: Uint32Array.from(order, (position) => indices[position]!), values: Float32Array.from(order, (position) => values[position]!) };
}

/** `{"indices", "values"}`, checked: equal lengths, u32 indices without repeats, finite float32 values. */
export function parseSparseVector(value: unknown, field: string): SparseVector {
  if (!isPlainObject(value)) throw errors.invalidField(field, `expected a sparse vector {"indices": [...], "values": [...]}, got ${describe(value)}`);
  for (const key of Object.keys(value)) {
    if (key !== 'indices' && key !== 'values') throw errors.invalidField(`${field}.${key}`, 'unknown field of a sparse vector (expected indices and values)');
  }
  const { indices, values } = value;
  if (!Array.isArray(indices)) throw errors.invalidField(`${field}.indices`, `expected an array of unsigned integers, got ${describe(indices)}`);
  if (!Array.isArray(values)) throw errors.invalidField(`${field}.values`, `expected an array of numbers, got ${describe(values)}`);
  if (indices.length !== values.length) {
    throw errors.invalidField(field, `indices and values must have the same length (got ${indices.length} indices and ${values.length} values)`);
  }
  const checkedIndices = new Array<number>(indices.length);
  const checkedValues = new Array<number>(values.length);
  const seen = new Set<number>();
  for (let position = 0; position < indices.length; position += 1) {
    let index = indices[position] as unknown;
    if (typeof index === 'bigint') index = index <= BigInt(u32Maximum) ? Number(index) : Infinity;
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index > u32Maximum) {
      throw errors.invalidField(`${field}.indices[${position}]`, `expected an unsigned 32-bit integer (0..${u32Maximum}), got ${describe(indices[position])}`);
    }
    if (seen.has(index)) throw errors.invalidField(`${field}.indices[${position}]`, `index ${index} appears more than once`);
    seen.add(index);
    checkedIndices[position] = index;
    let element = values[position] as unknown;
    if (typeof element === 'bigint') element = Number(element);
    if (typeof element !== 'number' || !Number.isFinite(element)) {
      throw errors.invalidField(`${field}.values[${position}]`, `expected a finite number, got ${describe(values[position])}`);
    }
    if (Math.abs(element) > float32Maximum) throw errors.invalidField(`${field}.values[${position}]`, `${element} is outside the 32-bit float range`);
    checkedValues[position] = element;
  }
  checkSparseNorm(checkedValues, field);
  return canonical(checkedIndices, checkedValues);
}

/**
 * A stored sparse vector as sent: a sparse vector, or a Document embedded here by BM25
 * (document side). Unknown models are a 400 listing the supported ones (src/text/bm25.ts).
 */
export function parseSparseInput(value: unknown, field: string, side: 'document' | 'query'): SparseVector {
  if (looksLikeDocument(value)) {
    const vector = textDocumentVector(value, side, field);
    return canonical(vector.indices, vector.values);
  }
  return parseSparseVector(value, field);
}
