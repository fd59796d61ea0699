// What every stage of a query produces: its points, best first, and which way its scores
// point. A stage's `score_threshold` is applied to this output, after the stage has ranked.
import type { PointEntry } from '../engine/collection.js';
import type { OrderedValue } from './order-value.js';
import { passesThreshold, type ScoreOrder } from './score-order.js';

export interface Scored {
  entry: PointEntry;
  score: number;
  /** Set by order_by queries: the payload value points were ordered by. */
  orderValue?: OrderedValue;
}

export interface StageOutput {
  order: ScoreOrder;
  points: Scored[];
}

/** The output without the points `threshold` drops; unchanged when there is no threshold. */
export function withThreshold(output: StageOutput, threshold: number | undefined): StageOutput {
  if (threshold === undefined) return output;
  return { order: output.order, points: output.points.filter((point) => passesThreshold(output.order, point.score, threshold)) };
}
