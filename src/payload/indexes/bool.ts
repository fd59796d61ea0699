// Bool index: true -> slots, false -> slots. Answers match value on a boolean.
import { SlotSet } from '../../points/slot-set.js';
import type { FieldCondition } from '../conditions.js';
import { Postings } from './postings.js';
import type { IndexAnswer, PayloadIndex } from './types.js';

export class BoolIndex implements PayloadIndex {
  readonly type = 'bool' as const;
  // 1 for true, 0 for false: Postings keys are strings or numbers.
  private readonly postings = new Postings<number>((left, right) => left - right);

  add(slot: number, values: readonly unknown[]): boolean {
    let kept = false;
    for (const value of values) {
      if (typeof value !== 'boolean') continue;
      this.postings.add(value ? 1 : 0, slot);
      kept = true;
    }
    return kept;
  }

  remove(slot: number, values: readonly unknown[]): void {
    for (const value of values) if (typeof value === 'boolean') this.postings.remove(value ? 1 : 0, slot);
  }

  answer(condition: FieldCondition, capacity: number): IndexAnswer | undefined {
    if (condition.kind !== 'match_value' || typeof condition.value !== 'boolean') return undefined;
    return { slots: this.postings.collect([condition.value ? 1 : 0], SlotSet.take(capacity)), exact: true };
  }

  estimate(condition: FieldCondition): number | undefined {
    if (condition.kind !== 'match_value' || typeof condition.value !== 'boolean') return undefined;
    return this.postings.countOf([condition.value ? 1 : 0]);
  }
}
