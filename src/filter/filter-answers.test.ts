// The kept filter answers' own rules: what is keyed, when an answer is kept, when it is valid,
// and what bounds the memory. That a collection's answers stay right across writes is held by
// test/filter-answers.test.ts, through the server.
import { describe, expect, it } from 'vitest';
import { SlotSet } from '../points/slot-set.js';
import { FilterAnswers, filterAnswerEntryLimit, filterAnswerKeyLimit } from './filter-answers.js';
import type { Filter } from './types.js';

const parsed: Filter = { must: [], should: [], mustNot: [], minShould: undefined };
const mebibyte = 1024 * 1024;

function setOf(capacity: number, ...slots: number[]): SlotSet {
  return SlotSet.fromSlots(capacity, slots);
}

describe('filter answers', () => {
  it('keys a filter by its JSON text, prefixed by its owner, so two collections never share an answer', () => {
    const answers = new FilterAnswers(mebibyte);
    const first = answers.newOwner();
    const second = answers.newOwner();
    const filter = { must: [{ key: 'category', match: { value: 'c3' } }] };
    expect(answers.keyOf(first, filter)).toBe(first + JSON.stringify(filter));
    expect(answers.keyOf(first, filter)).not.toBe(answers.keyOf(second, filter));
  });

  it('does not key a filter longer than the key limit, one holding a big integer, or anything when the budget is 0', () => {
    const answers = new FilterAnswers(mebibyte);
    const owner = answers.newOwner();
    const ids = Array.from({ length: filterAnswerKeyLimit }, (_, id) => id);
    expect(answers.keyOf(owner, { must: [{ has_id: ids }] })).toBeUndefined();
    expect(answers.keyOf(owner, { must: [{ has_id: [18_446_744_073_709_551_615n] }] })).toBeUndefined();
    expect(answers.keyOf(owner, undefined)).toBeUndefined();
    expect(new FilterAnswers(0).keyOf(owner, { must: [] })).toBeUndefined();
  });

  it('keeps an answer only when given one, and shares it from then on', () => {
    const answers = new FilterAnswers(mebibyte);
    answers.remember('a', parsed, 7);
    expect(answers.find('a')).toEqual({ parsed, version: 7, slots: undefined });
    expect(answers.keptBytes).toBe(0);
    const slots = setOf(64, 1, 5);
    answers.remember('a', parsed, 7, slots);
    expect(answers.find('a')?.slots).toBe(slots);
    expect(slots.shared).toBe(true);
    expect(answers.keptBytes).toBe(slots.words.byteLength);
  });

  it('a shared set ignores giveBack and refuses to be changed in place, while its clone is the caller own', () => {
    const shared = setOf(64, 3, 40).share();
    const sparesBefore = SlotSet.spareBytes();
    shared.giveBack();
    expect(SlotSet.spareBytes()).toBe(sparesBefore);
    expect(() => shared.intersect(setOf(64, 3))).toThrow(/shared/);
    expect(() => shared.union(setOf(64, 4))).toThrow(/shared/);
    expect(() => shared.subtract(setOf(64, 3))).toThrow(/shared/);
    expect(shared.toArray()).toEqual([3, 40]);
    const copy = shared.clone().intersect(setOf(64, 40));
    expect(copy.shared).toBe(false);
    expect(copy.toArray()).toEqual([40]);
    expect(shared.toArray()).toEqual([3, 40]);
  });

  it('renewing an entry at a new state drops its old answer from the budget', () => {
    const answers = new FilterAnswers(mebibyte);
    answers.remember('a', parsed, 1, setOf(1024, 1));
    expect(answers.keptBytes).toBe(128);
    answers.remember('a', parsed, 2);
    expect(answers.keptBytes).toBe(0);
    expect(answers.find('a')).toEqual({ parsed, version: 2, slots: undefined });
  });

  it('forgets the least recently used answers first when the byte budget is full', () => {
    // A set of 8,192 slots is 1 KiB: a 4 KiB budget holds four.
    const answers = new FilterAnswers(4096);
    for (const key of ['a', 'b', 'c', 'd']) answers.remember(key, parsed, 1, setOf(8192, 1));
    answers.find('a');
    answers.remember('e', parsed, 1, setOf(8192, 2));
    expect(answers.find('b')).toBeUndefined();
    expect(answers.find('a')?.slots?.toArray()).toEqual([1]);
    expect(answers.find('e')?.slots?.toArray()).toEqual([2]);
    expect(answers.keptBytes).toBe(4096);
  });

  it('never keeps a set above a quarter of the budget, and leaves it the caller own', () => {
    const answers = new FilterAnswers(4096);
    const large = setOf(8192 * 2, 9);
    answers.remember('big', parsed, 1, large);
    expect(answers.find('big')).toEqual({ parsed, version: 1, slots: undefined });
    expect(large.shared).toBe(false);
    expect(answers.keptBytes).toBe(0);
  });

  it('holds at most the entry limit, answers and filters seen once together', () => {
    const answers = new FilterAnswers(mebibyte);
    for (let key = 0; key < filterAnswerEntryLimit + 10; key += 1) answers.remember(String(key), parsed, 1);
    expect(answers.size).toBe(filterAnswerEntryLimit);
    expect(answers.find('0')).toBeUndefined();
    expect(answers.find(String(filterAnswerEntryLimit + 9))).toBeDefined();
  });
});
