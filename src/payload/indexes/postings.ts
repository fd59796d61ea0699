// Posting lists: value -> slots, with the distinct values kept sorted lazily (rebuilt on the
// first ordered read after a new value appears), so bulk inserts stay O(1) each and range or
// prefix reads cost O(log values + matches).
import { SlotSet } from '../../points/slot-set.js';

export class Postings<Value extends string | number> {
  private readonly lists = new Map<Value, Set<number>>();
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
  }

  remove(value: Value, slot: number): void {
    const list = this.lists.get(value);
    if (!list) return;
    list.delete(slot);
    if (list.size === 0) {
      this.lists.delete(value);
      this.sorted = undefined;
    }
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

  /** Adds the slots of each of `values` to `into`. */
  collect(values: Iterable<Value>, into: SlotSet): SlotSet {
    for (const value of values) {
      const list = this.lists.get(value);
      if (list) for (const slot of list) into.add(slot);
    }
    return into;
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
