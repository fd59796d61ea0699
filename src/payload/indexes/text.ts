// Full-text index: term -> slots, terms made by the tokenisers in ../tokenize.ts. With this
// index a text match is tokenised (the contract's one index-dependent meaning); the evaluator
// gives the same answers when told the field's text options, which is how it is tested.
import { SlotSet } from '../../points/slot-set.js';
import type { FieldCondition } from '../conditions.js';
import { documentTerms, queryTerms, type TextIndexOptions } from '../tokenize.js';
import { compareStrings, Postings } from './postings.js';
import type { IndexAnswer, PayloadIndex } from './types.js';

export class TextIndex implements PayloadIndex {
  readonly type = 'text' as const;
  private readonly postings = new Postings<string>(compareStrings);

  constructor(readonly options: TextIndexOptions) {}

  private termsOf(values: readonly unknown[]): Set<string> {
    const terms = new Set<string>();
    for (const value of values) if (typeof value === 'string') for (const term of documentTerms(value, this.options)) terms.add(term);
    return terms;
  }

  add(slot: number, values: readonly unknown[]): boolean {
    const terms = this.termsOf(values);
    for (const term of terms) this.postings.add(term, slot);
    return terms.size > 0;
  }

  remove(slot: number, values: readonly unknown[]): void {
    for (const term of this.termsOf(values)) this.postings.remove(term, slot);
  }

  answer(condition: FieldCondition, capacity: number): IndexAnswer | undefined {
    if (condition.kind !== 'match_text') return undefined;
    const slots = SlotSet.take(capacity);
    const terms = [...new Set(queryTerms(condition.text, this.options))];
    if (terms.length === 0) return { slots, exact: true };
    if (condition.mode === 'text_any') return { slots: this.postings.collect(terms, slots), exact: true };
    const lists = terms.map((term) => this.postings.get(term));
    if (lists.some((list) => list === undefined)) return { slots, exact: true };
    const ordered = (lists as ReadonlySet<number>[]).sort((left, right) => left.size - right.size);
    const [smallest, ...others] = ordered;
    for (const slot of smallest!) if (others.every((list) => list.has(slot))) slots.add(slot);
    // Having every term is necessary for a phrase but not enough: their order is checked on
    // the payload by the planner.
    return { slots, exact: condition.mode === 'text' };
  }

  estimate(condition: FieldCondition): number | undefined {
    if (condition.kind !== 'match_text') return undefined;
    const terms = [...new Set(queryTerms(condition.text, this.options))];
    if (terms.length === 0) return 0;
    const sizes = terms.map((term) => this.postings.get(term)?.size ?? 0);
    return condition.mode === 'text_any' ? sizes.reduce((sum, size) => sum + size, 0) : Math.min(...sizes);
  }
}
