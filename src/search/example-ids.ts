// Points given by id as query examples (the nearest target, recommend positives and negatives,
// discover and context pairs, relevance_feedback's target and feedback examples) are left out of
// every result of the request, at every stage, as Qdrant does: asking "more like point 7" never
// answers "point 7".
import { parsePointId, pointIdKey } from '../points/ids.js';
import type { QueryForm, QueryStage, VectorSource } from './plan.js';

/** The vector sources a form names as examples. */
function sourcesOf(form: QueryForm | undefined): VectorSource[] {
  if (!form) return [];
  switch (form.kind) {
    case 'nearest':
      return [form.target];
    case 'recommend':
      return [...form.positive, ...form.negative];
    case 'discover':
      return [form.target, ...form.pairs.flatMap((pair) => [pair.positive, pair.negative])];
    case 'context':
      return form.pairs.flatMap((pair) => [pair.positive, pair.negative]);
    case 'relevance_feedback':
      return [form.target, ...form.feedback.map((item) => item.example)];
    default:
      return [];
  }
}

/** Keys (pointIdKey) of the points of `collectionName` that the stage tree uses as examples. */
export function exampleIdKeys(stage: QueryStage, collectionName: string, into = new Set<string>()): Set<string> {
  // Ids looked up in another collection are not this collection's points.
  if (!stage.lookupFrom || stage.lookupFrom.collection === collectionName) {
    for (const source of sourcesOf(stage.query)) {
      if (source.kind === 'point') into.add(pointIdKey(parsePointId(source.id)));
    }
  }
  for (const child of stage.prefetches) exampleIdKeys(child, collectionName, into);
  return into;
}
