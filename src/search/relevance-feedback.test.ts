import { describe, expect, it } from 'vitest';
import { linearCongruential } from '../../test/support/seeded-random.js';
import type { Distance } from '../native/vector-index.js';
import { exampleScorer } from './example-scorer.js';
import { feedbackPairs, maxFeedbackPairs, naiveFeedbackScore } from './relevance-feedback.js';

const distances: Distance[] = ['Cosine', 'Dot', 'Euclid', 'Manhattan'];

// The hand-computed example (docs/api.md §5.7). Target t = [1, 0]; feedback, in request order:
//   e0 = [0, 1] score 0.9,  e1 = [1, 1] score 0.1,  e2 = [-1, 0] score 0.5,  e3 = [0, -1] score 0.3
// a = 0.5, b = 2, c = 3. Ranked best first: e0 0.9, e2 0.5, e3 0.3, e1 0.1; two pairs:
//   (e0, e1): confidence 0.8, weight 0.8² · 3 = 1.92;   (e2, e3): confidence 0.2, weight 0.2² · 3 = 0.12.
// Candidate x = [2, 3]:
//   Dot:    sim(t) = 2;   e0 3, e1 5 (delta −2);   e2 −2, e3 −3 (delta 1)
//           score = 0.5 · 2 + 1.92 · (−2) + 0.12 · 1 = −2.72
//   Euclid: sim = −(squared distance): t −10;  e0 −8, e1 −5 (delta −3);  e2 −18, e3 −20 (delta 2)
//           score = 0.5 · (−10) + 1.92 · (−3) + 0.12 · 2 = −10.52
const target = [1, 0];
const examples = [[0, 1], [1, 1], [-1, 0], [0, -1]];
const scores = [0.9, 0.1, 0.5, 0.3];
const strategy = { a: 0.5, b: 2, c: 3 };

describe('relevance feedback — naive strategy', () => {
  it('pairs — the best with the worst, then inwards, each weighted confidence^b · c', () => {
    const pairs = feedbackPairs(scores, strategy);
    expect(pairs.map(({ better, worse }) => [better, worse])).toEqual([[0, 1], [2, 3]]);
    expect(pairs[0]!.weight).toBeCloseTo(1.92, 12);
    expect(pairs[1]!.weight).toBeCloseTo(0.12, 12);
  });

  it.each([
    ['Dot', -2.72],
    ['Euclid', -10.52],
  ] as const)('score — %s: the hand-computed example scores %s', (distance, expected) => {
    const scorer = exampleScorer(distance, 2, { kind: 'relevance_feedback', target, examples, pairs: feedbackPairs(scores, strategy), a: strategy.a });
    expect(scorer([2, 3], 0)).toBeCloseTo(expected, 5);
  });

  it('score — a · sim(target) + Σ weight · (sim(better) − sim(worse)), from the similarities', () => {
    expect(naiveFeedbackScore(0.5, 2, feedbackPairs(scores, strategy), [{ better: 3, worse: 5 }, { better: -2, worse: -3 }])).toBeCloseTo(-2.72, 12);
  });

  it('pairs — an odd count leaves the middle example out; fewer than two examples make no pair', () => {
    expect(feedbackPairs([5, 1, 3, 4, 2], strategy).map(({ better, worse }) => [better, worse])).toEqual([[0, 1], [3, 4]]);
    expect(feedbackPairs([1], strategy)).toEqual([]);
    expect(feedbackPairs([], strategy)).toEqual([]);
  });

  it(`pairs — at most ${maxFeedbackPairs}, from the two ends of the ranking`, () => {
    const pairs = feedbackPairs([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], { a: 1, b: 1, c: 1 });
    expect(pairs.map(({ better, worse, weight }) => [better, worse, weight])).toEqual([[9, 0, 9], [8, 1, 7], [7, 2, 5]]);
  });

  it('pairs — equal scores keep their request order; b = 0 gives weight c even at confidence 0', () => {
    const pairs = feedbackPairs([1, 1, 1, 1], { a: 1, b: 0, c: 2 });
    expect(pairs.map(({ better, worse, weight }) => [better, worse, weight])).toEqual([[0, 3, 2], [1, 2, 2]]);
  });

  // The slow reference, from the definition: sort (stable) by score descending, pair the ends,
  // sum weighted similarity differences; similarities as Qdrant's internal larger-better scores.
  function referenceSimilarity(distance: Distance, example: number[], stored: number[]): number {
    if (distance === 'Cosine') {
      const norm = Math.hypot(...example);
      return example.reduce((sum, value, position) => sum + (value / norm) * stored[position]!, 0);
    }
    if (distance === 'Dot') return example.reduce((sum, value, position) => sum + value * stored[position]!, 0);
    if (distance === 'Euclid') return -example.reduce((sum, value, position) => sum + (value - stored[position]!) ** 2, 0);
    return -example.reduce((sum, value, position) => sum + Math.abs(value - stored[position]!), 0);
  }

  function referenceScore(distance: Distance, goal: number[], feedback: { vector: number[]; score: number }[], naive: typeof strategy, stored: number[]): number {
    const ranked = feedback.map((item, position) => ({ ...item, position })).sort((left, right) => right.score - left.score || left.position - right.position);
    let score = naive.a * referenceSimilarity(distance, goal, stored);
    for (let step = 0; step < Math.min(3, Math.floor(ranked.length / 2)); step++) {
      const better = ranked[step]!;
      const worse = ranked[ranked.length - 1 - step]!;
      const weight = (better.score - worse.score) ** naive.b * naive.c;
      score += weight * (referenceSimilarity(distance, better.vector, stored) - referenceSimilarity(distance, worse.vector, stored));
    }
    return score;
  }

  it.each(distances)('scorer — %s: random examples score as the slow reference does', (distance) => {
    const next = linearCongruential(distances.indexOf(distance) + 11);
    const dimension = 6;
    const random = (count: number) => Array.from({ length: count }, () => Array.from({ length: dimension }, () => next() * 2 - 1));
    for (let round = 0; round < 20; round++) {
      const [goal] = random(1);
      const feedback = random(1 + Math.floor(next() * 9)).map((vector) => ({ vector, score: Math.round(next() * 4) / 4 }));
      const naive = { a: next() * 2, b: 0.5 + next() * 2, c: next() * 3 - 1 };
      const scorer = exampleScorer(distance, dimension, {
        kind: 'relevance_feedback',
        target: goal!,
        examples: feedback.map((item) => item.vector),
        pairs: feedbackPairs(feedback.map((item) => item.score), naive),
        a: naive.a,
      });
      for (const candidate of random(10)) {
        const stored = distance === 'Cosine' ? candidate.map((value) => value / Math.hypot(...candidate)) : candidate;
        // Float32 examples against float64 references: agree to about 5 digits.
        expect(scorer(stored, 0)).toBeCloseTo(referenceScore(distance, goal!, feedback, naive, stored), 4);
      }
    }
  });
});
