// Builds the per-candidate score function of an example-based query form (best_score,
// sum_scores, discover, context, relevance_feedback) from its resolved example vectors; the
// formulas are in ./example-scores.ts and ./relevance-feedback.ts. Scores are larger-better
// whatever the distance.
import type { Distance } from '../native/vector-index.js';
import { bestScore, contextScore, discoverScore, prepareExample, similarity as singleSimilarity, sumScores, type PairSimilarities } from './example-scores.js';
import { naiveFeedbackScore, type FeedbackPair, type PairDelta } from './relevance-feedback.js';

export interface ResolvedPair {
  positive: ArrayLike<number>;
  negative: ArrayLike<number>;
}

export type ExampleForm =
  | { kind: 'best_score' | 'sum_scores'; positives: ArrayLike<number>[]; negatives: ArrayLike<number>[] }
  | { kind: 'discover'; target: ArrayLike<number>; pairs: ResolvedPair[] }
  | { kind: 'context'; pairs: ResolvedPair[] }
  /** `examples` in request order; `pairs` index into it (./relevance-feedback.ts). */
  | { kind: 'relevance_feedback'; target: ArrayLike<number>; examples: ArrayLike<number>[]; pairs: FeedbackPair[]; a: number };

/**
 * Scores the candidate whose vector (as the index holds it: normalised for Cosine) starts at
 * `offset` in `rows`. The scorer reuses its scratch arrays, so it makes no garbage per call.
 */
export type CandidateScorer = (rows: ArrayLike<number>, offset: number) => number;

/**
 * How one example is compared with one candidate: `prepare` readies an example once, `similarity`
 * scores it against the candidate at `offset` (larger is better). The default is the single-vector
 * similarity of ./example-scores.ts; multivectors pass MaxSim (./multivector-examples.ts).
 */
export interface ExampleSimilarity {
  prepare(vector: ArrayLike<number>): ArrayLike<number>;
  similarity(example: ArrayLike<number>, rows: ArrayLike<number>, offset: number): number;
}

export function exampleScorer(distance: Distance, dimension: number, form: ExampleForm, custom?: ExampleSimilarity): CandidateScorer {
  const prepare = custom ? (vector: ArrayLike<number>) => custom.prepare(vector) : (vector: ArrayLike<number>) => prepareExample(distance, vector);
  const similarity = custom
    ? (_distance: Distance, example: ArrayLike<number>, rows: ArrayLike<number>, _dimension: number, offset: number) => custom.similarity(example, rows, offset)
    : singleSimilarity;
  const preparePairs = (pairs: ResolvedPair[]) => pairs.map((pair) => ({ positive: prepare(pair.positive), negative: prepare(pair.negative) }));

  switch (form.kind) {
    case 'best_score':
    case 'sum_scores': {
      const positives = form.positives.map(prepare);
      const negatives = form.negatives.map(prepare);
      const positiveScores = new Array<number>(positives.length);
      const negativeScores = new Array<number>(negatives.length);
      const combine = form.kind === 'best_score' ? bestScore : sumScores;
      return (rows, offset) => {
        for (let number = 0; number < positives.length; number++) positiveScores[number] = similarity(distance, positives[number]!, rows, dimension, offset);
        for (let number = 0; number < negatives.length; number++) negativeScores[number] = similarity(distance, negatives[number]!, rows, dimension, offset);
        return combine(positiveScores, negativeScores);
      };
    }
    case 'discover':
    case 'context': {
      const target = form.kind === 'discover' ? prepare(form.target) : undefined;
      const pairs = preparePairs(form.pairs);
      const scratch: PairSimilarities[] = pairs.map(() => ({ positive: 0, negative: 0 }));
      return (rows, offset) => {
        pairs.forEach((pair, number) => {
          const slot = scratch[number]!;
          slot.positive = similarity(distance, pair.positive, rows, dimension, offset);
          slot.negative = similarity(distance, pair.negative, rows, dimension, offset);
        });
        return target ? discoverScore(similarity(distance, target, rows, dimension, offset), scratch) : contextScore(scratch);
      };
    }
    case 'relevance_feedback': {
      const target = prepare(form.target);
      const pairs = form.pairs.map((pair) => ({ better: prepare(form.examples[pair.better]!), worse: prepare(form.examples[pair.worse]!) }));
      const scratch: PairDelta[] = pairs.map(() => ({ better: 0, worse: 0 }));
      return (rows, offset) => {
        pairs.forEach((pair, number) => {
          const slot = scratch[number]!;
          slot.better = similarity(distance, pair.better, rows, dimension, offset);
          slot.worse = similarity(distance, pair.worse, rows, dimension, offset);
        });
        return naiveFeedbackScore(form.a, similarity(distance, target, rows, dimension, offset), form.pairs, scratch);
      };
    }
  }
}
