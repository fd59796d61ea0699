// Filter answers kept between requests. A filtered search turns its filter into the exact set of
// live slots it accepts before the kernel walks the graph; applications send the same few
// filters (a tenant, a category, a language) thousands of times a second, and between two writes
// the answer cannot change. Resolving it again cost a 128-d filtered search over HTTP about a
// sixth of its CPU (bench/README.md, "Filter answers kept between requests").
//
// What makes a kept answer right: it is keyed by the filter's JSON text and valid only at the
// collection state it was made at (Collection.stateVersion, which every write, configuration
// change and index swap moves on). A kept set is shared (SlotSet.share): several searches read
// it at once, the kernel's threads included, so nobody may change it or give it back, and an
// answer dropped from here is left to the garbage collector, never reused.
//
// What keeps it cheap: an answer is kept only when its filter is asked twice at one state. Under
// a steady stream of writes no answer would be read again, and keeping each would only take
// memory that the request's own set would otherwise give back for the next (slot-set.ts). The
// cache is bounded in bytes of sets (config `limits.filter_answer_cache_mb`, 0 turns it off) and
// in entries, and forgets the least recently used first, across all collections of a server.
import type { SlotSet } from '../points/slot-set.js';
import type { Filter } from './types.js';

/** Filters whose JSON text is longer than this are resolved each time (long id lists, mostly). */
export const filterAnswerKeyLimit = 1_024;
/** Entries kept at most, answers and filters seen once together. */
export const filterAnswerEntryLimit = 1_024;

/** What is known of one filter of one collection. */
export interface FilterAnswer {
  /** The parsed filter (parsing depends on the text only, so it holds across states). */
  readonly parsed: Filter | undefined;
  /** The state the entry was made or last renewed at. */
  readonly version: number;
  /** The shared answer at `version`; undefined while the filter has been asked once at it. */
  readonly slots: SlotSet | undefined;
}

export class FilterAnswers {
  private readonly entries = new Map<string, FilterAnswer>();
  private bytes = 0;
  private nextOwner = 0;
  /** Reads answered from a kept set, and reads that resolved their filter, since start (for /metrics). */
  readonly reads = { kept: 0, resolved: 0 };

  /** `byteLimit`: bytes of kept sets at most; 0 keeps nothing. */
  constructor(private readonly byteLimit: number) {}

  get enabled(): boolean {
    return this.byteLimit > 0;
  }

  /** A prefix unique to one collection's filter state, for `keyOf`. */
  newOwner(): string {
    this.nextOwner += 1;
    return `${this.nextOwner}:`;
  }

  /**
   * The key of `filter` for `owner`, or undefined when it is not to be kept: too long, or not
   * JSON text at all (a big integer id; JSON.stringify refuses those).
   */
  keyOf(owner: string, filter: unknown): string | undefined {
    if (!this.enabled) return undefined;
    let text: string | undefined;
    try {
      text = JSON.stringify(filter);
    } catch {
      return undefined;
    }
    return text === undefined || text.length > filterAnswerKeyLimit ? undefined : owner + text;
  }

  /** The entry for `key`, at any state, now the most recently used. */
  find(key: string): FilterAnswer | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry;
  }

  /**
   * Records `key` at `version`, with its answer when `slots` is given (it is shared from now on,
   * and kept if it fits: a set above a quarter of the budget is not).
   */
  remember(key: string, parsed: Filter | undefined, version: number, slots?: SlotSet): void {
    this.forget(key);
    const kept = slots !== undefined && slots.words.byteLength * 4 <= this.byteLimit ? slots.share() : undefined;
    this.entries.set(key, { parsed, version, slots: kept });
    this.bytes += kept?.words.byteLength ?? 0;
    for (const [oldest] of this.entries) {
      if (this.bytes <= this.byteLimit && this.entries.size <= filterAnswerEntryLimit) break;
      this.forget(oldest);
    }
  }

  private forget(key: string): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    this.bytes -= entry.slots?.words.byteLength ?? 0;
  }

  /** Bytes of kept sets (for the tests and the budget). */
  get keptBytes(): number {
    return this.bytes;
  }

  get size(): number {
    return this.entries.size;
  }
}
