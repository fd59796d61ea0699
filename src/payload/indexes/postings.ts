// Posting lists: value -> slots, with the distinct values kept sorted lazily (rebuilt on the
// first ordered read after a new value appears), so bulk inserts stay O(1) each and range or
// prefix reads cost O(log values + matches).
//
// A large list also keeps its slots as a bitset, made on its first `collect` and kept in step
// by `add` and `remove`: filtered searches ask the same few large lists again and again, and
// or-ing a bitset's words in is an order of magnitude cheaper than copying the slots one by one
// out of the `Set` (docs/architecture.md §3, "Index answers as bitsets"). A range over many
// small lists (a float field) reads a flat copy of every list instead, once the reads have earned
// it (see `flat`). The slot-by-slot copy stays for the rest, and as the slow twin both are tested
// against (postings.test.ts).
import { SlotSet } from '../../points/slot-set.js';

/** A list gets a bitset once it holds at least one slot in this many of the set's capacity. */
export const denseListShare = 32;

/** See `Postings.flat`. */
interface FlatLists {
  slots: Uint32Array;
  starts: Uint32Array;
  /** The most slots one value holds: below a bitset's bound, a range is one run of `slots`. */
  longest: number;
}

export class Postings<Value extends string | number> {
  private readonly lists = new Map<Value, Set<number>>();
  /** The bitsets of large lists: every slot of the list, and nothing else, is set in it. */
  private readonly bitsets = new Map<Value, SlotSet>();
  private sorted: Value[] | undefined = [];
  /** See listsInOrder. */
  private sortedLists: Set<number>[] | undefined;
  /** Slots held, summed over the lists (a slot counted once per value it holds). */
  private slotCount = 0;
  /**
   * Every slot in the order of `sortedValues`, and where each value's slots start (`starts` has
   * one more place than there are values): a range read walks one typed array instead of a
   * `Set` per value. Made by a range read once the range reads since the last write have visited
   * as many slots one `Set` at a time as it holds, so that making it never costs more than the
   * reads before it already did; any write drops it.
   */
  private flat: FlatLists | undefined;
  /** Slots the range reads since the last write visited one `Set` at a time. */
  private rangeWork = 0;

  constructor(private readonly compare: (left: Value, right: Value) => number) {}

  add(value: Value, slot: number): void {
    let list = this.lists.get(value);
    if (!list) {
      list = new Set();
      this.lists.set(value, list);
      this.sorted = undefined;
    }
    const size = list.size;
    list.add(slot);
    if (list.size === size) return;
    this.slotCount += 1;
    this.flat = undefined;
    this.rangeWork = 0;
    const bitset = this.bitsets.get(value);
    if (bitset === undefined) return;
    // A slot past the bitset's capacity: the next `collect` makes one of the new size.
    if (slot < bitset.capacity) bitset.add(slot);
    else this.bitsets.delete(value);
  }

  remove(value: Value, slot: number): void {
    const list = this.lists.get(value);
    if (!list?.delete(slot)) return;
    this.slotCount -= 1;
    this.flat = undefined;
    this.rangeWork = 0;
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
    if (this.sorted === undefined) {
      this.sorted = [...this.lists.keys()].sort(this.compare);
      this.sortedLists = undefined;
    }
    return this.sorted;
  }

  /**
   * The lists in the order of `sortedValues`. Valid as long as that order is: a value keeps its
   * `Set` while it holds a slot, and the order is made again whenever a value comes or goes.
   */
  private listsInOrder(): readonly Set<number>[] {
    const values = this.sortedValues();
    this.sortedLists ??= values.map((value) => this.lists.get(value)!);
    return this.sortedLists;
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
      if (list) this.addList(value, list, into);
    }
    return into;
  }

  /** Adds one list's slots to `into`: its bitset at once if large, else slot by slot; returns the slots visited one by one. */
  private addList(value: Value, list: ReadonlySet<number>, into: SlotSet): number {
    const bitset = this.bitsetOf(value, list, into.capacity);
    if (bitset) {
      into.union(bitset);
      return 0;
    }
    for (const slot of list) into.add(slot);
    return list.size;
  }

  /**
   * Adds the slots of the values at sorted positions [start, end) (`rangeSpan`'s) to `into`:
   * `collect` of those values, without a copy of them or a look-up of each (a range over 10,000
   * distinct floats, bench/README.md, "Index answers as bitsets").
   */
  collectRange(start: number, end: number, into: SlotSet): SlotSet {
    const lists = this.listsInOrder();
    const values = this.sortedValues();
    const flat = this.flat ?? this.flatIfEarned();
    if (flat && flat.longest * denseListShare < into.capacity) {
      // No list is large enough for a bitset: the range's slots lie in one run.
      into.addAll(flat.slots, flat.starts[start], flat.starts[end]);
      return into;
    }
    for (let position = start; position < end; position += 1) {
      if (flat) {
        // A small list from the flat copy, without touching its `Set`; a large one below.
        const from = flat.starts[position]!;
        const to = flat.starts[position + 1]!;
        if ((to - from) * denseListShare < into.capacity) {
          into.addAll(flat.slots, from, to);
          continue;
        }
      }
      this.rangeWork += this.addList(values[position]!, lists[position]!, into);
    }
    return into;
  }

  /** `countOf` the values at sorted positions [start, end). */
  countRange(start: number, end: number): number {
    if (this.flat) return this.flat.starts[end]! - this.flat.starts[start]!;
    const lists = this.listsInOrder();
    let count = 0;
    for (let position = start; position < end; position += 1) count += lists[position]!.size;
    return count;
  }

  /** The flat copy of every list (see `flat`), made once the range reads have earned it. */
  private flatIfEarned(): FlatLists | undefined {
    if (this.rangeWork < this.slotCount) return undefined;
    const lists = this.listsInOrder();
    const slots = new Uint32Array(this.slotCount);
    const starts = new Uint32Array(lists.length + 1);
    let at = 0;
    let longest = 0;
    lists.forEach((list, position) => {
      starts[position] = at;
      longest = Math.max(longest, list.size);
      for (const slot of list) slots[at++] = slot;
    });
    starts[lists.length] = at;
    this.flat = { slots, starts, longest };
    return this.flat;
  }

  /** Adds the slots of each of `values` to `into` one by one: `collect`'s slow twin. */
  collectSlotBySlot(values: Iterable<Value>, into: SlotSet): SlotSet {
    for (const value of values) {
      const list = this.lists.get(value);
      if (list) for (const slot of list) into.add(slot);
    }
    return into;
  }

  /** What the bitsets and the flat copy cost beside the lists: how many lists hold a bitset, and bytes. */
  get extraFootprint(): { bitsetLists: number; bitsetBytes: number; flatBytes: number } {
    let bitsetBytes = 0;
    for (const bitset of this.bitsets.values()) bitsetBytes += bitset.words.byteLength;
    const flatBytes = this.flat ? this.flat.slots.byteLength + this.flat.starts.byteLength : 0;
    return { bitsetLists: this.bitsets.size, bitsetBytes, flatBytes };
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
