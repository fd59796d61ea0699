// The reads a cluster refuses rather than answer inexactly (docs/architecture.md §13+): each is a
// 400 naming the feature and the field, never an approximate answer.
import { QuiverError } from '../../errors.js';

export function notInClusterMode(feature: string): QuiverError {
  return new QuiverError('invalid_input', `${feature} is not supported in cluster mode: one node would answer it differently from a merge of shards`);
}
