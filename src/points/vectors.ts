// Turning a point's `vector` field into checked Float32Arrays, one per vector name. Every check
// (shape, unknown names, dimension, NaN/Infinity/non-numbers) throws the registry's 400 naming
// the field, so a batch is refused before any of it is written.
import { errors } from '../errors.js';
import { isPlainObject, looksLikeDocument, looksSparse, parseSparseInput, type SparseVector } from './sparse-vector.js';
import { describeJsonValue } from '../json/describe.js';
import type { Distance } from '../native/vector-index-contract.js';
import { checkVectorNormOfSquares } from './vector-norm.js';
import { checkDatatypeValue } from './vector-datatype.js';
import type { VectorDatatype } from '../native/vector-index-contract.js';
import { native } from '../native/index.js';

/** The vectors a collection declares: dimension by name ("" is the unnamed vector). */
export interface VectorLayout {
  shape: 'single' | 'named';
  dimensions: ReadonlyMap<string, number>;
  /** Names of sparse vectors (src/points/sparse-vector.ts). */
  sparseNames: ReadonlySet<string>;
  /** Distance by dense vector name: when given, norms are checked (src/points/vector-norm.ts). */
  distances?: ReadonlyMap<string, Distance>;
  /** Datatype by dense vector name, when not float32: values are checked to fit (vector-datatype.ts). */
  datatypes?: ReadonlyMap<string, VectorDatatype>;
  /** Multivector names (docs/api.md §20) and the most rows a point may give each. */
  multivectors?: ReadonlyMap<string, number>;
}

const float32Maximum = 3.4028234663852886e38;

function describe(value: unknown): string {
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') return String(value);
  return describeJsonValue(value, 40);
}

/**
 * One dense vector: an array of finite numbers of the expected length; with `distance`, also a
 * norm its scores can use (checkVectorNormOfSquares), which may return the vector normalised.
 */
export function parseDenseVector(value: unknown, field: string, dimension: number, distance?: Distance, datatype?: VectorDatatype): Float32Array {
  // A Float64Array is a list of numbers as the fast upsert parser reads it (json/upsert-body-parser.ts).
  if (!Array.isArray(value) && !(value instanceof Float64Array)) throw errors.invalidField(field, `expected an array of numbers, got ${describe(value)}`);
  if (value.length !== dimension) throw errors.dimensionMismatch(field, dimension, value.length);
  const vector = new Float32Array(dimension);
  // Added up here, from the float32 values as stored, so the norm's check needs no pass of its own.
  let sumOfSquares = 0;
  for (let position = 0; position < dimension; position += 1) {
    const element = value[position] as unknown;
    // The common case in one test (NaN fails both comparisons); anything else, checked below.
    if (datatype === undefined && typeof element === 'number' && element >= -float32Maximum && element <= float32Maximum) {
      vector[position] = element;
    } else {
      vector[position] = checkedElement(element, `${field}[${position}]`, datatype);
    }
    const stored = vector[position]!;
    sumOfSquares += stored * stored;
  }
  return distance === undefined ? vector : checkVectorNormOfSquares(vector, sumOfSquares, field, distance);
}

/** One element of a dense vector as a number, or the 400 naming `field` (its place). */
function checkedElement(value: unknown, field: string, datatype: VectorDatatype | undefined): number {
  const element = typeof value === 'bigint' ? Number(value) : value;
  if (typeof element !== 'number' || !Number.isFinite(element)) throw errors.invalidField(field, `expected a finite number, got ${describe(element)}`);
  if (Math.abs(element) > float32Maximum) throw errors.invalidField(field, `${element} is outside the 32-bit float range`);
  if (datatype !== undefined) checkDatatypeValue(element, field, datatype);
  return element;
}

/**
 * One multivector: an array of 1..maxRows dense rows of `dimension` numbers, each checked like a
 * dense vector, returned back to back (row-major). A plain array of numbers is a one-row matrix.
 */
export function parseMultiVector(value: unknown, field: string, dimension: number, maxRows: number, distance?: Distance): Float32Array {
  // A Float64Array is one flat row as the fast upsert parser reads it: a plain array of numbers.
  const flat = value instanceof Float64Array;
  if (!Array.isArray(value) && !flat) throw errors.invalidField(field, `expected an array of vectors (rows of ${dimension} numbers), got ${describe(value)}`);
  if (value.length === 0) throw errors.invalidField(field, 'a multivector needs at least one row');
  if (flat || !Array.isArray(value[0])) return parseDenseVector(value, field, dimension, distance);
  if (value.length > maxRows) throw errors.invalidField(field, `a multivector may have at most ${maxRows} rows, got ${value.length}`);
  const matrix = new Float32Array(value.length * dimension);
  value.forEach((row, position) => matrix.set(parseDenseVector(row, `${field}[${position}]`, dimension, distance), position * dimension));
  return matrix;
}

function knownNames(layout: VectorLayout): string {
  const names = [...layout.dimensions.keys(), ...layout.sparseNames].map((name) => (name === '' ? '"" (unnamed)' : name));
  return names.length > 0 ? names.join(', ') : 'none';
}

/**
 * A point's vectors by name. A single-vector collection takes an array (or `{"": [...]}`); a
 * named one takes an object and a point may leave names out. Sparse vectors (and Documents
 * given for them) go into `sparse` when the caller passes one; without it they are a 400.
 */
export function parsePointVectors(value: unknown, field: string, layout: VectorLayout, sparse?: Map<string, SparseVector>): Map<string, Float32Array> {
  const vectors = new Map<string, Float32Array>();
  if (Array.isArray(value) || value instanceof Float64Array) {
    // A plain list is the vector named "" (Qdrant's default name), in any collection that has one.
    const dimension = layout.dimensions.get('');
    if (dimension === undefined) {
      throw errors.invalidField(field, `this collection has named vectors (${knownNames(layout)}): give {"name": [numbers]}`);
    }
    const maxRows = layout.multivectors?.get('');
    vectors.set(
      '',
      maxRows === undefined
        ? parseDenseVector(value, field, dimension, layout.distances?.get(''), layout.datatypes?.get(''))
        : parseMultiVector(value, field, dimension, maxRows, layout.distances?.get('')),
    );
    return vectors;
  }
  if (!isPlainObject(value)) throw errors.invalidField(field, `expected an array of numbers or an object of named vectors, got ${describe(value)}`);
  for (const [name, vector] of Object.entries(value)) {
    const where = `${field}.${name}`;
    if (layout.sparseNames.has(name)) {
      if (!sparse) throw errors.invalidField(where, 'sparse vectors are not accepted here');
      if (Array.isArray(vector) || vector instanceof Float64Array) {
        throw errors.invalidField(where, `${JSON.stringify(name)} is a sparse vector: give {"indices": [...], "values": [...]}`);
      }
      sparse.set(name, parseSparseInput(vector, where, 'document'));
      continue;
    }
    const dimension = layout.dimensions.get(name);
    if (dimension === undefined) {
      throw errors.invalidField(where, `Not existing vector name: ${JSON.stringify(name)} (this collection has ${knownNames(layout)})`);
    }
    const maxRows = layout.multivectors?.get(name);
    if (maxRows !== undefined && !looksSparse(vector) && !looksLikeDocument(vector)) {
      vectors.set(name, parseMultiVector(vector, where, dimension, maxRows, layout.distances?.get(name)));
      continue;
    }
    if (looksSparse(vector)) throw errors.invalidField(where, `${JSON.stringify(name)} is a dense vector: give an array of ${dimension} numbers, not a sparse vector`);
    if (looksLikeDocument(vector)) throw errors.invalidField(where, `${JSON.stringify(name)} is a dense vector: Documents are embedded only for sparse vectors (model qdrant/bm25)`);
    vectors.set(name, parseDenseVector(vector, where, dimension, layout.distances?.get(name), layout.datatypes?.get(name)));
  }
  return vectors;
}

/**
 * The shortest decimal that reads back as the same 32-bit float, so a stored 0.1 is returned as
 * 0.1 and not as 0.10000000149011612 (its exact double value).
 */
export function float32ToNumber(value: number): number {
  if (!Number.isFinite(value)) return value;
  // Integers below 2^24 print exactly and briefly already; larger floats need the search too.
  if (Number.isInteger(value) && Math.abs(value) < 16_777_216) return value;
  for (let precision = 6; precision < 9; precision += 1) {
    const candidate = Number(value.toPrecision(precision));
    if (Math.fround(candidate) === value) return candidate;
  }
  return Number(value.toPrecision(9));
}

/** Rows this long or longer are converted by the kernel: its call costs about what two values cost here. */
export const kernelRowLength = 8;
/** The kernel's answers for one row, kept between calls up to this many values (512 KiB); longer rows (long sparse vectors) get their own. */
const kernelScratchLimit = 65_536;
let kernelScratch = new Float64Array(1024);

/**
 * `length` values of `source` from `offset` as plain numbers (float32-shortest). A vector's row
 * goes through the kernel's `shortestDecimals` (crates/quiver-core/src/shortest_decimal.rs), the
 * same numbers as `float32ToNumber` (its slow twin here, compared in vectors.test.ts) at a
 * fraction of the cost: `toPrecision` made ten 768-d vectors cost ~4 ms of this thread.
 */
export function float32RowToNumbers(source: Float32Array, offset: number, length: number): number[] {
  const row = new Array<number>(length);
  if (length < kernelRowLength) {
    for (let position = 0; position < length; position += 1) row[position] = float32ToNumber(source[offset + position]!);
    return row;
  }
  let scratch = kernelScratch;
  if (scratch.length < length) {
    scratch = new Float64Array(length);
    if (length <= kernelScratchLimit) kernelScratch = scratch;
  }
  native.shortestDecimals(source, offset, length, scratch);
  for (let position = 0; position < length; position += 1) row[position] = scratch[position]!;
  return row;
}

/** A sparse vector as the API returns it: `{"indices": [...], "values": [...]}`, indices ascending. */
export function sparseVectorToJson(vector: SparseVector): { indices: number[]; values: number[] } {
  return { indices: Array.from(vector.indices), values: float32RowToNumbers(vector.values, 0, vector.values.length) };
}
