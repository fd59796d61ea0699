// Which query forms a multivector (docs/api.md §20) answers: nearest (MaxSim), recommend's
// average_vector (./query-vectors.ts), and the example-based forms with MaxSim as their
// similarity (./multivector-examples.ts). MMR compares candidates with each other as single
// vectors: on a multivector it is a 400 naming the field rather than a wrong answer.
import { isMultiVectorIndex } from '../engine/multi-vector-index.js';
import { errors } from '../errors.js';
import type { VectorIndex } from '../native/vector-index.js';
import { fieldPath } from './field-path.js';
import type { QueryForm, QueryStage } from './plan.js';

export function checkMultivectorForm(index: VectorIndex, form: QueryForm, stage: QueryStage): void {
  if (!isMultiVectorIndex(index)) return;
  const field = stage.queryField ?? fieldPath(stage.field, 'query');
  if (form.kind === 'nearest' && form.mmr) throw errors.invalidField(`${field}.mmr`, `mmr is not supported on the multivector ${JSON.stringify(stage.using)}`);
}
