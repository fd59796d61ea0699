import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../../test/support/seeded-random.js';
import { SlotSet } from '../../points/slot-set.js';
import { compareNumbers, compareStrings, denseListShare, Postings, rangeSpan } from './postings.js';

const values = ['common', 'tenth', 'rare', 'single'];

/** How often each value is held: common and tenth get bitsets, rare and single stay slot by slot. */
const shares: Record<string, number> = { common: 0.5, tenth: 0.1, rare: 0.005, single: 0.0002 };

/**
 * One random write to `slot`, mirrored in `held`: the value it holds (if any) is removed, and
 * unless the removal alone was drawn (with chance `removeOnly`), `nextValue()` is added.
 */
function randomWrite<Value extends string | number>(
  postings: Postings<Value>,
  held: Map<number, Value>,
  slot: number,
  random: () => number,
  removeOnly: number,
  nextValue: () => Value,
): void {
  const before = held.get(slot);
  if (before !== undefined) {
    postings.remove(before, slot);
    held.delete(slot);
    if (random() < removeOnly) return;
  }
  const value = nextValue();
  postings.add(value, slot);
  held.set(slot, value);
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
        randomWrite(postings, held, slot, random, 0.5, () => {
          const pick = random();
          let cumulative = 0;
          return values.find((candidate) => (cumulative += shares[candidate]!) > pick) ?? 'none';
        });
      }
      if (growing) capacity *= 2;
      for (const asked of [[values[0]!], [values[1]!], [values[2]!, values[3]!], values, ['none', 'missing']]) {
        const fast = postings.collect(asked, new SlotSet(capacity));
        const twin = postings.collectSlotBySlot(asked, new SlotSet(capacity));
        expect(fast.toArray(), `round ${round}, ${asked.join(' ')}`).toEqual(twin.toArray());
        const expected = [...held].filter(([, value]) => asked.includes(value)).map(([slot]) => slot).sort((left, right) => left - right);
        expect(fast.toArray()).toEqual(expected);
      }
      mostBitsets = Math.max(mostBitsets, postings.extraFootprint.bitsetLists);
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
    expect(postings.extraFootprint).toMatchObject({ bitsetLists: 0, bitsetBytes: 0 });

    postings.add('grows', capacity - 1);
    postings.collect(['grows'], new SlotSet(capacity));
    expect(postings.extraFootprint).toMatchObject({ bitsetLists: 1, bitsetBytes: capacity / 8 });

    // Kept while the list shrinks to half the bound, then dropped.
    for (let slot = 0; slot < bound / 2; slot += 1) postings.remove('grows', slot * 3);
    expect(postings.extraFootprint.bitsetLists).toBe(1);
    postings.remove('grows', (bound / 2) * 3);
    expect(postings.extraFootprint.bitsetLists).toBe(0);

    // A list holding every slot keeps its bitset down to its last slot, and takes it along when emptied.
    const emptied = new Postings<number>((left, right) => left - right);
    for (let slot = 0; slot < 64; slot += 1) emptied.add(1, slot);
    emptied.collect([1], new SlotSet(64));
    for (let slot = 0; slot < 63; slot += 1) emptied.remove(1, slot);
    expect(emptied.extraFootprint.bitsetLists).toBe(1);
    expect(emptied.collect([1], new SlotSet(64)).toArray()).toEqual([63]);
    emptied.remove(1, 63);
    expect(emptied.extraFootprint.bitsetLists).toBe(0);
    expect(emptied.collect([1], new SlotSet(64)).size).toBe(0);
  });

  it('a slot added past a bitset\'s capacity is found once the set grows', () => {
    const postings = new Postings<string>(compareStrings);
    for (let slot = 0; slot < 64; slot += 1) postings.add('all', slot);
    expect(postings.collect(['all'], new SlotSet(64)).size).toBe(64);
    expect(postings.extraFootprint.bitsetLists).toBe(1);
    postings.add('all', 100);
    expect(postings.extraFootprint.bitsetLists).toBe(0);
    expect(postings.collect(['all'], new SlotSet(128)).toArray()).toContain(100);
    expect(postings.collect(['all'], new SlotSet(128)).size).toBe(65);
  });

  // Floats held once each, and a few integers held by many: then no list, or some, take bitsets
  // (one run of the flat copy, or a value at a time).
  it.each([
    ['floats only', 0],
    ['floats and four integers held by many', 0.3],
  ])('a range read by sorted positions, from the Sets or from the flat copy, gives the slots and count of the same values collected one by one: %s', (_name, integerShare) => {
    const random = mulberry32(28);
    const postings = new Postings<number>(compareNumbers);
    const held = new Map<number, number>();
    const capacity = 4_096;
    let readsFromFlat = 0;
    for (let round = 0; round < 30; round += 1) {
      for (let step = 0; step < 200; step += 1) {
        randomWrite(postings, held, Math.floor(random() * capacity), random, 0.3, () =>
          random() < integerShare ? Math.floor(random() * 4) : Math.round(random() * 1e5) / 100,
        );
      }
      // A write drops the flat copy.
      expect(postings.extraFootprint.flatBytes).toBe(0);
      // Every fifth round reads on without writes, so that the flat copy is made and read too.
      for (let query = 0; query < (round % 5 === 4 ? 60 : 10); query += 1) {
        readsFromFlat += postings.extraFootprint.flatBytes > 0 ? 1 : 0;
        const [low, high] = [random() * 1_000, random() * 1_000].sort((left, right) => left - right);
        const [start, end] = rangeSpan(postings, { gte: low!, lt: high! });
        const values = postings.sortedValues().slice(start, end);
        const fast = postings.collectRange(start, end, new SlotSet(capacity));
        expect(fast.toArray(), `round ${round}, [${low}, ${high})`).toEqual(postings.collectSlotBySlot(values, new SlotSet(capacity)).toArray());
        expect(postings.countRange(start, end)).toBe(postings.countOf(values));
        const expected = [...held].filter(([, value]) => value >= low! && value < high!).map(([slot]) => slot).sort((left, right) => left - right);
        expect(fast.toArray()).toEqual(expected);
      }
    }
    expect(readsFromFlat).toBeGreaterThan(20);

    // A removal alone drops the flat copy too.
    const everything = () => postings.collectRange(0, postings.sortedValues().length, new SlotSet(capacity));
    while (postings.extraFootprint.flatBytes === 0) everything();
    const [slot, value] = [...held][0]!;
    postings.remove(value, slot);
    expect(postings.extraFootprint.flatBytes).toBe(0);
    expect(everything().has(slot)).toBe(false);
    expect(everything().size).toBe(held.size - 1);
  });
});
