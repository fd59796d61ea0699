import { describe, expect, it } from 'vitest';
import { compareScores, passesThreshold, scoreOrderOf } from './score-order.js';

describe('score order per distance', () => {
  it('Cosine and Dot are larger-better, Euclid and Manhattan smaller-better', () => {
    expect(scoreOrderOf('Cosine')).toBe('larger_better');
    expect(scoreOrderOf('Dot')).toBe('larger_better');
    expect(scoreOrderOf('Euclid')).toBe('smaller_better');
    expect(scoreOrderOf('Manhattan')).toBe('smaller_better');
  });

  it('score_threshold — keeps score > t for Cosine/Dot and distance < t for Euclid/Manhattan', () => {
    expect(passesThreshold(scoreOrderOf('Cosine'), 0.8, 0.5)).toBe(true);
    expect(passesThreshold(scoreOrderOf('Dot'), 0.4, 0.5)).toBe(false);
    expect(passesThreshold(scoreOrderOf('Euclid'), 0.4, 0.5)).toBe(true);
    expect(passesThreshold(scoreOrderOf('Manhattan'), 0.8, 0.5)).toBe(false);
  });

  it('score_threshold — a score equal to the threshold is dropped', () => {
    expect(passesThreshold('larger_better', 0.5, 0.5)).toBe(false);
    expect(passesThreshold('smaller_better', 0.5, 0.5)).toBe(false);
  });

  it('ordering — best first per distance', () => {
    expect([0.2, 0.9, 0.5].sort(compareScores(scoreOrderOf('Cosine')))).toEqual([0.9, 0.5, 0.2]);
    expect([0.2, 0.9, 0.5].sort(compareScores(scoreOrderOf('Euclid')))).toEqual([0.2, 0.5, 0.9]);
  });
});
