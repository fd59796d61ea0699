import { describe, expect, it } from 'vitest';
import { inverseDocumentFrequency, withIdfWeights } from './idf.js';
import { sparseDot } from './sparse-search.js';

describe('idf and sparse scores', () => {
  it('idf — ln(((N - n + 0.5) / (n + 0.5)) + 1), worked by hand', () => {
    expect(inverseDocumentFrequency(4, 3)).toBeCloseTo(Math.log(1.5 / 3.5 + 1), 12);
    expect(inverseDocumentFrequency(4, 3)).toBeCloseTo(0.356675, 6);
    expect(inverseDocumentFrequency(10, 0)).toBeCloseTo(Math.log(10.5 / 0.5 + 1), 12);
    // A term in every document still weighs a little, never zero or negative.
    expect(inverseDocumentFrequency(5, 5)).toBeGreaterThan(0);
  });

  it('idf — query values are multiplied by their dimension weight from the index statistics', () => {
    const index = { stats: () => ({ count: 4, nonZeros: 0, dimensions: 0, memoryBytes: 0 }), documentFrequencies: (dimensions: Uint32Array) => Uint32Array.from(dimensions, (dimension) => (dimension === 1 ? 3 : 1)) };
    const weighted = withIdfWeights(index, { indices: Uint32Array.of(1, 2), values: Float32Array.of(2, 1) });
    expect(weighted.values[0]).toBeCloseTo(2 * 0.356675, 5);
    expect(weighted.values[1]).toBeCloseTo(Math.log(3.5 / 1.5 + 1), 5);
  });

  it('sparseDot — the dot product over shared indices (slow twin: a map lookup per index)', () => {
    const left = { indices: Uint32Array.of(1, 4, 9, 12), values: Float32Array.of(1, 2, 3, 4) };
    const right = { indices: Uint32Array.of(0, 4, 12, 30), values: Float32Array.of(5, 6, 7, 8) };
    const byIndex = new Map([...right.indices].map((index, position) => [index, right.values[position]!]));
    const slow = [...left.indices].reduce((sum, index, position) => sum + left.values[position]! * (byIndex.get(index) ?? 0), 0);
    expect(sparseDot(left, right)).toBe(slow);
    expect(sparseDot(left, { indices: new Uint32Array(0), values: new Float32Array(0) })).toBe(0);
  });
});
