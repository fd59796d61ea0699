// Scores of the query forms that compare a candidate with examples instead of one query vector
// (docs/api.md §5), defined as Qdrant defines them (Qdrant docs, "Explore the data"):
// - recommend best_score: the best similarity to a positive, squashed by a scaled sigmoid into
//   (0, 1), when it beats the best similarity to a negative; otherwise minus the squashed best
//   negative similarity, so every point nearer a negative ranks below every other point.
// - recommend sum_scores: Σ similarity to positives - Σ similarity to negatives.
// - recommend average_vector: a plain nearest search for avg(pos) + (avg(pos) - avg(neg)),
//   or avg(pos) without negatives.
// - discover: per context pair +1 when nearer the positive, -1 when nearer the negative, 0 on a
//   tie; summed, plus the squashed similarity to the target, which orders points within a zone.
// - context: per pair min(sim(pos) - sim(neg) - ε, 0) squashed by the fast sigmoid, summed:
//   0 for points on the positive side of every pair, negative elsewhere.
// "Similarity" is larger-better for every distance: the score for Cosine and Dot, minus the
// squared L2 distance for Euclid and minus the L1 distance for Manhattan — Qdrant's internal
// scores, so results order and score the way a Qdrant server's would.
import type { Distance } from '../native/vector-index.js';

/** x / (1 + |x|): a sigmoid without exp, range (-1, 1). */
export function fastSigmoid(value: number): number {
  return value / (1 + Math.abs(value));
}

/** The fast sigmoid moved to (0, 1). */
export function scaledFastSigmoid(value: number): number {
  return 0.5 * (fastSigmoid(value) + 1);
}

/** Qdrant's margin so a point exactly between a pair counts as on the negative side. */
export const contextMargin = 1.1920929e-7; // f32::EPSILON

export function dot(left: ArrayLike<number>, right: ArrayLike<number>, dimension: number): number {
  let sum = 0;
  for (let position = 0; position < dimension; position++) sum += (left[position] as number) * (right[position] as number);
  return sum;
}

/** Larger-better similarity of the row of `stored` at `offset` (as the index holds it) to
 * `example` (prepared by `prepareExample`). Reading in place spares a view per candidate. */
export function similarity(distance: Distance, example: ArrayLike<number>, stored: ArrayLike<number>, dimension: number, offset = 0): number {
  switch (distance) {
    case 'Cosine':
    case 'Dot': {
      let sum = 0;
      for (let position = 0; position < dimension; position++) sum += (example[position] as number) * (stored[offset + position] as number);
      return sum;
    }
    case 'Euclid': {
      let sum = 0;
      for (let position = 0; position < dimension; position++) {
        const difference = (example[position] as number) - (stored[offset + position] as number);
        sum += difference * difference;
      }
      return -sum;
    }
    case 'Manhattan': {
      let sum = 0;
      for (let position = 0; position < dimension; position++) sum += Math.abs((example[position] as number) - (stored[offset + position] as number));
      return -sum;
    }
  }
}

/** Cosine examples are normalised like stored vectors; other distances use them as given. */
export function prepareExample(distance: Distance, vector: ArrayLike<number>): Float32Array {
  const prepared = Float32Array.from(vector);
  if (distance !== 'Cosine') return prepared;
  const norm = Math.sqrt(dot(prepared, prepared, prepared.length));
  if (norm > 0) for (let position = 0; position < prepared.length; position++) prepared[position] = (prepared[position] as number) / norm;
  return prepared;
}

export function bestScore(positiveSimilarities: readonly number[], negativeSimilarities: readonly number[]): number {
  let bestPositive = -Infinity;
  for (const value of positiveSimilarities) if (value > bestPositive) bestPositive = value;
  let bestNegative = -Infinity;
  for (const value of negativeSimilarities) if (value > bestNegative) bestNegative = value;
  return bestPositive > bestNegative ? scaledFastSigmoid(bestPositive) : -scaledFastSigmoid(bestNegative);
}

export function sumScores(positiveSimilarities: readonly number[], negativeSimilarities: readonly number[]): number {
  let sum = 0;
  for (const value of positiveSimilarities) sum += value;
  for (const value of negativeSimilarities) sum -= value;
  return sum;
}

export interface PairSimilarities {
  positive: number;
  negative: number;
}

export function discoverScore(targetSimilarity: number, pairs: readonly PairSimilarities[]): number {
  let rank = 0;
  for (const pair of pairs) rank += pair.positive > pair.negative ? 1 : pair.positive < pair.negative ? -1 : 0;
  return rank + scaledFastSigmoid(targetSimilarity);
}

export function contextScore(pairs: readonly PairSimilarities[]): number {
  let sum = 0;
  for (const pair of pairs) sum += fastSigmoid(Math.min(pair.positive - pair.negative - contextMargin, 0));
  return sum;
}

/** avg(positive) + (avg(positive) - avg(negative)); avg(positive) without negatives. */
export function averageVector(positives: readonly ArrayLike<number>[], negatives: readonly ArrayLike<number>[], dimension: number): Float32Array {
  const average = (vectors: readonly ArrayLike<number>[]): Float64Array => {
    const sum = new Float64Array(dimension);
    for (const vector of vectors) for (let position = 0; position < dimension; position++) sum[position] = (sum[position] as number) + (vector[position] as number);
    for (let position = 0; position < dimension; position++) sum[position] = (sum[position] as number) / vectors.length;
    return sum;
  };
  const positive = average(positives);
  if (negatives.length === 0) return Float32Array.from(positive);
  const negative = average(negatives);
  const result = new Float32Array(dimension);
  for (let position = 0; position < dimension; position++) {
    result[position] = 2 * (positive[position] as number) - (negative[position] as number);
  }
  return result;
}
