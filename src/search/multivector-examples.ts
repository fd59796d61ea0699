// The example-based forms (recommend best_score / sum_scores, discover, context,
// relevance_feedback) on a multivector (docs/api.md §20): an example is a matrix, and it is
// compared with a candidate's matrix by MaxSim, turned larger-better (Euclid and Manhattan sum
// distances, so their MaxSim is negated), in place of the single-vector similarity. The scan reads
// each candidate's matrix from the index, a chunk of points at a time, yielding between chunks
// like ./exact-scan.ts.
import type { PointEntry } from '../engine/collection.js';
import { normalizedRows, type MultiVectorIndex } from '../engine/multi-vector-index.js';
import type { Distance } from '../native/vector-index.js';
import type { CandidateScorer, ExampleSimilarity } from './example-scorer.js';
import { scanChunkRows } from './exact-scan.js';
import type { StageOutput } from './stage-output.js';
import { TopK } from './top-k.js';

function pairScore(distance: Distance, left: ArrayLike<number>, leftStart: number, right: ArrayLike<number>, rightStart: number, dimension: number): number {
  let sum = 0;
  for (let position = 0; position < dimension; position += 1) {
    const a = left[leftStart + position]!;
    const b = right[rightStart + position]!;
    if (distance === 'Euclid') sum += (a - b) * (a - b);
    else if (distance === 'Manhattan') sum += Math.abs(a - b);
    else sum += a * b;
  }
  return distance === 'Euclid' ? Math.sqrt(sum) : sum;
}

/** MaxSim of `example` against the whole matrix `rows`, larger-better whatever the distance. */
export function maxSimSimilarity(distance: Distance, dimension: number): ExampleSimilarity {
  const larger = distance === 'Cosine' || distance === 'Dot';
  return {
    prepare: (vector) => (distance === 'Cosine' ? normalizedRows(Float32Array.from(vector), dimension) : Float32Array.from(vector)),
    similarity: (example, rows, offset) => {
      let total = 0;
      for (let start = 0; start < example.length; start += dimension) {
        let best = larger ? -Infinity : Infinity;
        for (let row = offset; row < rows.length; row += dimension) {
          const score = pairScore(distance, example, start, rows, row, dimension);
          if (larger ? score > best : score < best) best = score;
        }
        total += best;
      }
      return larger ? total : -total;
    },
  };
}

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** The best `limit` of `entries` by `scorer` over their matrices; points without one are skipped. */
export async function matrixScan(index: MultiVectorIndex, scorer: CandidateScorer, entries: Iterable<PointEntry>, limit: number): Promise<StageOutput> {
  const selector = new TopK(limit, 'larger_better');
  const kept: PointEntry[] = [];
  let seen = 0;
  for (const entry of entries) {
    const matrix = index.matrix(entry.slot);
    if (matrix !== undefined) {
      kept.push(entry);
      selector.offer(kept.length - 1, scorer(matrix, 0));
    }
    seen += 1;
    if (seen % scanChunkRows === 0) await yieldToEventLoop();
  }
  return { order: 'larger_better', points: selector.drain().map((selected) => ({ entry: kept[selected.position]!, score: selected.score })) };
}
