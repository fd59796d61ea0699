import { describe, expect, it } from 'vitest';
import { float32ToNumber, parsePointVectors, type VectorLayout } from './vectors.js';

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

  it('named vectors — any subset of the declared names; unknown names are refused, sparse ones only where the caller takes them', () => {
    const parsed = parsePointVectors({ b: [1, 2, 3] }, 'vector', layout);
    expect([...parsed.keys()]).toEqual(['b']);
    expect(parsed.get('b')).toEqual(new Float32Array([1, 2, 3]));
    expect(() => parsePointVectors({ c: [1] }, 'vector', layout)).toThrow('vector.c: Not existing vector name: "c"');
    expect(() => parsePointVectors({ s: { indices: [1], values: [1] } }, 'vector', layout)).toThrow('vector.s: sparse vectors are not accepted here');
    expect(() => parsePointVectors([1, 2], 'vector', layout)).toThrow('named vectors');
  });

  it('dense vectors — bigint literals are numbers; non-finite values are refused', () => {
    const single: VectorLayout = { shape: 'single', dimensions: new Map([['', 2]]), sparseNames: new Set() };
    expect(parsePointVectors([12345678901234567890n, 1], 'v', single).get('')![0]).toBe(Math.fround(12345678901234567890));
    expect(() => parsePointVectors([Number.NaN, 1], 'v', single)).toThrow('v[0]: expected a finite number');
    expect(() => parsePointVectors([1, Number.POSITIVE_INFINITY], 'v', single)).toThrow('v[1]: expected a finite number');
  });
});
