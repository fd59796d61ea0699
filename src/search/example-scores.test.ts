import { describe, expect, it } from 'vitest';
import { linearCongruential } from '../../test/support/seeded-random.js';
import type { Distance } from '../native/vector-index.js';
import { exampleScorer } from './example-scorer.js';
import { averageVector, bestScore, contextScore, discoverScore, fastSigmoid, scaledFastSigmoid, sumScores } from './example-scores.js';

const distances: Distance[] = ['Cosine', 'Dot', 'Euclid', 'Manhattan'];

// Slow references, written from the definitions (Qdrant docs, "Explore the data") without
// sharing code with the module under test.
function referenceSimilarity(distance: Distance, example: number[], stored: number[]): number {
  if (distance === 'Cosine') {
    const norm = Math.hypot(...example);
    return example.reduce((sum, value, position) => sum + (value / norm) * (stored[position] as number), 0);
  }
  if (distance === 'Dot') return example.reduce((sum, value, position) => sum + value * (stored[position] as number), 0);
  if (distance === 'Euclid') return -example.reduce((sum, value, position) => sum + (value - (stored[position] as number)) ** 2, 0);
  return -example.reduce((sum, value, position) => sum + Math.abs(value - (stored[position] as number)), 0);
}
const squash = (value: number) => (value / (1 + Math.abs(value)) + 1) / 2;

function referenceBest(distance: Distance, positives: number[][], negatives: number[][], stored: number[]): number {
  const positive = Math.max(...positives.map((example) => referenceSimilarity(distance, example, stored)));
  const negative = Math.max(...negatives.map((example) => referenceSimilarity(distance, example, stored)));
  return positive > negative ? squash(positive) : -squash(negative);
}

function referenceSum(distance: Distance, positives: number[][], negatives: number[][], stored: number[]): number {
  const total = (examples: number[][]) => examples.reduce((sum, example) => sum + referenceSimilarity(distance, example, stored), 0);
  return total(positives) - total(negatives);
}

function referenceDiscover(distance: Distance, target: number[], pairs: [number[], number[]][], stored: number[]): number {
  let rank = 0;
  for (const [positive, negative] of pairs) rank += Math.sign(referenceSimilarity(distance, positive, stored) - referenceSimilarity(distance, negative, stored));
  return rank + squash(referenceSimilarity(distance, target, stored));
}

function referenceContext(distance: Distance, pairs: [number[], number[]][], stored: number[]): number {
  let total = 0;
  for (const [positive, negative] of pairs) {
    const difference = referenceSimilarity(distance, positive, stored) - referenceSimilarity(distance, negative, stored) - 2 ** -23;
    const clipped = Math.min(difference, 0);
    total += clipped / (1 + Math.abs(clipped));
  }
  return total;
}

function vectors(next: () => number, count: number, dimension: number): number[][] {
  return Array.from({ length: count }, () => Array.from({ length: dimension }, () => next() * 2 - 1));
}

function stored(distance: Distance, vector: number[]): number[] {
  if (distance !== 'Cosine') return vector;
  const norm = Math.hypot(...vector);
  return vector.map((value) => value / norm);
}

describe('sigmoids', () => {
  it('fast sigmoid — x/(1+|x|) in (-1, 1); the scaled one in (0, 1) with 0 -> 0.5', () => {
    expect(fastSigmoid(1)).toBe(0.5);
    expect(fastSigmoid(-3)).toBe(-0.75);
    expect(scaledFastSigmoid(0)).toBe(0.5);
    expect(scaledFastSigmoid(1e9)).toBeLessThan(1);
    expect(scaledFastSigmoid(-1e9)).toBeGreaterThan(0);
  });
});

describe('recommend best_score', () => {
  // Cases from Qdrant's own tests: identity similarities, the chosen side and value.
  it.each([
    [[42], [4], 'positive', 42],
    [[4], [42], 'negative', 42],
    [[-1], [0], 'negative', 0],
    [[0], [-1], 'positive', 0],
    [[-42], [-84], 'positive', -42],
    [[-84], [-42], 'negative', -42],
    [[1, 2, 3], [4, 5, 6], 'negative', 6],
    [[10, 2, 3], [4, 5, 6], 'positive', 10],
  ] as const)('best_score — positives %j, negatives %j: the %s side wins with %d', (positives, negatives, side, value) => {
    const expected = side === 'positive' ? scaledFastSigmoid(value) : -scaledFastSigmoid(value);
    expect(bestScore(positives, negatives)).toBe(expected);
  });

  it('best_score — a point won by a positive always ranks above one won by a negative', () => {
    const next = linearCongruential(3);
    for (let trial = 0; trial < 200; trial++) {
      const positive = next() * 200 - 100;
      const negative = next() * 200 - 100;
      expect(bestScore([positive], [])).toBeGreaterThan(bestScore([], [negative]));
    }
  });

  it('best_score — with no negatives it keeps the order of the best positive similarity', () => {
    expect(bestScore([0.9], [])).toBeGreaterThan(bestScore([0.5], []));
    expect(bestScore([], [0.9])).toBeLessThan(bestScore([], [0.5]));
  });
});

describe('recommend sum_scores and average_vector', () => {
  it('sum_scores — adds positive similarities and subtracts negative ones', () => {
    expect(sumScores([1, 2], [0.5])).toBe(2.5);
    expect(sumScores([], [1])).toBe(-1);
  });

  it('average_vector — avg(pos) + (avg(pos) - avg(neg)), or avg(pos) alone', () => {
    expect([...averageVector([[1, 2], [3, 4]], [], 2)]).toEqual([2, 3]);
    expect([...averageVector([[1, 2], [3, 4]], [[0, 1]], 2)]).toEqual([4, 5]);
  });
});

describe('discover and context', () => {
  // Qdrant's ranking cases: identity similarities per pair, target similarity 0 (adds 0.5).
  it.each([
    [[], 0],
    [[[10, 4]], 1],
    [[[4, 10]], -1],
    [[[11, 11]], 0],
    [[[10, 4], [4, 10]], 0],
    [[[10, 4], [4, 2]], 2],
    [[[4, 10], [2, 4]], -2],
    [[[1, 0], [2, 0], [3, 0], [4, 0], [5, 0], [0, 4]], 4],
  ] as const)('discover — pairs %j rank %d', (pairs, rank) => {
    const similarities = pairs.map(([positive, negative]) => ({ positive, negative }));
    expect(discoverScore(0, similarities)).toBe(rank + 0.5);
  });

  it('discover — the context zone outweighs any target similarity', () => {
    const good = [{ positive: 1, negative: 0 }, { positive: 1, negative: 0 }, { positive: 1, negative: 0 }];
    expect(discoverScore(-1000, good)).toBeGreaterThan(2.5);
    expect(discoverScore(1000, [{ positive: 1, negative: 0 }, { positive: 0, negative: 1 }])).toBeLessThan(2.5);
  });

  it('context — each pair costs between 0 and -1, and 0 only on the positive side', () => {
    const next = linearCongruential(11);
    for (let trial = 0; trial < 500; trial++) {
      const positive = next() * 200 - 100;
      const negative = next() * 200 - 100;
      const score = contextScore([{ positive, negative }]);
      expect(score).toBeLessThanOrEqual(0);
      expect(score).toBeGreaterThan(-1);
      if (positive - negative > 1e-3) expect(score).toBe(0);
      else expect(score).toBeLessThan(0);
    }
  });
});

describe('example scorers over vectors', () => {
  it.each(distances)('%s — every example form equals the slow reference on random vectors', (distance) => {
    const next = linearCongruential(distance.length * 97);
    const dimension = 7;
    const positives = vectors(next, 3, dimension);
    const negatives = vectors(next, 2, dimension);
    const target = vectors(next, 1, dimension)[0] as number[];
    const pairs = positives.slice(0, 2).map((positive, number) => [positive, negatives[number] as number[]] as [number[], number[]]);
    const best = exampleScorer(distance, dimension, { kind: 'best_score', positives, negatives });
    const sum = exampleScorer(distance, dimension, { kind: 'sum_scores', positives, negatives });
    const discover = exampleScorer(distance, dimension, { kind: 'discover', target, pairs: pairs.map(([positive, negative]) => ({ positive, negative })) });
    const context = exampleScorer(distance, dimension, { kind: 'context', pairs: pairs.map(([positive, negative]) => ({ positive, negative })) });
    const candidates = vectors(next, 50, dimension).map((candidate) => stored(distance, candidate));
    // Scorers read rows in place from a block, as the scan hands them over.
    const block = Float64Array.from(candidates.flat());
    candidates.forEach((held, row) => {
      for (const scorer of [best, sum, discover, context]) expect(scorer(block, row * dimension)).toBe(scorer(held, 0));
    });
    for (const held of candidates) {
      // Float32 examples against float64 references: agree to about 6 digits.
      expect(best(held, 0)).toBeCloseTo(referenceBest(distance, positives, negatives, held), 5);
      expect(sum(held, 0)).toBeCloseTo(referenceSum(distance, positives, negatives, held), 4);
      expect(discover(held, 0)).toBeCloseTo(referenceDiscover(distance, target, pairs, held), 5);
      expect(context(held, 0)).toBeCloseTo(referenceContext(distance, pairs, held), 5);
    }
  });
});
