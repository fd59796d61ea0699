// The k-way merge of per-shard ranked lists. Each shard's list is already in one node's order
// (its own ties included), so the merge only decides between the heads of the lists: the better
// score first; between equal scores the smaller point id (docs/api.md §2.1 order), unless the
// caller gives another tie rule (a re-scoring stage ties by candidate position).
import { isBetter, type ScoreOrder } from '../../search/score-order.js';
import { byId, type WirePoint } from './wire-point.js';

export type TieRule = (left: WirePoint, right: WirePoint) => number;

/** The best `limit` points of the shards' lists, each list best first. */
export function mergeRanked(lists: readonly (readonly WirePoint[])[], order: ScoreOrder, limit: number, tie: TieRule = byId): WirePoint[] {
  const heads = lists.map(() => 0);
  const merged: WirePoint[] = [];
  while (merged.length < limit) {
    let best = -1;
    for (let list = 0; list < lists.length; list++) {
      const candidate = lists[list]![heads[list]!];
      if (candidate === undefined) continue;
      if (best < 0) {
        best = list;
        continue;
      }
      const current = lists[best]![heads[best]!]!;
      const candidateScore = candidate.score ?? 0;
      const currentScore = current.score ?? 0;
      if (isBetter(order, candidateScore, currentScore) || (candidateScore === currentScore && tie(candidate, current) < 0)) best = list;
    }
    if (best < 0) break;
    merged.push(lists[best]![heads[best]!]!);
    heads[best] = heads[best]! + 1;
  }
  return merged;
}

/** The first `limit` points of the shards' lists by `compare`, each list already in that order. */
export function mergeSorted<Point>(lists: readonly (readonly Point[])[], compare: (left: Point, right: Point) => number, limit: number): Point[] {
  const heads = lists.map(() => 0);
  const merged: Point[] = [];
  while (merged.length < limit) {
    let best = -1;
    for (let list = 0; list < lists.length; list++) {
      const candidate = lists[list]![heads[list]!];
      if (candidate === undefined) continue;
      if (best < 0 || compare(candidate, lists[best]![heads[best]!]!) < 0) best = list;
    }
    if (best < 0) break;
    merged.push(lists[best]![heads[best]!]!);
    heads[best] = heads[best]! + 1;
  }
  return merged;
}
