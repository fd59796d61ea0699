// Keyword index (and, restricted to UUID-shaped strings, the uuid index): exact string -> slots.
// Answers match value / any on strings and, for keywords, prefix. Strings are kept exactly as
// stored, since match is case- and form-sensitive.
import { SlotSet } from '../../points/slot-set.js';
import type { FieldCondition } from '../conditions.js';
import { compareStrings, Postings } from './postings.js';
import type { IndexAnswer, PayloadIndex } from './types.js';

const uuidShape = /^(?:urn:uuid:)?\{?[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}\}?$/i;

export class KeywordIndex implements PayloadIndex {
  private readonly postings = new Postings<string>(compareStrings);

  constructor(readonly type: 'keyword' | 'uuid' = 'keyword') {}

  /** Which strings this index holds: all for keyword, UUID-shaped ones for uuid. */
  private holds(value: unknown): value is string {
    return typeof value === 'string' && (this.type === 'keyword' || uuidShape.test(value));
  }

  add(slot: number, values: readonly unknown[]): boolean {
    let kept = false;
    for (const value of values) {
      if (!this.holds(value)) continue;
      this.postings.add(value, slot);
      kept = true;
    }
    return kept;
  }

  remove(slot: number, values: readonly unknown[]): void {
    for (const value of values) if (this.holds(value)) this.postings.remove(value, slot);
  }

  /** The strings a condition looks up, or undefined when the index cannot answer it. */
  private lookups(condition: FieldCondition): string[] | undefined {
    if (condition.kind === 'match_value') return this.holds(condition.value) ? [condition.value] : undefined;
    if (condition.kind === 'match_any') {
      if (condition.values.length === 0) return [];
      const values = condition.values as unknown[];
      // A looked-up string the index cannot hold could still be in a payload: only the
      // evaluator can answer then.
      return values.every((value) => this.holds(value)) ? (values as string[]) : undefined;
    }
    return undefined;
  }

  private prefixValues(prefix: string): string[] {
    const sorted = this.postings.sortedValues();
    const found: string[] = [];
    for (let position = this.postings.lowerBound(prefix); position < sorted.length && sorted[position]!.startsWith(prefix); position += 1) {
      found.push(sorted[position]!);
    }
    return found;
  }

  answer(condition: FieldCondition, capacity: number): IndexAnswer | undefined {
    if (condition.kind === 'match_prefix') {
      if (this.type !== 'keyword') return undefined;
      return { slots: this.postings.collect(this.prefixValues(condition.prefix), SlotSet.take(capacity)), exact: true };
    }
    const lookups = this.lookups(condition);
    if (!lookups) return undefined;
    return { slots: this.postings.collect(lookups, SlotSet.take(capacity)), exact: true };
  }

  estimate(condition: FieldCondition): number | undefined {
    if (condition.kind === 'match_prefix') return this.type === 'keyword' ? this.postings.countOf(this.prefixValues(condition.prefix)) : undefined;
    const lookups = this.lookups(condition);
    return lookups ? this.postings.countOf(lookups) : undefined;
  }
}
