// What a query run needs from outside the collection it runs in: other collections for
// `lookup_from`, and the filter module's answer to "which slots does this filter allow".
// ./environment.ts builds the running server's one.
import type { Collection } from '../engine/collection.js';

/**
 * The slots a filter allows, as the filter module's SlotSet provides them: a bitset whose words
 * are, byte for byte, the kernel's `allowed` layout (see vector-index.ts).
 */
export interface SlotSet {
  readonly words: Uint32Array;
  has(slot: number): boolean;
  clone(): SlotSet;
  intersect(other: SlotSet): SlotSet;
  /**
   * Its memory back to the filter module for reuse, once, when done with it; a set the filter
   * module shares between requests (src/filter/filter-answers.ts) ignores it.
   */
  giveBack(): void;
}

/** What the executor needs from the world outside one collection. */
export interface QueryEnvironment {
  /** Another collection, for `lookup_from` (404 / 412 as the registry answers). */
  collectionNamed(name: string): Collection;
  /**
   * The slots of `collection` that `filter` accepts; a 400 naming `field` for a bad filter. The
   * set may be shared with other requests: read it, or clone it to change it.
   */
  allowedSlots(collection: Collection, filter: unknown, field: string): SlotSet | Promise<SlotSet>;
}
