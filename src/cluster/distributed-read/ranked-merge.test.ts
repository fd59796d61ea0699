import { describe, expect, it } from 'vitest';
import { mergeRanked, mergeSorted } from './ranked-merge.js';
import type { WirePoint } from './wire-point.js';

const point = (id: number | string, score: number): WirePoint => ({ id, score });

describe('ranked merge', () => {
  it('merge — the better score comes first, in the distance\'s direction', () => {
    const lists = [[point(1, 0.9), point(4, 0.2)], [point(2, 0.5)], [point(3, 0.7), point(5, 0.1)]];
    expect(mergeRanked(lists, 'larger_better', 4).map((found) => found.id)).toEqual([1, 3, 2, 4]);
    const distances = [[point(1, 0.1), point(4, 2)], [point(2, 0.5)]];
    expect(mergeRanked(distances, 'smaller_better', 3).map((found) => found.id)).toEqual([1, 2, 4]);
  });

  it('merge — equal scores across shards go by point id, integers before UUIDs; a shard keeps its own order', () => {
    const uuid = '0a6f1e3c-2b1d-4c55-9e0b-6a0b5d1c9f01';
    const lists = [[point(uuid, 1), point(9, 1)], [point(7, 1), point(2, 1)]];
    // Shard 0 put the UUID before 9 and shard 1 put 7 before 2 (their slot order): kept.
    expect(mergeRanked(lists, 'larger_better', 4).map((found) => found.id)).toEqual([7, 2, uuid, 9]);
  });

  it('merge — a tie rule replaces id order between shards', () => {
    const position = new Map<unknown, number>([[5, 0], [3, 1]]);
    const tie = (left: WirePoint, right: WirePoint) => position.get(left.id)! - position.get(right.id)!;
    expect(mergeRanked([[point(3, 1)], [point(5, 1)]], 'larger_better', 2, tie).map((found) => found.id)).toEqual([5, 3]);
  });

  it('merge — the limit cuts the merged list; empty lists merge to nothing', () => {
    expect(mergeRanked([[point(1, 1), point(2, 0.5)], []], 'larger_better', 1)).toHaveLength(1);
    expect(mergeRanked([[], []], 'larger_better', 5)).toEqual([]);
    expect(mergeSorted([[1, 4], [2, 3]], (left, right) => left - right, 3)).toEqual([1, 2, 3]);
  });
});
