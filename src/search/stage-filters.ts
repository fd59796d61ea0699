// The filters that apply to a stage: its own and those of every stage above it. A filter used
// by several stages of one request is planned once.
import type { Collection } from '../engine/collection.js';
import type { QueryEnvironment, SlotSet } from './query-environment.js';

export interface FilterUse {
  /** The filter as sent. */
  filter: unknown;
  /** Where it sits in the request, for a 400's message. */
  field: string;
}

export class StageFilters {
  // Both made on the first filter: most searches have none.
  private planned: Map<unknown, Promise<SlotSet>> | undefined;
  /** Every set this run planned or combined, given back by `release`. */
  private made: Set<SlotSet> | undefined;

  constructor(
    private readonly collection: Collection,
    private readonly environment: QueryEnvironment,
  ) {}

  /** The filters' slots intersected, or undefined when no filter applies. */
  async allowed(filters: readonly FilterUse[]): Promise<SlotSet | undefined> {
    if (filters.length === 0) return undefined;
    const planned = (this.planned ??= new Map<unknown, Promise<SlotSet>>());
    const made = (this.made ??= new Set<SlotSet>());
    let combined: SlotSet | undefined;
    for (const use of filters) {
      let pending = planned.get(use.filter);
      if (!pending) {
        pending = Promise.resolve(this.environment.allowedSlots(this.collection, use.filter, use.field));
        planned.set(use.filter, pending);
      }
      const slots = await pending;
      made.add(slots);
      combined = combined ? combined.clone().intersect(slots) : slots;
      made.add(combined);
    }
    return combined;
  }

  /**
   * Gives back every set this run made, once its answer is complete: no search that read one
   * is still running then (a failed run keeps them, in case one is). Not to be called before.
   */
  release(): void {
    if (this.made) for (const slots of this.made) slots.giveBack();
    this.made?.clear();
    this.planned?.clear();
  }
}

/** The filters as one filter for the filter module's scroll (already validated). */
export function combinedFilter(filters: readonly FilterUse[]): unknown {
  if (filters.length === 0) return undefined;
  return filters.length === 1 ? filters[0]!.filter : { must: filters.map((use) => use.filter) };
}
