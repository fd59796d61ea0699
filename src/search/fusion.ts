// Fusion of ranked lists (docs/api.md §5), as Qdrant computes it:
// - rrf: a point scores Σ weight-adjusted 1 / (rank + k) over the lists it appears in, rank
//   counted from 0; with a weight w the term is 1 / ((rank + 1) / w + k - 1), which is the plain
//   formula at w = 1 and lets a heavier list count its ranks as if they were higher.
// - dbsf: each list's scores are mapped to [0, 1] between mean - 3σ and mean + 3σ (σ the
//   sample standard deviation), then summed per point. A one-point list scores 0.5. Like
//   Qdrant, a score beyond 3σ is not clamped: it lands just outside [0, 1].
// Input scores of distance lists (smaller better) are negated first, so "better" always maps
// to "higher" and the fused score is larger-better.
import type { ScoreOrder } from './score-order.js';

export interface RankedEntry {
  /** The point's identity; equal keys across lists are the same point. */
  key: string;
  score: number;
}

export interface RankedList {
  /** Best first. */
  entries: readonly RankedEntry[];
  order: ScoreOrder;
}

export interface FusedEntry {
  key: string;
  score: number;
}

/** Best first; ties keep the order in which points were first seen (list by list). */
function sortFused(totals: Map<string, number>): FusedEntry[] {
  const fused: FusedEntry[] = [];
  for (const [key, score] of totals) fused.push({ key, score });
  // Array.prototype.sort is stable, so equal scores keep first-seen order.
  return fused.sort((left, right) => right.score - left.score);
}

export function rrfTerm(rank: number, k: number, weight = 1): number {
  if (weight <= 0) return 0;
  return weight === 1 ? 1 / (rank + k) : 1 / ((rank + 1) / weight + k - 1);
}

export function fuseRrf(lists: readonly RankedList[], k: number, weights?: readonly number[]): FusedEntry[] {
  const totals = new Map<string, number>();
  lists.forEach((list, listNumber) => {
    const weight = weights?.[listNumber] ?? 1;
    list.entries.forEach((entry, rank) => {
      totals.set(entry.key, (totals.get(entry.key) ?? 0) + rrfTerm(rank, k, weight));
    });
  });
  return sortFused(totals);
}

/** Mean and sample variance in one pass (Welford), stable for long lists. */
export function meanAndSampleVariance(values: readonly number[]): { mean: number; variance: number } {
  let mean = 0;
  let aggregate = 0;
  values.forEach((value, position) => {
    const before = value - mean;
    mean += before / (position + 1);
    aggregate += before * (value - mean);
  });
  return { mean, variance: values.length > 1 ? aggregate / (values.length - 1) : 0 };
}

/** One list's scores mapped by dbsf's normalisation; same order as the input. */
export function dbsfNormalise(scores: readonly number[]): number[] {
  if (scores.length === 0) return [];
  if (scores.length === 1) return [0.5];
  const { mean, variance } = meanAndSampleVariance(scores);
  const spread = Math.sqrt(variance);
  const low = mean - 3 * spread;
  const high = mean + 3 * spread;
  if (high === low) return scores.map(() => 0.5);
  return scores.map((score) => (score - low) / (high - low));
}

export function fuseDbsf(lists: readonly RankedList[]): FusedEntry[] {
  const totals = new Map<string, number>();
  for (const list of lists) {
    const sign = list.order === 'larger_better' ? 1 : -1;
    const normalised = dbsfNormalise(list.entries.map((entry) => sign * entry.score));
    list.entries.forEach((entry, position) => {
      totals.set(entry.key, (totals.get(entry.key) ?? 0) + (normalised[position] ?? 0));
    });
  }
  return sortFused(totals);
}
