import { describe, expect, it } from 'vitest';
import { linearCongruential } from '../../test/support/seeded-random.js';
import type { Distance } from '../native/vector-index.js';
import { nearestScore, prepareQuery } from './nearest-score.js';

// Slow reference from the wire definitions (docs/api.md §4).
function reference(distance: Distance, query: number[], stored: number[]): number {
  if (distance === 'Cosine') {
    const norm = (vector: number[]) => Math.hypot(...vector);
    return query.reduce((sum, value, position) => sum + (value / norm(query)) * (stored[position]! / norm(stored)), 0);
  }
  if (distance === 'Dot') return query.reduce((sum, value, position) => sum + value * stored[position]!, 0);
  if (distance === 'Euclid') return Math.sqrt(query.reduce((sum, value, position) => sum + (value - stored[position]!) ** 2, 0));
  return query.reduce((sum, value, position) => sum + Math.abs(value - stored[position]!), 0);
}

describe('nearest score (prefetch re-scoring)', () => {
  it.each(['Cosine', 'Dot', 'Euclid', 'Manhattan'] as Distance[])('%s — equals the wire definition, reading rows in place', (distance) => {
    const next = linearCongruential(distance.length);
    const dimension = 9;
    const query = Array.from({ length: dimension }, () => next() * 2 - 1);
    const rows = Array.from({ length: 20 }, () => Array.from({ length: dimension }, () => next() * 2 - 1));
    // The index holds Cosine vectors normalised.
    const held = rows.map((row) => (distance === 'Cosine' ? row.map((value) => value / Math.hypot(...row)) : row));
    const block = Float32Array.from(held.flat());
    const prepared = prepareQuery(distance, query);
    rows.forEach((row, number) => {
      expect(nearestScore(distance, prepared, block, number * dimension, dimension)).toBeCloseTo(reference(distance, query, row), 5);
    });
  });
});
