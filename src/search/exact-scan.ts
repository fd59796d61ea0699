// The exact scan: every candidate's stored vector compared by a score function, the best
// `limit` kept. Used for the example-based forms over the whole collection and for re-scoring
// prefetched points. Vectors are copied out of the kernel a chunk at a time, yielding to the
// event loop between chunks, so a large scan bounds its memory and never blocks other requests.
import type { PointEntry } from '../engine/collection.js';
import type { VectorIndex } from '../native/vector-index.js';
import type { CandidateScorer } from './example-scorer.js';
import type { ScoreOrder } from './score-order.js';
import type { StageOutput } from './stage-output.js';
import { TopK } from './top-k.js';

/** Rows fetched from the kernel per step of an exact scan: bounds memory and JS-thread time. */
export const scanChunkRows = 1024;

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** The best `limit` of `entries` by `scorer`; a point without a vector under the index's name is skipped. */
export async function exactScan(
  index: Pick<VectorIndex, 'dimension' | 'vectors'>,
  scorer: CandidateScorer,
  entries: Iterable<PointEntry>,
  limit: number,
  order: ScoreOrder = 'larger_better',
): Promise<StageOutput> {
  const selector = new TopK(limit, order);
  const kept: PointEntry[] = [];
  let chunk: PointEntry[] = [];
  const dimension = index.dimension;
  const flush = () => {
    const rows = index.vectors(Uint32Array.from(chunk, (entry) => entry.slot));
    chunk.forEach((entry, position) => {
      const offset = position * dimension;
      if (Number.isNaN(rows[offset])) return; // no vector under this name
      kept.push(entry);
      selector.offer(kept.length - 1, scorer(rows, offset));
    });
    chunk = [];
  };
  for (const entry of entries) {
    chunk.push(entry);
    if (chunk.length === scanChunkRows) {
      flush();
      await yieldToEventLoop();
    }
  }
  if (chunk.length > 0) flush();
  return { order, points: selector.drain().map((selected) => ({ entry: kept[selected.position]!, score: selected.score })) };
}
