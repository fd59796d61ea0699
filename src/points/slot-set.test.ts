import { describe, expect, it } from 'vitest';
import { SlotSet } from './slot-set.js';

describe('slot set memory', () => {
  it('a set given back is handed out again empty, for the same capacity only', () => {
    const capacity = 4_096 + 3; // a capacity no other test uses, so its spares are this test's
    const first = SlotSet.take(capacity);
    for (const slot of [0, 31, 32, 4_098]) first.add(slot);
    const memory = first.words;
    first.giveBack();

    const other = SlotSet.take(capacity + 1);
    expect(other.words).not.toBe(memory);

    const again = SlotSet.take(capacity);
    expect(again.words).toBe(memory);
    expect(again.capacity).toBe(capacity);
    expect(again.size).toBe(0);
    expect(again.has(31)).toBe(false);

    // Nothing waits now: the next set of that capacity is new memory.
    expect(SlotSet.take(capacity).words).not.toBe(memory);

    // Given back twice, a set's memory still goes to one set only.
    again.giveBack();
    again.giveBack();
    expect(SlotSet.take(capacity).words).toBe(memory);
    expect(SlotSet.take(capacity).words).not.toBe(memory);
  });

  it('a clone is a copy in memory of its own', () => {
    const set = SlotSet.take(1_000);
    set.add(7);
    const copy = set.clone();
    copy.add(8);
    expect(copy.words).not.toBe(set.words);
    expect([set.has(8), copy.has(7), copy.has(8)]).toEqual([false, true, true]);
  });

  it('the memory waiting to be handed out again is bounded', () => {
    const capacity = 1 << 20; // 128 KiB of words a set
    const sets = Array.from({ length: 100 }, () => SlotSet.take(capacity));
    for (const set of sets) set.giveBack();
    expect(SlotSet.spareBytes()).toBeLessThanOrEqual(8 * 1024 * 1024);
    expect(SlotSet.spareBytes()).toBeGreaterThan(7 * 1024 * 1024);
    const handedOut = Array.from({ length: 100 }, () => SlotSet.take(capacity));
    expect(new Set(handedOut.map((set) => set.words)).size).toBe(100);
    expect(SlotSet.spareBytes()).toBe(0);
  });
});
