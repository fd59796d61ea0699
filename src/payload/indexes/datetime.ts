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

  /** The sorted positions [start, end) of the values a range condition holds. */
  private rangePositions(condition: FieldCondition): [number, number] | undefined {
    if (condition.kind !== 'datetime_range') return undefined;
    return rangeSpan(this.ordered, condition.bounds);
  }

  answer(condition: FieldCondition, capacity: number): IndexAnswer | undefined {
    const span = this.rangePositions(condition);
    return span ? { slots: this.ordered.collectRange(span[0], span[1], SlotSet.take(capacity)), exact: true } : undefined;
  }

  estimate(condition: FieldCondition): number | undefined {
    const span = this.rangePositions(condition);
    return span ? this.ordered.countRange(span[0], span[1]) : undefined;
  }

  walk(direction: 'asc' | 'desc', startFrom: number | undefined, visit: (value: number, slot: number) => boolean | void): void {
    walkOrdered(this.ordered, direction, startFrom, visit);
  }
}
