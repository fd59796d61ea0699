// Integer and float indexes. Range reads walk the sorted distinct values, so they cost
// O(log values + matches). Every numeric value is kept for ranges, floats included (a range
// must not miss 2.5 just because the index is "integer"); integral values are also kept under
// their exact decimal key for match value / any (bigints beyond 2^53 stay exact there).
import { SlotSet } from '../../points/slot-set.js';
import type { FieldCondition } from '../conditions.js';
import { integerKey, numericValue } from '../values.js';
import { compareNumbers, compareStrings, Postings, rangeSpan } from './postings.js';
import type { IndexAnswer, OrderedIndex } from './types.js';

export interface NumericIndexOptions {
  /** Answer match value / any (integer index `lookup`). */
  lookup: boolean;
  /** Answer ranges and order_by (integer index `range`; always on for float). */
  range: boolean;
}

export class NumericIndex implements OrderedIndex {
  private readonly exact = new Postings<string>(compareStrings);
  private readonly ordered = new Postings<number>(compareNumbers);

  constructor(
    readonly type: 'integer' | 'float',
    private readonly options: NumericIndexOptions,
  ) {}

  get supportsRange(): boolean {
    return this.options.range;
  }

  add(slot: number, values: readonly unknown[]): boolean {
    let kept = false;
    for (const value of values) {
      const number = numericValue(value);
      if (number === undefined) continue;
      kept = true;
      if (this.options.range) this.ordered.add(number, slot);
      const key = this.options.lookup ? integerKey(value) : undefined;
      if (key !== undefined) this.exact.add(key, slot);
    }
    return kept;
  }

  remove(slot: number, values: readonly unknown[]): void {
    for (const value of values) {
      const number = numericValue(value);
      if (number === undefined) continue;
      if (this.options.range) this.ordered.remove(number, slot);
      const key = this.options.lookup ? integerKey(value) : undefined;
      if (key !== undefined) this.exact.remove(key, slot);
    }
  }

  private lookups(condition: FieldCondition): string[] | undefined {
    if (!this.options.lookup) return undefined;
    if (condition.kind === 'match_value') {
      const key = integerKey(condition.value);
      return typeof condition.value === 'boolean' || key === undefined ? undefined : [key];
    }
    if (condition.kind === 'match_any') {
      if (condition.values.length === 0) return [];
      const keys = (condition.values as unknown[]).map(integerKey);
      return keys.every((key) => key !== undefined) ? (keys as string[]) : undefined;
    }
    return undefined;
  }

  /** The sorted positions [start, end) of the values a range condition holds. */
  private rangePositions(condition: FieldCondition): [number, number] | undefined {
    if (condition.kind !== 'range' || !this.options.range) return undefined;
    return rangeSpan(this.ordered, condition.bounds);
  }

  answer(condition: FieldCondition, capacity: number): IndexAnswer | undefined {
    const lookups = this.lookups(condition);
    if (lookups) return { slots: this.exact.collect(lookups, SlotSet.take(capacity)), exact: true };
    const span = this.rangePositions(condition);
    if (span) return { slots: this.ordered.collectRange(span[0], span[1], SlotSet.take(capacity)), exact: true };
    return undefined;
  }

  estimate(condition: FieldCondition): number | undefined {
    const lookups = this.lookups(condition);
    if (lookups) return this.exact.countOf(lookups);
    const span = this.rangePositions(condition);
    return span ? this.ordered.countRange(span[0], span[1]) : undefined;
  }

  walk(direction: 'asc' | 'desc', startFrom: number | undefined, visit: (value: number, slot: number) => boolean | void): void {
    walkOrdered(this.ordered, direction, startFrom, visit);
  }
}

/** Walks (value, slot) pairs in value order, slots ascending within one value. */
export function walkOrdered(
  postings: Postings<number>,
  direction: 'asc' | 'desc',
  startFrom: number | undefined,
  visit: (value: number, slot: number) => boolean | void,
): void {
  const values = postings.sortedValues();
  if (direction === 'asc') {
    for (let position = startFrom === undefined ? 0 : postings.lowerBound(startFrom); position < values.length; position += 1) {
      if (!visitValue(postings, values[position]!, visit)) return;
    }
  } else {
    for (let position = (startFrom === undefined ? values.length : postings.lowerBound(startFrom, true)) - 1; position >= 0; position -= 1) {
      if (!visitValue(postings, values[position]!, visit)) return;
    }
  }
}

function visitValue(postings: Postings<number>, value: number, visit: (value: number, slot: number) => boolean | void): boolean {
  const slots = [...(postings.get(value) ?? [])].sort(compareNumbers);
  for (const slot of slots) if (visit(value, slot) === false) return false;
  return true;
}
