// Fusion of prefetch results (rrf, dbsf): each prefetch's ranked points become one ranked list,
// the lists are fused by ./fusion.ts, and the fused keys are mapped back to their points.
// Fused scores are larger-better.
import type { PointEntry } from '../engine/collection.js';
import { fuseDbsf, fuseRrf, type RankedList } from './fusion.js';
import type { QueryForm } from './plan.js';
import type { StageOutput } from './stage-output.js';

export type FusionForm = Extract<QueryForm, { kind: 'rrf' } | { kind: 'dbsf' }>;

/** The best `limit` points of the fused `children`. */
export function fusePrefetches(form: FusionForm, children: readonly StageOutput[], limit: number): StageOutput {
  const byKey = new Map<string, PointEntry>();
  const lists: RankedList[] = children.map((child) => ({
    order: child.order,
    entries: child.points.map((point) => {
      byKey.set(point.entry.key, point.entry);
      return { key: point.entry.key, score: point.score };
    }),
  }));
  const fused = form.kind === 'rrf' ? fuseRrf(lists, form.k, form.weights) : fuseDbsf(lists);
  const points = fused.slice(0, limit).map((entry) => ({ entry: byKey.get(entry.key)!, score: entry.score }));
  return { order: 'larger_better', points };
}
