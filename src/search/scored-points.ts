// The answer of a search or query as it leaves the service: ScoredPoints (docs/api.md §3), with
// payload and vectors only when the request asked for them.
import type { Collection, PointRecord } from '../engine/collection.js';
import type { PointId } from '../points/ids.js';
import { float32RowToNumbers } from '../points/vectors.js';
import { payloadSelection, vectorSelection } from '../points/selectors.js';
import type { QueryPlan } from './plan.js';
import type { Scored } from './stage-output.js';

export interface ScoredPoint {
  id: PointId;
  version: number;
  score: number;
  payload?: PointRecord['payload'];
  vector?: PointRecord['vector'];
  order_value?: number;
}

/** Scores leave as float32 values, written in their shortest form, as Qdrant's do (all of an answer's in one kernel call). */
function wireScores(points: readonly Scored[]): number[] {
  const scores = new Float32Array(points.length);
  for (let position = 0; position < points.length; position += 1) scores[position] = points[position]!.score;
  return float32RowToNumbers(scores, 0, scores.length);
}

export function toScoredPoints(collection: Collection, points: readonly Scored[], plan: QueryPlan): ScoredPoint[] {
  if (points.length === 0) return [];
  const payload = payloadSelection(plan.withPayload, false);
  const vector = vectorSelection(plan.withVector, false);
  const entries = points.map((point) => point.entry);
  // Plain searches ask for neither payload nor vectors: build the answer without records.
  const records = payload.kind === 'none' && vector.kind === 'none' ? undefined : collection.toRecords(entries, payload, vector);
  const scores = wireScores(points);
  return points.map((point, position) => {
    const scored: ScoredPoint = { id: point.entry.id, version: point.entry.version, score: scores[position]! };
    const record = records?.[position];
    if (record?.payload !== undefined) scored.payload = record.payload;
    if (record?.vector !== undefined) scored.vector = record.vector;
    if (point.orderValue !== undefined) scored.order_value = point.orderValue;
    return scored;
  });
}
