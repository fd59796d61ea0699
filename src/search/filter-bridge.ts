// The search side of filters: a request's raw filter becomes the slots it allows, planned by
// the filter module (indexes first, payload evaluation for the rest). A bad filter is a 400
// naming the exact part, e.g. `prefetch[0].filter.must[2].range.gt`.
import type { Collection } from '../engine/collection.js';
import { allowedSlots as filterModuleSlots } from '../filter/collection-filters.js';
import type { SlotSet } from './execute.js';

export function allowedSlots(collection: Collection, filter: unknown, field: string): SlotSet {
  return filterModuleSlots(collection, filter, field);
}
