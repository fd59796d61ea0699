import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../test/support/seeded-random.js';
import type { PointEntry } from '../engine/collection.js';
import { randomSample } from './random-sample.js';

function entries(count: number): PointEntry[] {
  return Array.from({ length: count }, (_, slot) => ({ id: slot + 1, key: String(slot + 1), slot, version: 0, payload: {} }));
}

describe('random sample', () => {
  it('sample — a limit above the point count returns every point once, scores 0', () => {
    const points = entries(5);
    const output = randomSample(points, 10, mulberry32(1));
    expect(output.order).toBe('larger_better');
    expect(output.points.map((point) => point.entry.key).sort()).toEqual(['1', '2', '3', '4', '5']);
    expect(output.points.every((point) => point.score === 0)).toBe(true);
  });

  it('sample — limit distinct points of the input; none for limit 0 or no input', () => {
    const points = entries(50);
    const output = randomSample(points, 7, mulberry32(2));
    const keys = output.points.map((point) => point.entry.key);
    expect(new Set(keys).size).toBe(7);
    expect(output.points.every((point) => points.includes(point.entry))).toBe(true);
    expect(randomSample(points, 0, mulberry32(3)).points).toEqual([]);
    expect(randomSample([], 4, mulberry32(4)).points).toEqual([]);
  });

  it('sample — every point is about equally likely, wherever it comes in the input', () => {
    const points = entries(10);
    const random = mulberry32(5);
    const chosen = new Map<string, number>();
    const trials = 20_000;
    for (let trial = 0; trial < trials; trial++) {
      for (const point of randomSample(points, 3, random).points) chosen.set(point.entry.key, (chosen.get(point.entry.key) ?? 0) + 1);
    }
    // Each point is in 3 of 10 samples on average: 6000 of 20000, with a standard deviation near 65.
    for (const point of points) expect(Math.abs((chosen.get(point.key) ?? 0) - 6_000)).toBeLessThan(400);
  });
});
