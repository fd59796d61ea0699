import { describe, expect, it } from 'vitest';
import { mixedFloat32Samples } from './float32-samples.js';
import { checkVectorNorm } from './vector-norm.js';
import { float32RowToNumbers, float32ToNumber, parseDenseVector, parsePointVectors, type VectorLayout } from './vectors.js';

const layout: VectorLayout = { shape: 'named', dimensions: new Map([['a', 2], ['b', 3]]), sparseNames: new Set(['s']) };

describe('vectors', () => {
  it('float32ToNumber — the shortest decimal that reads back as the same float (slow twin: Math.fround)', () => {
    const samples = new Float32Array([0.1, 0.2, 1 / 3, 123456.789, -1e-7, 3.4028234663852886e38, 1.17549435e-38, 42, 0.6, 0.8]);
    for (const value of samples) {
      const shortest = float32ToNumber(value);
      expect(Math.fround(shortest)).toBe(value);
      expect(String(shortest).replace(/^-|e.*$|\./g, '').replace(/^0+/, '').length).toBeLessThanOrEqual(9);
    }
    expect(float32ToNumber(Math.fround(0.1))).toBe(0.1);
  });

  it('float32RowToNumbers — a row read by the kernel prints every value as float32ToNumber (its slow twin) does, ties and subnormals included', () => {
    const count = 120_000;
    const values = mixedFloat32Samples(count);
    const bits = new Uint32Array(values.buffer);
    const offset = 3;
    const row = float32RowToNumbers(values, offset, count - offset);
    let compared = 0;
    const differing: string[] = [];
    for (let position = offset; position < count; position += 1) {
      const value = values[position]!;
      if (!Number.isFinite(value)) continue;
      if (!Object.is(row[position - offset], float32ToNumber(value))) differing.push(`${value} (${bits[position]!.toString(16)}): ${row[position - offset]}`);
      compared += 1;
    }
    expect(differing).toEqual([]);
    expect(compared).toBeGreaterThan(110_000);
    expect(float32RowToNumbers(values, 0, 8).slice(0, 3)).toEqual([2258173.3, -2258173.3, 0.1]);
    expect(float32RowToNumbers(new Float32Array([0.1, 0.2]), 0, 2)).toEqual([0.1, 0.2]);
  });

  it('named vectors — any subset of the declared names; unknown names are refused, sparse ones only where the caller takes them', () => {
    const parsed = parsePointVectors({ b: [1, 2, 3] }, 'vector', layout);
    expect([...parsed.keys()]).toEqual(['b']);
    expect(parsed.get('b')).toEqual(new Float32Array([1, 2, 3]));
    expect(() => parsePointVectors({ c: [1] }, 'vector', layout)).toThrow('vector.c: Not existing vector name: "c"');
    expect(() => parsePointVectors({ s: { indices: [1], values: [1] } }, 'vector', layout)).toThrow('vector.s: sparse vectors are not accepted here');
    expect(() => parsePointVectors([1, 2], 'vector', layout)).toThrow('named vectors');
  });

  it('multivectors — one flat row reads the same from the fast upsert parser\'s Float64Array as from a plain array', () => {
    const single: VectorLayout = { shape: 'single', dimensions: new Map([['', 2]]), sparseNames: new Set(), multivectors: new Map([['', 4]]) };
    const named: VectorLayout = { shape: 'named', dimensions: new Map([['m', 2]]), sparseNames: new Set(), multivectors: new Map([['m', 4]]) };
    expect(parsePointVectors(new Float64Array([0.5, 0.25]), 'v', single)).toEqual(parsePointVectors([0.5, 0.25], 'v', single));
    expect(parsePointVectors({ m: new Float64Array([0.5, 0.25]) }, 'v', named)).toEqual(parsePointVectors({ m: [0.5, 0.25] }, 'v', named));
    expect(parsePointVectors({ m: [0.5, 0.25] }, 'v', named).get('m')).toEqual(new Float32Array([0.5, 0.25]));
    expect(() => parsePointVectors(new Float64Array([0.5]), 'v', single)).toThrow('Vector dimension error');
  });

  it('dense vectors — bigint literals are numbers; non-finite values are refused', () => {
    const single: VectorLayout = { shape: 'single', dimensions: new Map([['', 2]]), sparseNames: new Set() };
    expect(parsePointVectors([12345678901234567890n, 1], 'v', single).get('')![0]).toBe(Math.fround(12345678901234567890));
    expect(() => parsePointVectors([Number.NaN, 1], 'v', single)).toThrow('v[0]: expected a finite number');
    expect(() => parsePointVectors([1, Number.POSITIVE_INFINITY], 'v', single)).toThrow('v[1]: expected a finite number');
  });

  it('dense vectors — the norm added up while converting decides as checkVectorNorm of the converted vector (its slow twin)', () => {
    const outcome = (read: () => Float32Array) => {
      try {
        return { vector: [...read()] };
      } catch (error) {
        return { error: (error as Error).message };
      }
    };
    let seed = 5;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    // Ordinary values, and magnitudes whose float32 squares overflow or underflow, zeros included.
    const scales = [1, 1e-3, 1e19, 1e-19, 1e30, 1e-30, 3e38, 0];
    for (let trial = 0; trial < 400; trial += 1) {
      const scale = scales[trial % scales.length]!;
      const values = Array.from({ length: 1 + (trial % 7) * 3 }, () => (random() - 0.5) * scale);
      for (const distance of ['Cosine', 'Dot', 'Euclid', 'Manhattan'] as const) {
        const expected = outcome(() => checkVectorNorm(Float32Array.from(values), 'v', distance));
        expect([trial, distance, outcome(() => parseDenseVector(values, 'v', values.length, distance))]).toEqual([trial, distance, expected]);
      }
    }
  });
});
