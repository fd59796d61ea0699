// Builds the per-candidate score function of an example-based query form (best_score,
// sum_scores, discover, context) from its resolved example vectors; the formulas are in
// ./example-scores.ts. Scores are larger-better whatever the distance.
import type { Distance } from '../native/vector-index.js';
import { bestScore, contextScore, discoverScore, prepareExample, similarity, sumScores, type PairSimilarities } from './example-scores.js';

export interface ResolvedPair {
  positive: ArrayLike<number>;
  negative: ArrayLike<number>;
}

export type ExampleForm =
  | { kind: 'best_score' | 'sum_scores'; positives: ArrayLike<number>[]; negatives: ArrayLike<number>[] }
  | { kind: 'discover'; target: ArrayLike<number>; pairs: ResolvedPair[] }
  | { kind: 'context'; pairs: ResolvedPair[] };

/** `stored` is one candidate's vector as the index holds it (normalised for Cosine). */
export type CandidateScorer = (stored: ArrayLike<number>) => number;

export function exampleScorer(distance: Distance, dimension: number, form: ExampleForm): CandidateScorer {
  const prepare = (vector: ArrayLike<number>) => prepareExample(distance, vector);
  const similarityTo = (example: Float32Array, stored: ArrayLike<number>) => similarity(distance, example, stored, dimension);
  const preparePairs = (pairs: ResolvedPair[]) => pairs.map((pair) => ({ positive: prepare(pair.positive), negative: prepare(pair.negative) }));
  const pairSimilarities = (pairs: { positive: Float32Array; negative: Float32Array }[], stored: ArrayLike<number>): PairSimilarities[] =>
    pairs.map((pair) => ({ positive: similarityTo(pair.positive, stored), negative: similarityTo(pair.negative, stored) }));

  switch (form.kind) {
    case 'best_score':
    case 'sum_scores': {
      const positives = form.positives.map(prepare);
      const negatives = form.negatives.map(prepare);
      const combine = form.kind === 'best_score' ? bestScore : sumScores;
      return (stored) =>
        combine(
          positives.map((example) => similarityTo(example, stored)),
          negatives.map((example) => similarityTo(example, stored)),
        );
    }
    case 'discover': {
      const target = prepare(form.target);
      const pairs = preparePairs(form.pairs);
      return (stored) => discoverScore(similarityTo(target, stored), pairSimilarities(pairs, stored));
    }
    case 'context': {
      const pairs = preparePairs(form.pairs);
      return (stored) => contextScore(pairSimilarities(pairs, stored));
    }
  }
}
