// The `relevance_feedback` query's naive strategy (docs/api.md §5.7), as Qdrant v1.19 defines it.
// The feedback examples are sorted by their feedback score, best first (equal scores keep the
// order they were sent in), and paired from both ends: the best with the worst, the second best
// with the second worst, at most `maxFeedbackPairs` pairs and never an example twice (with an odd
// count the middle one is unused; with fewer than two examples there is no pair). A pair's weight
// is confidence^b · c, its confidence being the difference of the two feedback scores. A
// candidate then scores
//
//   a · sim(target) + Σ over pairs of weight · (sim(better example) − sim(worse example))
//
// where sim is the larger-better similarity the other example-based forms use (./example-scores.ts).

/** Qdrant pairs at most this many feedback examples from the two ends of the ranking. */
export const maxFeedbackPairs = 3;

export interface NaiveStrategy {
  a: number;
  b: number;
  c: number;
}

/** A pair of feedback examples, by their positions in the request's `feedback` list. */
export interface FeedbackPair {
  better: number;
  worse: number;
  /** confidence^b · c */
  weight: number;
}

/** The pairs the naive strategy scores with, from the examples' feedback scores (in request order). */
export function feedbackPairs(scores: readonly number[], strategy: NaiveStrategy): FeedbackPair[] {
  // Array.prototype.sort is stable: equal scores keep their request order.
  const ranked = scores.map((score, position) => ({ score, position })).sort((left, right) => right.score - left.score);
  const count = Math.min(maxFeedbackPairs, Math.floor(ranked.length / 2));
  const pairs: FeedbackPair[] = [];
  for (let step = 0; step < count; step++) {
    const better = ranked[step]!;
    const worse = ranked[ranked.length - 1 - step]!;
    const confidence = better.score - worse.score;
    pairs.push({ better: better.position, worse: worse.position, weight: Math.pow(confidence, strategy.b) * strategy.c });
  }
  return pairs;
}

/** Similarities of one candidate to a pair's better and worse example. */
export interface PairDelta {
  better: number;
  worse: number;
}

/** The naive score of a candidate from its similarity to the target and to each pair's examples. */
export function naiveFeedbackScore(a: number, targetSimilarity: number, pairs: readonly FeedbackPair[], similarities: readonly PairDelta[]): number {
  let score = a * targetSimilarity;
  for (let number = 0; number < pairs.length; number++) {
    const pair = similarities[number]!;
    score += pairs[number]!.weight * (pair.better - pair.worse);
  }
  return score;
}
