// What the coordinator needs to know of a stage's `query` (docs/api.md §5.2), read from the
// request as sent: which merge it takes and which way its scores point.
import { scoreOrderOf, type ScoreOrder } from '../../search/score-order.js';
import type { CollectionShape } from './collection-shape.js';

type Body = Record<string, unknown>;

export type MergeKind = 'by_id' | 'order_by' | 'sample' | 'fusion' | 'formula' | 'scored';

export function mergeKindOf(query: unknown): MergeKind {
  if (query === undefined || query === null) return 'by_id';
  if (typeof query !== 'object' || Array.isArray(query)) return 'scored';
  const form = query as Body;
  if ('order_by' in form) return 'order_by';
  if ('sample' in form) return 'sample';
  if ('fusion' in form || 'rrf' in form) return 'fusion';
  if ('formula' in form) return 'formula';
  return 'scored';
}

/** Forms ranked by the vector's own distance: nearest (any target) and recommend's average_vector. */
export function rankedByDistance(query: unknown): boolean {
  if (typeof query !== 'object' || query === null || Array.isArray(query)) return true;
  const form = query as Body;
  if ('recommend' in form) {
    const strategy = (form.recommend as Body).strategy;
    return strategy === undefined || strategy === null || strategy === 'average_vector';
  }
  if ('discover' in form || 'context' in form || 'relevance_feedback' in form) return false;
  return true;
}

/** Which way a scored stage's scores point: the distance's way for nearest forms on dense vectors, else larger-better. */
export function scoredOrder(stage: Body, shape: CollectionShape): ScoreOrder {
  const using = typeof stage.using === 'string' ? stage.using : '';
  const distance = shape.distance(using);
  return distance && rankedByDistance(stage.query) ? scoreOrderOf(distance) : 'larger_better';
}

export function hasMmr(query: unknown): boolean {
  return typeof query === 'object' && query !== null && !Array.isArray(query) && (query as Body).mmr !== undefined && (query as Body).mmr !== null;
}

export function prefetchesOf(stage: Body): Body[] {
  const prefetch = stage.prefetch;
  if (prefetch === undefined || prefetch === null) return [];
  return Array.isArray(prefetch) ? (prefetch as Body[]) : [prefetch as Body];
}

/**
 * Forms one node scores in float64 (recommend's best_score and sum_scores, discover, context,
 * relevance_feedback): their scores leave as float32 text, so a coordinator cannot fuse them by
 * value (dbsf) bit for bit; ranks (rrf) are unaffected.
 */
export function scoresInFloat64(stage: Body): boolean {
  return mergeKindOf(stage.query) === 'scored' && !rankedByDistance(stage.query);
}
