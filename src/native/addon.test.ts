// Rules for addon.ts, the exports of crates/quiver-node/src/lib.rs: dot and instructionSet.
import { describe, expect, it } from 'vitest';
import { native } from './addon.js';
import { nativeErrorCode } from './errors.js';

function scalarDot(left: Float32Array, right: Float32Array): number {
  let sum = 0;
  for (let index = 0; index < left.length; index += 1) sum += left[index]! * right[index]!;
  return sum;
}

describe('native addon', () => {
  it('dot matches a scalar reference on awkward lengths', () => {
    for (const length of [1, 3, 7, 15, 16, 17, 31, 100, 1536]) {
      const left = Float32Array.from({ length }, (_, index) => Math.sin(index + 1));
      const right = Float32Array.from({ length }, (_, index) => Math.cos(index * 0.5));
      const expected = scalarDot(left, right);
      expect(native.dot(left, right)).toBeCloseTo(expected, 3);
    }
  });

  it('dot reads a subarray view without copying it first', () => {
    const buffer = new Float32Array([9, 1, 2, 3, 9]);
    expect(native.dot(buffer.subarray(1, 4), new Float32Array([1, 1, 1]))).toBe(6);
  });

  it('refuses vectors of different lengths with a stable error code', () => {
    let caught: unknown;
    try {
      native.dot(new Float32Array(3), new Float32Array(4));
    } catch (error) {
      caught = error;
    }
    expect(nativeErrorCode(caught)).toBe('DIMENSION_MISMATCH');
  });

  it('shortestDecimals writes one number per value from the offset, and refuses a range that does not fit', () => {
    const into = new Float64Array(4).fill(-1);
    native.shortestDecimals(new Float32Array([9, 0.1, 2.5, -0.2]), 1, 3, into);
    expect([...into]).toEqual([0.1, 2.5, -0.2, -1]);
    for (const [offset, length, places] of [[2, 3, 4], [0, 5, 8], [0, 4, 3]] as const) {
      let caught: unknown;
      try {
        native.shortestDecimals(new Float32Array(4), offset, length, new Float64Array(places));
      } catch (error) {
        caught = error;
      }
      expect(nativeErrorCode(caught)).toBe('INVALID_ARGUMENT');
    }
  });

  it('scoredPointsJson writes the first count entries as a search list, null for values it does not write, and refuses a count beyond an array', () => {
    const [ids, versions, scores] = [new Float64Array([3, 2 ** 53 - 1, 8]), new Float64Array([0, 7, 1]), new Float64Array([0.5, -1e-7, 2])];
    expect(native.scoredPointsJson(ids, versions, scores, 2)).toBe('[{"id":3,"version":0,"score":0.5},{"id":9007199254740991,"version":7,"score":-1e-7}]');
    expect(native.scoredPointsJson(ids, versions, scores, 0)).toBe('[]');
    expect(native.scoredPointsJson(new Float64Array([1.5]), new Float64Array([0]), new Float64Array([1]), 1)).toBeNull();
    expect(native.scoredPointsJson(new Float64Array([1]), new Float64Array([0]), new Float64Array([Number.NaN]), 1)).toBeNull();
    let caught: unknown;
    try {
      native.scoredPointsJson(ids, versions, new Float64Array(2), 3);
    } catch (error) {
      caught = error;
    }
    expect(nativeErrorCode(caught)).toBe('INVALID_ARGUMENT');
  });

  it('jsonNumberRow writes the values from the offset as a JSON array, and refuses a range that does not fit', () => {
    expect(native.jsonNumberRow(new Float32Array([9, 0.1, -2.5, 1e-7, 3e21]), 1, 4)).toBe('[0.1,-2.5,1e-7,3e+21]');
    expect(native.jsonNumberRow(new Float32Array(2), 2, 0)).toBe('[]');
    for (const [offset, length] of [[2, 3], [5, 1], [0, 5]] as const) {
      let caught: unknown;
      try {
        native.jsonNumberRow(new Float32Array(4), offset, length);
      } catch (error) {
        caught = error;
      }
      expect(nativeErrorCode(caught)).toBe('INVALID_ARGUMENT');
    }
  });

  it('readJsonNumbers reads the rest of an array into place from the offset, and answers -1 for anything else', () => {
    const into = new Float64Array(5).fill(7);
    expect(native.readJsonNumbers('0.12345678901234567, -1e-3 ,2]', into, 1)).toBe(3);
    expect([...into]).toEqual([7, 0.12345678901234567, -0.001, 2, 7]);
    expect(native.readJsonNumbers('1,2]', into, 4)).toBe(-1); // one place left
    expect(native.readJsonNumbers('1]', into, 9)).toBe(-1); // past the end
    expect(native.readJsonNumbers('1] ', into, 0)).toBe(-1); // the bracket must end the text
    expect(native.readJsonNumbers('1,2', into, 0)).toBe(-1);
  });

  it('names the instruction set it picked', () => {
    expect(['scalar', 'avx2+fma', 'avx512f', 'neon']).toContain(native.instructionSet());
  });
});
