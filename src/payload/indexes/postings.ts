// Posting lists: value -> slots, with the distinct values kept sorted lazily (rebuilt on the
// first ordered read after a new value appears), so bulk inserts stay O(1) each and range or
// prefix reads cost O(log values + matches).
//
// A large list also keeps its slots as a bitset, made on its first `collect` and kept in step
// by `add` and `remove`: filtered searches ask the same few large lists again and again, and
// or-ing a bitset's words in is an order of magnitude cheaper than copying the slots one by one
// out of the `Set` (docs/architecture.md §3, "Index answers as bitsets"). The slot-by-slot copy
// stays for small lists, and as the slow twin the bitsets are tested against (postings.test.ts).
import { SlotSet } from '../../points/slot-set.js';

/** A list gets a bitset once it holds at least one slot in this many of the set's capacity. */
export const denseListShare = 32;

export class Postings<Value extends string | number> {
  private readonly lists = new Map<Value, Set<number>>();
  /** The bitsets of large lists: every slot of the list, and nothing else, is set in it. */
  private readonly bitsets = new Map<Value, SlotSet>();
  private sorted: Value[] | undefined = [];

  constructor(private readonly compare: (left: Value, right: Value) => number) {}

  add(value: Value, slot: number): void {
    let list = this.lists.get(value);
    if (!list) {
      list = new Set();
      this.lists.set(value, list);
      this.sorted = undefined;
    }
    list.add(slot);
    const bitset = this.bitsets.get(value);
    if (bitset === undefined) return;
    // A slot past the bitset's capacity: the next `collect` makes one of the new size.
    if (slot < bitset.capacity) bitset.add(slot);
    else this.bitsets.delete(value);
  }

  remove(value: Value, slot: number): void {
    const list = this.lists.get(value);
    if (!list) return;
    list.delete(slot);
    if (list.size === 0) {
      this.lists.delete(value);
      this.bitsets.delete(value);
      this.sorted = undefined;
      return;
    }
    const bitset = this.bitsets.get(value);
    if (bitset === undefined) return;
    // Dropped at half its making size, so that a list hovering at the bound is not remade on
    // every other request.
    if (list.size * denseListShare * 2 < bitset.capacity) this.bitsets.delete(value);
    else bitset.delete(slot);
  }

  get(value: Value): ReadonlySet<number> | undefined {
    return this.lists.get(value);
  }

  get distinctValues(): number {
    return this.lists.size;
  }

  /** Distinct values in ascending order. */
  sortedValues(): readonly Value[] {
    this.sorted ??= [...this.lists.keys()].sort(this.compare);
    return this.sorted;
  }

  /** Position of the first sorted value not below `value`. */
  lowerBound(value: Value, strict = false): number {
    const values = this.sortedValues();
    let low = 0;
    let high = values.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const order = this.compare(values[middle]!, value);
      if (order < 0 || (strict && order === 0)) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** Adds the slots of each of `values` to `into`: a large list's bitset at once, a small one slot by slot. */
  collect(values: Iterable<Value>, into: SlotSet): SlotSet {
    for (const value of values) {
      const list = this.lists.get(value);
      if (!list) continue;
      const bitset = this.bitsetOf(value, list, into.capacity);
      if (bitset) into.union(bitset);
      else for (const slot of list) into.add(slot);
    }
    return into;
  }

  /** Adds the slots of each of `values` to `into` one by one: `collect`'s slow twin. */
  collectSlotBySlot(values: Iterable<Value>, into: SlotSet): SlotSet {
    for (const value of values) {
      const list = this.lists.get(value);
      if (list) for (const slot of list) into.add(slot);
    }
    return into;
  }

  /** How many lists hold a bitset now, and their bytes (what the bitsets cost beside the lists). */
  get bitsetFootprint(): { lists: number; bytes: number } {
    let bytes = 0;
    for (const bitset of this.bitsets.values()) bytes += bitset.words.byteLength;
    return { lists: this.bitsets.size, bytes };
  }

  /** The bitset of a large list, made (or made again at a new capacity) when missing; undefined for a small one. */
  private bitsetOf(value: Value, list: ReadonlySet<number>, capacity: number): SlotSet | undefined {
    if (list.size * denseListShare < capacity) return undefined;
    const kept = this.bitsets.get(value);
    if (kept !== undefined && kept.capacity === capacity) return kept;
    const made = SlotSet.fromSlots(capacity, list);
    this.bitsets.set(value, made);
    return made;
  }

  /** Slot count summed over `values` (an upper bound: a slot may hold several). */
  countOf(values: Iterable<Value>): number {
    let count = 0;
    for (const value of values) count += this.lists.get(value)?.size ?? 0;
    return count;
  }
}

export const compareNumbers = (left: number, right: number): number => left - right;
export const compareStrings = (left: string, right: string): number => (left < right ? -1 : left > right ? 1 : 0);

/** The [start, end) positions of sorted values inside `bounds`. */
export function rangeSpan(postings: Postings<number>, bounds: { gt?: number; gte?: number; lt?: number; lte?: number }): [number, number] {
  let start = 0;
  let end = postings.sortedValues().length;
  if (bounds.gte !== undefined) start = Math.max(start, postings.lowerBound(bounds.gte));
  if (bounds.gt !== undefined) start = Math.max(start, postings.lowerBound(bounds.gt, true));
  if (bounds.lt !== undefined) end = Math.min(end, postings.lowerBound(bounds.lt));
  if (bounds.lte !== undefined) end = Math.min(end, postings.lowerBound(bounds.lte, true));
  return [start, Math.max(start, end)];
}
