// Whether a dense vector's values fit its collection's `datatype` (docs/api.md §21). Checked
// before anything is written, so a refused batch changes nothing; the kernel checks again
// (crates/quiver-core/src/distance/row.rs) and would refuse the same values.
import type { VectorDatatype } from '../native/vector-index-contract.js';
import { errors } from '../errors.js';

/** The largest finite float16: larger magnitudes are refused rather than stored as Infinity. */
export const float16Maximum = 65504;

/** Throws the registry's 400 naming `field` (e.g. `points[3].vector[5]`) when `value` does not fit. */
export function checkDatatypeValue(value: number, field: string, datatype: VectorDatatype): void {
  if (datatype === 'uint8') {
    if (!Number.isInteger(value) || value < 0 || value > 255) {
      throw errors.invalidField(field, `${value} does not fit a uint8 vector: give integers from 0 to 255`);
    }
  } else if (datatype === 'float16' && Math.abs(value) > float16Maximum) {
    throw errors.invalidField(field, `${value} is outside the float16 range (-65504 to 65504)`);
  }
}

/**
 * `value` rounded to the nearest float16 (ties to even), as the kernel stores it: 11
 * significant bits in the normal range, a fixed step of 2^-24 below it.
 */
export function float16Round(value: number): number {
  if (value === 0 || !Number.isFinite(value)) return value;
  const exponent = Math.max(Math.floor(Math.log2(Math.abs(value))), -14);
  const step = 2 ** (exponent - 10);
  const scaled = value / step;
  let rounded = Math.round(scaled);
  // Math.round sends halves up; a tie goes to the even neighbour instead.
  if (rounded - scaled === 0.5 && rounded % 2 !== 0) rounded -= 1;
  return rounded * step;
}

/** A vector as a store of `datatype` holds it (float16: rounded; others unchanged). */
export function inStoredForm(vector: Float32Array, datatype: VectorDatatype): Float32Array {
  return datatype === 'float16' ? vector.map(float16Round) : vector;
}
