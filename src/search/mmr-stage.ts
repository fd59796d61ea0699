// Maximal marginal relevance (docs/api.md §5.5): a nearest query with `mmr` first takes its
// `candidates_limit` nearest points (over the collection, or among the prefetched points), with
// the stage's score_threshold applied to them, then lets the kernel pick `limit` of them in MMR
// order. Each point keeps its query score (not its MMR score), as Qdrant reports it; the output
// is in pick order.
import type { VectorIndex } from '../native/vector-index.js';
import type { MmrSpec } from './plan.js';
import type { StageOutput } from './stage-output.js';

export async function mmrPick(index: VectorIndex, query: Float32Array, candidates: StageOutput, mmr: MmrSpec, limit: number): Promise<StageOutput> {
  if (candidates.points.length === 0 || limit === 0) return { order: candidates.order, points: [] };
  const slots = Uint32Array.from(candidates.points, (point) => point.entry.slot);
  const picked = await index.mmrSelect(query, slots, mmr.lambda, limit);
  return { order: candidates.order, points: Array.from(picked, (position) => candidates.points[position]!) };
}
