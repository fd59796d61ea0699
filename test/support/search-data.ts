// Seeded test data and the slow references the search tests compare the server with: exact
// scores computed here from the definitions (docs/api.md §4), never by the code under test.
import { expect } from 'vitest';
import { gaussian, linearCongruential, mulberry32 } from './seeded-random.js';
export type DistanceName = 'Cosine' | 'Euclid' | 'Dot' | 'Manhattan';

export function randomVectors(seed: number, count: number, dimension: number): number[][] {
  const next = linearCongruential(seed);
  return Array.from({ length: count }, () => Array.from({ length: dimension }, () => Math.round((next() * 2 - 1) * 1000) / 1000));
}

/** Points around `clusters` centres: the shape real embeddings have, where HNSW recall matters. */
export function clusteredVectors(seed: number, count: number, dimension: number, clusters: number): number[][] {
  const next = linearCongruential(seed);
  // The guard keeps a draw of exactly 0 away from log(0).
  const normal = () => gaussian(next, 1e-12);
  const centres = Array.from({ length: clusters }, () => Array.from({ length: dimension }, () => normal() * 3));
  return Array.from({ length: count }, (_, position) => {
    const centre = centres[position % clusters]!;
    return centre.map((value) => value + normal());
  });
}

export function normalise(vector: number[]): number[] {
  const norm = Math.hypot(...vector);
  return norm === 0 ? vector : vector.map((value) => value / norm);
}

/** The wire score (docs/api.md §4) of `stored` against `query`. */
export function referenceScore(distance: DistanceName, query: number[], stored: number[]): number {
  switch (distance) {
    case 'Cosine': {
      const left = normalise(query);
      const right = normalise(stored);
      return left.reduce((sum, value, position) => sum + value * right[position]!, 0);
    }
    case 'Dot':
      return query.reduce((sum, value, position) => sum + value * stored[position]!, 0);
    case 'Euclid':
      return Math.sqrt(query.reduce((sum, value, position) => sum + (value - stored[position]!) ** 2, 0));
    case 'Manhattan':
      return query.reduce((sum, value, position) => sum + Math.abs(value - stored[position]!), 0);
  }
}

export function largerIsBetter(distance: DistanceName): boolean {
  return distance === 'Cosine' || distance === 'Dot';
}

export interface ReferenceHit {
  id: number;
  score: number;
}

/** Brute force over every point: the exact answer, best first, ties by id. */
export function bruteForce(
  distance: DistanceName,
  query: number[],
  vectors: number[][],
  limit: number,
  options: { exclude?: Set<number>; keep?: (id: number) => boolean; ids?: number[] } = {},
): ReferenceHit[] {
  const sign = largerIsBetter(distance) ? -1 : 1;
  return vectors
    .map((vector, position) => ({ id: options.ids?.[position] ?? position, score: referenceScore(distance, query, vector) }))
    .filter((hit) => !options.exclude?.has(hit.id) && (options.keep?.(hit.id) ?? true))
    .sort((left, right) => sign * (left.score - right.score) || left.id - right.id)
    .slice(0, limit);
}

/** Points for an upsert: ids 0..n-1, a small payload to select from. */
export function pointsOf(vectors: number[][]): { id: number; vector: number[]; payload: Record<string, unknown> }[] {
  return vectors.map((vector, id) => ({ id, vector, payload: { group: id % 3, price: id * 10, tag: `t${id % 5}`, nested: { even: id % 2 === 0 } } }));
}

/** Upserts in batches with wait=true so every point is visible. */
export async function upsertAll(
  request: (method: string, path: string, body?: unknown) => Promise<{ status: number; body: any }>,
  collection: string,
  points: { id: number | bigint | string; vector: unknown; payload?: Record<string, unknown> }[],
  batch = 500,
): Promise<void> {
  for (let start = 0; start < points.length; start += batch) {
    const response = await request('PUT', `/collections/${collection}/points?wait=true`, { points: points.slice(start, start + batch) });
    if (response.status !== 200) throw new Error(`upsert failed: ${response.status} ${JSON.stringify(response.body)}`);
  }
}

/**
 * The server's hits equal the reference: scores position by position, and ids too, except that
 * points whose reference scores tie within float32 rounding may come in either order.
 */
export function expectSameHits(actual: { id: unknown; score: number }[], expected: ReferenceHit[], digits = 4): void {
  expect(actual).toHaveLength(expected.length);
  const tolerance = 10 ** -digits;
  actual.forEach((hit, position) => {
    expect(hit.score).toBeCloseTo(expected[position]!.score, digits);
    if (hit.id === expected[position]!.id) return;
    // A swap is only fine between near-equal scores.
    const twin = expected.find((candidate) => candidate.id === hit.id);
    const score = twin?.score ?? expected[expected.length - 1]!.score;
    expect(Math.abs(score - expected[position]!.score)).toBeLessThan(tolerance);
  });
}

/** The ids of the `limit` best points for `query` by the reference score, best first. */
export function exactTopIds(distance: DistanceName, points: readonly { id: number; vector: number[] }[], query: number[], limit: number): number[] {
  const sign = largerIsBetter(distance) ? -1 : 1;
  return points
    .map((point) => ({ id: point.id, score: referenceScore(distance, query, point.vector) }))
    .sort((left, right) => sign * (left.score - right.score))
    .slice(0, limit)
    .map((hit) => hit.id);
}

/** The share of the true neighbours found, over every query. */
export function recallOf(found: number[][], truth: number[][]): number {
  let hits = 0;
  found.forEach((ids, position) => (hits += ids.filter((id) => truth[position]!.includes(id)).length));
  return hits / truth.reduce((total, ids) => total + ids.length, 0);
}

/** Thresholds (KB) small enough that collections of a few thousand low-dimensional points use the graph. */
export const graphInUseConfig = { hnsw_config: { full_scan_threshold: 10 }, optimizers_config: { indexing_threshold: 10 } };

/**
 * Clustered points (as embeddings are), ids 0..count-1 with the centres taken in turn, and
 * in-distribution queries: every `stride`-th stored point, nudged by half a unit of noise.
 */
export function clusteredDataset(options: { count: number; seed: number; dimension: number; clusters: number; queries: number; stride: number }): {
  points: { id: number; vector: number[] }[];
  queries: number[][];
} {
  const random = mulberry32(options.seed);
  const normal = (): number => Math.sqrt(-2 * Math.log(random() + 1e-12)) * Math.cos(2 * Math.PI * random());
  const centres = Array.from({ length: options.clusters }, () => Array.from({ length: options.dimension }, () => normal() * 3));
  const points = Array.from({ length: options.count }, (_, id) => ({ id, vector: centres[id % centres.length]!.map((value) => value + normal()) }));
  const queries = Array.from({ length: options.queries }, (_, position) => points[position * options.stride]!.vector.map((value) => value + 0.5 * normal()));
  return { points, queries };
}
