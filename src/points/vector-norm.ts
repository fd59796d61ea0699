// Vectors at the float32 extremes (docs/api.md §2). The kernel sums squares and products in
// float32: a Cosine vector whose sum of squares overflows (elements above ~1.8e19) or underflows
// kept its raw values and scored 3e38, and large Dot, Euclid or Manhattan vectors overflowed to
// an Infinity score, printed as `null`. Norms are computed here in float64, before the kernel.
import type { Distance } from '../native/vector-index-contract.js';
import { errors } from '../errors.js';

/**
 * Largest norm a Dot, Euclid or Manhattan vector may have. With both norms at most 2^62 every
 * score the kernel sums stays far below the float32 maximum: |a·b| <= |a||b| = 2^124 and
 * |a - b|^2 <= (|a| + |b|)^2 = 2^126, against 3.4e38 ≈ 2^128.
 */
export const maxScoringNorm = 2 ** 62;

/** Float32 sums of squares between these bounds keep full precision and cannot overflow. */
const safeSquaresLow = 1e-30;
const safeSquaresHigh = 1e36;

/**
 * The vector as the kernel may take it for `distance`, or a 400 naming `field`. A Cosine vector
 * must have a non-zero norm; one whose squares float32 cannot sum is normalised here (in
 * float64), so the kernel's own normalisation sees a unit vector. Other distances are bounded
 * by maxScoringNorm. Ordinary vectors are returned untouched.
 */
export function checkVectorNorm(vector: Float32Array, field: string, distance: Distance): Float32Array {
  // The slow twin of parseDenseVector's one pass (src/points/vectors.test.ts compares them): the
  // server's vectors add their squares up while they are converted (checkVectorNormOfSquares).
  let sumOfSquares = 0;
  // Indexed, not `for…of`: the typed array's iterator cost ~7 µs a 768-d vector against ~1.7 µs
  // (bench/README.md, "Query vectors read by the kernel").
  for (let position = 0; position < vector.length; position += 1) sumOfSquares += vector[position]! * vector[position]!;
  return checkVectorNormOfSquares(vector, sumOfSquares, field, distance);
}

/**
 * checkVectorNorm for a vector whose sum of squares the caller added up while it wrote the
 * values (parseDenseVector), in the same order and float64: one pass over a 768-d query less.
 */
export function checkVectorNormOfSquares(vector: Float32Array, sumOfSquares: number, field: string, distance: Distance): Float32Array {
  const norm = Math.sqrt(sumOfSquares);
  if (distance === 'Cosine') {
    if (norm === 0 || !Number.isFinite(norm)) throw errors.invalidField(field, `a Cosine vector needs a finite, non-zero norm (its norm is ${norm})`);
    if (sumOfSquares >= safeSquaresLow && sumOfSquares <= safeSquaresHigh) return vector;
    return Float32Array.from(vector, (element) => element / norm);
  }
  if (!(norm <= maxScoringNorm)) {
    throw errors.invalidField(field, `the vector's norm ${norm.toPrecision(3)} is above ${maxScoringNorm.toPrecision(3)}: its ${distance} scores would overflow 32-bit floats`);
  }
  return vector;
}

/** Sparse vectors score by dot product: the same bound on the norm of their values. */
export function checkSparseNorm(values: ArrayLike<number>, field: string): void {
  let sumOfSquares = 0;
  for (let position = 0; position < values.length; position += 1) sumOfSquares += values[position]! * values[position]!;
  const norm = Math.sqrt(sumOfSquares);
  if (!(norm <= maxScoringNorm)) throw errors.invalidField(`${field}.values`, `the norm of the values ${norm.toPrecision(3)} is above ${maxScoringNorm.toPrecision(3)}: dot-product scores would overflow 32-bit floats`);
}
