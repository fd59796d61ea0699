// A point as a shard answers it (a ScoredPoint or a Record of docs/api.md §3.5), and the few
// operations the merges need on it.
import { comparePointIds, pointIdKey, type PointId } from '../../points/ids.js';
import { float32ToNumber } from '../../points/vectors.js';

export interface WirePoint {
  id: PointId;
  version?: number;
  score?: number;
  payload?: unknown;
  vector?: unknown;
  order_value?: number;
  [other: string]: unknown;
}

export function keyOf(point: { id: PointId }): string {
  return pointIdKey(point.id);
}

export function byId(left: { id: PointId }, right: { id: PointId }): number {
  return comparePointIds(left.id, right.id);
}

/**
 * The float32 a shard's wire score stands for: scores leave as the shortest text of a float32,
 * so reading it back through Math.fround gives the kernel's value exactly.
 */
export function storedScore(point: WirePoint): number {
  return Math.fround(point.score ?? 0);
}

/** A score computed at the coordinator, written as one node writes it (src/search/scored-points.ts). */
export function wireScore(score: number): number {
  return float32ToNumber(Math.fround(score));
}
