// The contract every payload index keeps: it indexes the values one field holds per slot and
// answers the conditions it can with the exact slots the evaluator would accept (or, when it
// says `exact: false`, a superset the planner then checks). An index changes speed, never
// results; the tests hold each index to the evaluator.
import type { FieldCondition } from '../conditions.js';
import type { SlotSet } from '../../points/slot-set.js';

export type PayloadSchemaType = 'keyword' | 'integer' | 'float' | 'bool' | 'datetime' | 'uuid' | 'text' | 'geo';

export interface IndexAnswer {
  slots: SlotSet;
  /** False: `slots` is a superset; each still needs the condition checked on its payload. */
  exact: boolean;
}

export interface PayloadIndex {
  readonly type: PayloadSchemaType;
  /** Indexes the values `slot` holds at the field (as valuesAt returns them); true if any was kept. */
  add(slot: number, values: readonly unknown[]): boolean;
  /** Undoes `add` with the same values. */
  remove(slot: number, values: readonly unknown[]): void;
  /** The slots satisfying `condition`, or undefined when this index cannot answer it. */
  answer(condition: FieldCondition, capacity: number): IndexAnswer | undefined;
  /** A cheap upper bound on the slots `answer` would return, or undefined when it cannot answer. */
  estimate(condition: FieldCondition): number | undefined;
}

/** Index of values in order (numbers, datetimes): what scroll's order_by walks. */
export interface OrderedIndex extends PayloadIndex {
  /** Visits (value, slot) pairs in value order; stops when `visit` returns false. */
  walk(direction: 'asc' | 'desc', startFrom: number | undefined, visit: (value: number, slot: number) => boolean | void): void;
}

export function isOrderedIndex(index: PayloadIndex): index is OrderedIndex {
  return typeof (index as Partial<OrderedIndex>).walk === 'function';
}
