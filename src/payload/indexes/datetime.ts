// Datetime index: RFC 3339 strings as epoch milliseconds in value order (parsed by the same
// function the evaluator uses). Answers datetime ranges and order_by.
import { SlotSet } from '../../points/slot-set.js';
import type { FieldCondition } from '../conditions.js';
import { parseDatetime } from '../datetime.js';
import { walkOrdered } from './numeric.js';
import { compareNumbers, Postings, rangeSpan } from './postings.js';
import type { IndexAnswer, OrderedIndex } from './types.js';

function timestampOf(value: unknown): number | undefined {
  return typeof value === 'string' ? parseDatetime(value) : undefined;
}

export class DatetimeIndex implements OrderedIndex {
  readonly type = 'datetime' as const;
  private readonly ordered = new Postings<number>(compareNumbers);

  add(slot: number, values: readonly unknown[]): boolean {
    let kept = false;
    for (const value of values) {
      const timestamp = timestampOf(value);
      if (timestamp === undefined) continue;
      this.ordered.add(timestamp, slot);
      kept = true;
    }
    return kept;
  }

  remove(slot: number, values: readonly unknown[]): void {
    for (const value of values) {
      const timestamp = timestampOf(value);
      if (timestamp !== undefined) this.ordered.remove(timestamp, slot);
    }
  }

  private rangeValues(condition: FieldCondition): number[] | undefined {
    if (condition.kind !== 'datetime_range') return undefined;
    const [start, end] = rangeSpan(this.ordered, condition.bounds);
    return this.ordered.sortedValues().slice(start, end);
  }

  answer(condition: FieldCondition, capacity: number): IndexAnswer | undefined {
    const values = this.rangeValues(condition);
    return values ? { slots: this.ordered.collect(values, new SlotSet(capacity)), exact: true } : undefined;
  }

  estimate(condition: FieldCondition): number | undefined {
    const values = this.rangeValues(condition);
    return values ? this.ordered.countOf(values) : undefined;
  }

  walk(direction: 'asc' | 'desc', startFrom: number | undefined, visit: (value: number, slot: number) => boolean | void): void {
    walkOrdered(this.ordered, direction, startFrom, visit);
  }
}
