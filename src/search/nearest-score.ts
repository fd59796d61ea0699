// The score of one stored vector against a nearest query, in the wire convention (docs/api.md §4):
// Cosine the dot of unit vectors, Dot the raw dot, Euclid the L2 distance, Manhattan the L1
// distance. Used to re-score prefetched candidates, where the kernel is not asked again.
import type { Distance } from '../native/vector-index.js';
import { dot, prepareExample } from './example-scores.js';

/** A query made ready once per request (normalised for Cosine). */
export function prepareQuery(distance: Distance, vector: ArrayLike<number>): Float32Array {
  return prepareExample(distance, vector);
}

/** `stored` is read from `offset` for `dimension` values, so rows of a block need no copy. */
export function nearestScore(distance: Distance, query: Float32Array, stored: ArrayLike<number>, offset: number, dimension: number): number {
  switch (distance) {
    case 'Cosine':
    case 'Dot': {
      let sum = 0;
      for (let position = 0; position < dimension; position++) sum += (query[position] as number) * (stored[offset + position] as number);
      return sum;
    }
    case 'Euclid': {
      let sum = 0;
      for (let position = 0; position < dimension; position++) {
        const difference = (query[position] as number) - (stored[offset + position] as number);
        sum += difference * difference;
      }
      return Math.sqrt(sum);
    }
    case 'Manhattan': {
      let sum = 0;
      for (let position = 0; position < dimension; position++) sum += Math.abs((query[position] as number) - (stored[offset + position] as number));
      return sum;
    }
  }
}

export { dot };
