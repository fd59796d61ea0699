import { describe, expect, it } from 'vitest';
import { linearCongruential } from '../../test/support/seeded-random.js';
import { TopK } from './top-k.js';

describe('top-k selection', () => {
  it('top-k — keeps the same entries as sorting everything, for both score orders', () => {
    for (let seed = 1; seed <= 30; seed++) {
      const next = linearCongruential(seed);
      // Rounded scores so ties happen; ties must go to the lower position.
      const scores = Array.from({ length: 200 }, () => Math.round(next() * 50));
      for (const order of ['larger_better', 'smaller_better'] as const) {
        const limit = 1 + (seed % 25);
        const selector = new TopK(limit, order);
        scores.forEach((score, position) => selector.offer(position, score));
        const sign = order === 'larger_better' ? -1 : 1;
        const reference = scores
          .map((score, position) => ({ position, score }))
          .sort((left, right) => sign * (left.score - right.score) || left.position - right.position)
          .slice(0, limit);
        expect(selector.drain()).toEqual(reference);
      }
    }
  });

  it('top-k — ignores NaN and a zero limit keeps nothing', () => {
    const selector = new TopK(2, 'larger_better');
    selector.offer(0, Number.NaN);
    selector.offer(1, 3);
    expect(selector.drain()).toEqual([{ position: 1, score: 3 }]);
    const empty = new TopK(0, 'larger_better');
    empty.offer(0, 1);
    expect(empty.drain()).toEqual([]);
  });
});
