// The distance matrix of a sample (docs/api.md §3): `sample` points among those the filter accepts
// and that hold the `using` vector, then for each of them its `limit` nearest neighbours among
// the sample (itself left out). Scores come from the kernel's own search over the sample, so a
// pair scores exactly as a search from one of its points would score the other.
//
// Sampling is deterministic, unlike Qdrant's random sample: the points whose ids hash lowest
// (sampleRank), so the same data gives the same matrix, and the sample is spread evenly over the
// ids whatever order they were written in. Like Qdrant, the sample is put in id order and fewer
// than two candidate points give an empty matrix.
import type { Collection, PointEntry } from '../engine/collection.js';
import { requestAllowedSlots } from '../filter/collection-filters.js';
import { SlotSet } from '../points/slot-set.js';
import { comparePointIds, type PointId } from '../points/ids.js';
import { float32ToNumber } from '../points/vectors.js';
import type { SearchMatrixRequest } from './search-matrix-schema.js';
import { TopK } from './top-k.js';

/** Sampled points searched per kernel call: bounds the query block one call copies. */
const queriesPerKernelCall = 256;

export interface MatrixNeighbour {
  /** Position of the neighbour in the sample. */
  position: number;
  score: number;
}

export interface SearchMatrix {
  /** The sampled points, in id order. */
  ids: PointId[];
  /** For each sampled point, its neighbours best first. */
  neighbours: MatrixNeighbour[][];
}

export interface SearchMatrixPairs {
  pairs: { a: PointId; b: PointId; score: number }[];
}

export interface SearchMatrixOffsets {
  offsets_row: number[];
  offsets_col: number[];
  scores: number[];
  ids: PointId[];
}

/**
 * A 52-bit rank of an id key, uniform enough that the lowest ranks are a fair sample: two
 * 32-bit multiplicative hashes of the key's code units, each finished with an avalanche step.
 */
export function sampleRank(key: string): number {
  let high = 0x811c9dc5;
  let low = 0x2545f491;
  for (let position = 0; position < key.length; position++) {
    const unit = key.charCodeAt(position);
    high = Math.imul(high ^ unit, 0x01000193);
    low = Math.imul(low ^ unit, 0x5bd1e995);
  }
  high ^= high >>> 15;
  high = Math.imul(high, 0x2c1b3c6d);
  high ^= high >>> 12;
  low ^= low >>> 13;
  low = Math.imul(low, 0x297a2d39);
  low ^= low >>> 16;
  return (high >>> 12) * 2 ** 32 + (low >>> 0);
}

/** Scores leave as float32 values in their shortest form, as search scores do. */
function wireScore(score: number): number {
  return float32ToNumber(Math.fround(score));
}

/** The `sample` lowest-ranked candidates, in id order. */
function drawSample(collection: Collection, request: SearchMatrixRequest): PointEntry[] {
  const index = collection.vectorIndex(request.using, 'using');
  const allowed = requestAllowedSlots(collection, request.filter);
  const selector = new TopK(request.sample, 'smaller_better');
  for (const entry of collection.livePoints()) {
    if (allowed && !allowed.has(entry.slot)) continue;
    // Only points holding the vector can be compared (a named vector may be absent).
    if (!index.has(entry.slot)) continue;
    selector.offer(entry.slot, sampleRank(entry.key));
  }
  const sampled: PointEntry[] = [];
  for (const selected of selector.drain()) {
    const entry = collection.pointBySlot(selected.position);
    if (entry) sampled.push(entry);
  }
  return sampled.sort((left, right) => comparePointIds(left.id, right.id));
}

export async function searchMatrix(collection: Collection, request: SearchMatrixRequest): Promise<SearchMatrix> {
  collection.assertOperable();
  const sampled = drawSample(collection, request);
  if (sampled.length < 2) return { ids: [], neighbours: [] };

  const positionOfKey = new Map(sampled.map((entry, position) => [entry.key, position]));
  let capacity = collection.slotCapacity;
  for (const entry of sampled) capacity = Math.max(capacity, entry.slot + 1);
  const onlySample = SlotSet.fromSlots(capacity, sampled.map((entry) => entry.slot));
  const allowed = new Uint8Array(onlySample.words.buffer, onlySample.words.byteOffset, onlySample.words.byteLength);
  const neighbours: MatrixNeighbour[][] = sampled.map(() => []);
  for (let start = 0; start < sampled.length; start += queriesPerKernelCall) {
    const queries: Float32Array[] = [];
    const positions: number[] = [];
    for (let position = start; position < Math.min(start + queriesPerKernelCall, sampled.length); position++) {
      // A point whose vector was removed since it was drawn keeps an empty row.
      const vector = collection.storedVector(sampled[position]!, request.using);
      if (!vector) continue;
      queries.push(vector);
      positions.push(position);
    }
    // Exact: the neighbours are the true nearest within the sample, the answer a brute force
    // gives. One more than `limit`, since a point normally finds itself among them.
    const found = await collection.nearestBatch(request.using, queries, request.limit + 1, { exact: true, allowed });
    found.forEach((result, number) => {
      const self = positions[number]!;
      const row = neighbours[self]!;
      result.points.forEach((point, rank) => {
        const position = positionOfKey.get(point.key);
        if (position === undefined || position === self || row.length === request.limit) return;
        row.push({ position, score: wireScore(result.scores[rank]!) });
      });
    });
  }
  return { ids: sampled.map((entry) => entry.id), neighbours };
}

export function matrixPairs(matrix: SearchMatrix): SearchMatrixPairs {
  const pairs: SearchMatrixPairs['pairs'] = [];
  matrix.neighbours.forEach((row, position) => {
    for (const neighbour of row) pairs.push({ a: matrix.ids[position]!, b: matrix.ids[neighbour.position]!, score: neighbour.score });
  });
  return { pairs };
}

export function matrixOffsets(matrix: SearchMatrix): SearchMatrixOffsets {
  const offsets: SearchMatrixOffsets = { offsets_row: [], offsets_col: [], scores: [], ids: matrix.ids };
  matrix.neighbours.forEach((row, position) => {
    for (const neighbour of row) {
      offsets.offsets_row.push(position);
      offsets.offsets_col.push(neighbour.position);
      offsets.scores.push(neighbour.score);
    }
  });
  return offsets;
}
