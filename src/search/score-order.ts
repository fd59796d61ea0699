// Which way scores point, per distance (docs/api.md §4): Cosine and Dot are similarities, larger is
// better; Euclid and Manhattan are distances, smaller is better. Scores made by the query API
// itself (recommend best_score/sum_scores, discover, context, fusion) are always larger-better.
import type { Distance } from '../native/vector-index.js';

export type ScoreOrder = 'larger_better' | 'smaller_better';

export function scoreOrderOf(distance: Distance): ScoreOrder {
  return distance === 'Euclid' || distance === 'Manhattan' ? 'smaller_better' : 'larger_better';
}

/** True when `candidate` ranks strictly before `other`. */
export function isBetter(order: ScoreOrder, candidate: number, other: number): boolean {
  return order === 'larger_better' ? candidate > other : candidate < other;
}

/**
 * `score_threshold`: keeps score > t for similarities and distance < t for distances; a score
 * equal to the threshold is dropped either way.
 */
export function passesThreshold(order: ScoreOrder, score: number, threshold: number): boolean {
  return isBetter(order, score, threshold);
}

/** Sort comparator, best first. */
export function compareScores(order: ScoreOrder): (left: number, right: number) => number {
  return order === 'larger_better' ? (left, right) => right - left : (left, right) => left - right;
}
