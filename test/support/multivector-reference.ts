// The slow reference for multivectors (docs/api.md §20): MaxSim written from its definition —
// for each query row, the best wire score (docs/api.md §4) against any row of the document,
// summed — and the exact top-k it gives. Never computed by the code under test.
import { largerIsBetter, randomVectors, referenceScore, type DistanceName } from './search-data.js';

export function maxSim(distance: DistanceName, query: number[][], document: number[][]): number {
  const larger = largerIsBetter(distance);
  let sum = 0;
  for (const row of query) {
    let best = larger ? -Infinity : Infinity;
    for (const stored of document) {
      const score = referenceScore(distance, row, stored);
      best = larger ? Math.max(best, score) : Math.min(best, score);
    }
    sum += best;
  }
  return sum;
}

/** The exact MaxSim top-`limit` of `documents` (those `keep` admits), best first, ties by id. */
export function referenceTop(distance: DistanceName, query: number[][], documents: Map<number, number[][]>, limit: number, keep: (id: number) => boolean = () => true) {
  const sign = largerIsBetter(distance) ? -1 : 1;
  return [...documents]
    .filter(([id]) => keep(id))
    .map(([id, document]) => ({ id, score: maxSim(distance, query, document) }))
    .sort((left, right) => sign * (left.score - right.score) || left.id - right.id)
    .slice(0, limit);
}

/** Seeded matrices of 1..`maxRows` rows of `dimension` values, one per id 0..count-1. */
export function seededMatrices(seed: number, count: number, dimension: number, maxRows = 6): Map<number, number[][]> {
  const rows = randomVectors(seed, count * maxRows, dimension);
  const result = new Map<number, number[][]>();
  for (let id = 0; id < count; id += 1) result.set(id, rows.slice(id * maxRows, id * maxRows + 1 + (id % maxRows)));
  return result;
}
