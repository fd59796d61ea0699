import { describe, expect, it } from 'vitest';
import { linearCongruential } from '../../test/support/seeded-random.js';
import { dbsfNormalise, fuseDbsf, fuseRrf, meanAndSampleVariance, type RankedList } from './fusion.js';

function randomLists(seed: number, count: number, order: 'larger_better' | 'smaller_better' = 'larger_better'): RankedList[] {
  const next = linearCongruential(seed);
  return Array.from({ length: count }, () => {
    const keys = new Set<string>();
    const size = 1 + Math.floor(next() * 12);
    while (keys.size < size) keys.add(`p${Math.floor(next() * 20)}`);
    const scores = [...keys].map(() => next() * 10).sort((a, b) => (order === 'larger_better' ? b - a : a - b));
    return { order, entries: [...keys].map((key, rank) => ({ key, score: scores[rank] as number })) };
  });
}

/** Slow reference: for every key, look it up in every list by scanning. */
function referenceRrf(lists: RankedList[], k: number, weights?: number[]): Map<string, number> {
  const keys = new Set(lists.flatMap((list) => list.entries.map((entry) => entry.key)));
  const totals = new Map<string, number>();
  for (const key of keys) {
    let total = 0;
    lists.forEach((list, number) => {
      const rank = list.entries.findIndex((entry) => entry.key === key);
      const weight = weights?.[number] ?? 1;
      // Qdrant's weighted form; at weight 1 it is 1 / (rank + k).
      if (rank >= 0 && weight > 0) total += 1 / ((rank + 1) / weight + k - 1);
    });
    totals.set(key, total);
  }
  return totals;
}

/** Slow reference: two-pass mean and sample standard deviation. */
function referenceDbsf(lists: RankedList[]): Map<string, number> {
  const totals = new Map<string, number>();
  for (const list of lists) {
    const scores = list.entries.map((entry) => (list.order === 'larger_better' ? entry.score : -entry.score));
    const mean = scores.reduce((sum, value) => sum + value, 0) / scores.length;
    const deviation = Math.sqrt(scores.reduce((sum, value) => sum + (value - mean) ** 2, 0) / Math.max(scores.length - 1, 1));
    list.entries.forEach((entry, position) => {
      const low = mean - 3 * deviation;
      const high = mean + 3 * deviation;
      const normalised = scores.length === 1 || high === low ? 0.5 : ((scores[position] as number) - low) / (high - low);
      totals.set(entry.key, (totals.get(entry.key) ?? 0) + normalised);
    });
  }
  return totals;
}

function expectMatches(fused: { key: string; score: number }[], reference: Map<string, number>) {
  expect(fused.map((entry) => entry.key).sort()).toEqual([...reference.keys()].sort());
  for (const entry of fused) expect(entry.score).toBeCloseTo(reference.get(entry.key) as number, 9);
  for (let position = 1; position < fused.length; position++) {
    expect((fused[position - 1] as { score: number }).score).toBeGreaterThanOrEqual((fused[position] as { score: number }).score);
  }
}

describe('rrf fusion', () => {
  it('rrf — scores Σ 1/(rank + k), rank from 0, k = 2 by default', () => {
    const lists: RankedList[] = [
      { order: 'larger_better', entries: [{ key: 'a', score: 9 }, { key: 'b', score: 8 }] },
      { order: 'smaller_better', entries: [{ key: 'b', score: 0.1 }, { key: 'c', score: 0.2 }] },
    ];
    const fused = fuseRrf(lists, 2);
    expect(fused).toEqual([
      { key: 'b', score: 1 / 3 + 1 / 2 },
      { key: 'a', score: 1 / 2 },
      { key: 'c', score: 1 / 3 },
    ]);
  });

  it('rrf — equals the slow reference on random lists, for several k and weights', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const lists = randomLists(seed, 1 + (seed % 4));
      const k = 1 + (seed % 7);
      expectMatches(fuseRrf(lists, k), referenceRrf(lists, k));
      const weights = lists.map((_, number) => 0.5 + number);
      expectMatches(fuseRrf(lists, k, weights), referenceRrf(lists, k, weights));
    }
  });

  it('rrf — ties keep the order points were first seen', () => {
    const lists: RankedList[] = [
      { order: 'larger_better', entries: [{ key: 'x', score: 1 }] },
      { order: 'larger_better', entries: [{ key: 'y', score: 1 }] },
    ];
    expect(fuseRrf(lists, 2).map((entry) => entry.key)).toEqual(['x', 'y']);
  });
});

describe('dbsf fusion', () => {
  it('dbsf — normalises by mean ± 3 sample standard deviations', () => {
    // mean 2, sample sd 1: bounds -1 and 5.
    expect(dbsfNormalise([1, 2, 3])).toEqual([2 / 6, 3 / 6, 4 / 6]);
    expect(dbsfNormalise([7])).toEqual([0.5]);
    expect(dbsfNormalise([4, 4])).toEqual([0.5, 0.5]);
  });

  it('dbsf — Welford mean and variance equal the two-pass formulas', () => {
    const next = linearCongruential(7);
    const values = Array.from({ length: 500 }, () => next() * 200 - 100);
    const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
    const variance = values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / (values.length - 1);
    const computed = meanAndSampleVariance(values);
    expect(computed.mean).toBeCloseTo(mean, 9);
    expect(computed.variance).toBeCloseTo(variance, 6);
  });

  it('dbsf — equals the slow reference on random lists, distances negated so better is higher', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const lists = [...randomLists(seed, 2), ...randomLists(seed + 100, 1 + (seed % 2), 'smaller_better')];
      expectMatches(fuseDbsf(lists), referenceDbsf(lists));
    }
  });

  it('dbsf — the nearest point of a distance list gets the highest normalised score', () => {
    const fused = fuseDbsf([{ order: 'smaller_better', entries: [{ key: 'near', score: 0.1 }, { key: 'mid', score: 0.5 }, { key: 'far', score: 2 }] }]);
    expect(fused.map((entry) => entry.key)).toEqual(['near', 'mid', 'far']);
  });
});
