// The search side of filters: turns a request's filter into the slots it allows. The filter
// module (src/filter) provides the planner; until it is wired in, a filter is refused with 400
// rather than ignored — an ignored filter would return points the caller excluded.
import type { Collection } from '../engine/collection.js';
import { errors } from '../errors.js';
import type { SlotSet } from './execute.js';

export function allowedSlots(_collection: Collection, _filter: unknown, _field: string): SlotSet {
  throw errors.filterUnavailable();
}
