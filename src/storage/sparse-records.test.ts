import { describe, expect, it } from 'vitest';
import { FormatVersionError } from './codec.js';
import { decodeSparseRecord, encodeSparseRecord } from './sparse-records.js';

describe('sparse vector records', () => {
  it('sparse record — round-trips indices and float32 values, empty vectors included', () => {
    const vector = { indices: Uint32Array.of(1, 7, 4294967295), values: Float32Array.of(0.5, -2, 1e-3) };
    const decoded = decodeSparseRecord(encodeSparseRecord(vector));
    expect(decoded.indices).toEqual(vector.indices);
    expect(decoded.values).toEqual(vector.values);
    expect(decodeSparseRecord(encodeSparseRecord({ indices: new Uint32Array(0), values: new Float32Array(0) })).indices.length).toBe(0);
  });

  it('sparse record — an unknown version or a truncated body is refused, never misread', () => {
    const record = encodeSparseRecord({ indices: Uint32Array.of(1), values: Float32Array.of(1) });
    record[0] = 2;
    expect(() => decodeSparseRecord(record)).toThrow(FormatVersionError);
    const short = encodeSparseRecord({ indices: Uint32Array.of(1, 2), values: Float32Array.of(1, 2) }).subarray(0, 10);
    expect(() => decodeSparseRecord(short)).toThrow(/cannot hold 2 entries/);
  });
});
