// A stage whose query is a formula (docs/api.md §5.5): every prefetched point, each once, gets
// the formula's value, computed from its score in each prefetch (`$score[i]`), its payload and
// the formula's conditions; the best `limit` by that value, larger first, are the answer.
// Conditions are answered by the filter module (indexes included), once per condition.
import type { Collection, PointEntry } from '../engine/collection.js';
import { evaluateFormula, type Formula } from './formula.js';
import { fieldPath } from './field-path.js';
import type { QueryEnvironment, SlotSet } from './query-environment.js';
import type { QueryStage } from './plan.js';
import type { StageOutput } from './stage-output.js';
import { TopK } from './top-k.js';

export async function formulaStage(
  collection: Collection,
  environment: QueryEnvironment,
  formula: Formula,
  stage: QueryStage,
  children: readonly StageOutput[],
  candidates: readonly PointEntry[],
  limit: number,
): Promise<StageOutput> {
  const field = fieldPath(stage.field, 'query');
  const scores = children.map((child) => new Map(child.points.map((point) => [point.entry.key, point.score])));
  const matching: SlotSet[] = [];
  for (const [index, condition] of formula.conditions.entries()) {
    matching.push(await environment.allowedSlots(collection, { must: [condition] }, formula.conditionFields[index]!));
  }
  const selector = new TopK(limit, 'larger_better');
  candidates.forEach((entry, position) => {
    const value = evaluateFormula(
      formula,
      { score: (index) => scores[index]?.get(entry.key), payload: entry.payload, matches: (index) => matching[index]!.has(entry.slot) },
      `${field}.formula`,
    );
    selector.offer(position, value);
  });
  return { order: 'larger_better', points: selector.drain().map((selected) => ({ entry: candidates[selected.position]!, score: selected.score })) };
}
