import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../../test/support/seeded-random.js';
import { SlotSet } from '../../points/slot-set.js';
import { compareStrings, denseListShare, Postings } from './postings.js';

const values = ['common', 'tenth', 'rare', 'single'];

/** How often each value is held: common and tenth get bitsets, rare and single stay slot by slot. */
const shares: Record<string, number> = { common: 0.5, tenth: 0.1, rare: 0.005, single: 0.0002 };

function sortedSlots(set: SlotSet): number[] {
  return set.toArray();
}

describe('posting lists — bitsets of large lists', () => {
  it('collect gives the same slots as the slot-by-slot twin through adds, removes and capacity growth', () => {
    const random = mulberry32(20261128);
    const postings = new Postings<string>(compareStrings);
    const held = new Map<number, string>();
    let capacity = 1_024;
    let mostBitsets = 0;
    for (let round = 0; round < 40; round += 1) {
      // Writes: re-tags, removals and new slots; every tenth round some past the capacity the
      // last collect used, after which the set grows.
      const growing = round % 10 === 9;
      for (let step = 0; step < 300; step += 1) {
        const slot = growing && random() < 0.05 ? capacity + Math.floor(random() * 64) : Math.floor(random() * capacity);
        const before = held.get(slot);
        if (before !== undefined) {
          postings.remove(before, slot);
          held.delete(slot);
          if (random() < 0.5) continue;
        }
        const pick = random();
        let cumulative = 0;
        const value = values.find((candidate) => (cumulative += shares[candidate]!) > pick) ?? 'none';
        postings.add(value, slot);
        held.set(slot, value);
      }
      if (growing) capacity *= 2;
      for (const asked of [[values[0]!], [values[1]!], [values[2]!, values[3]!], values, ['none', 'missing']]) {
        const fast = postings.collect(asked, new SlotSet(capacity));
        const twin = postings.collectSlotBySlot(asked, new SlotSet(capacity));
        expect(sortedSlots(fast), `round ${round}, ${asked.join(' ')}`).toEqual(sortedSlots(twin));
        const expected = [...held].filter(([, value]) => asked.includes(value)).map(([slot]) => slot).sort((left, right) => left - right);
        expect(sortedSlots(fast)).toEqual(expected);
      }
      mostBitsets = Math.max(mostBitsets, postings.bitsetFootprint.lists);
    }
    // The run did use bitsets (common and tenth), so the comparison above was not of the twin with itself.
    expect(mostBitsets).toBeGreaterThanOrEqual(2);
  });

  it('a list gets a bitset only once it holds one slot in denseListShare of the capacity, and loses it below half that', () => {
    const capacity = 32 * denseListShare * 8;
    const postings = new Postings<string>(compareStrings);
    const bound = capacity / denseListShare;
    for (let slot = 0; slot < bound - 1; slot += 1) postings.add('grows', slot * 3);
    postings.collect(['grows'], new SlotSet(capacity));
    expect(postings.bitsetFootprint).toEqual({ lists: 0, bytes: 0 });

    postings.add('grows', capacity - 1);
    postings.collect(['grows'], new SlotSet(capacity));
    expect(postings.bitsetFootprint).toEqual({ lists: 1, bytes: capacity / 8 });

    // Kept while the list shrinks to half the bound, then dropped.
    for (let slot = 0; slot < bound / 2; slot += 1) postings.remove('grows', slot * 3);
    expect(postings.bitsetFootprint.lists).toBe(1);
    postings.remove('grows', (bound / 2) * 3);
    expect(postings.bitsetFootprint.lists).toBe(0);

    // A list holding every slot keeps its bitset down to its last slot, and takes it along when emptied.
    const emptied = new Postings<number>((left, right) => left - right);
    for (let slot = 0; slot < 64; slot += 1) emptied.add(1, slot);
    emptied.collect([1], new SlotSet(64));
    for (let slot = 0; slot < 63; slot += 1) emptied.remove(1, slot);
    expect(emptied.bitsetFootprint.lists).toBe(1);
    expect(emptied.collect([1], new SlotSet(64)).toArray()).toEqual([63]);
    emptied.remove(1, 63);
    expect(emptied.bitsetFootprint.lists).toBe(0);
    expect(emptied.collect([1], new SlotSet(64)).size).toBe(0);
  });

  it('a slot added past a bitset\'s capacity is found once the set grows', () => {
    const postings = new Postings<string>(compareStrings);
    for (let slot = 0; slot < 64; slot += 1) postings.add('all', slot);
    expect(postings.collect(['all'], new SlotSet(64)).size).toBe(64);
    expect(postings.bitsetFootprint.lists).toBe(1);
    postings.add('all', 100);
    expect(postings.bitsetFootprint.lists).toBe(0);
    expect(sortedSlots(postings.collect(['all'], new SlotSet(128)))).toContain(100);
    expect(postings.collect(['all'], new SlotSet(128)).size).toBe(65);
  });
});
