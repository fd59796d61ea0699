import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../test/support/seeded-random.js';
import { pointIdKey, type PointId } from '../points/ids.js';
import { PointIdIndex } from './point-id-index.js';

/** Ids of every form: small integers (collide a lot), safe integers, above 2^53, UUIDs. */
function randomId(random: () => number): PointId {
  const form = random();
  if (form < 0.4) return Math.floor(random() * 300);
  if (form < 0.6) return Math.floor(random() * Number.MAX_SAFE_INTEGER);
  if (form < 0.8) return (1n << 53n) + BigInt(Math.floor(random() * 1e9)) * 4_000_000_007n;
  const hex = Array.from({ length: 32 }, () => Math.floor(random() * 16).toString(16)).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

describe('point id index', () => {
  it('id index — random inserts and removes agree with a plain Map twin, ids round-trip in their own form', () => {
    for (const seed of [1, 2, 3]) {
      const random = mulberry32(seed);
      const index = new PointIdIndex();
      const twin = new Map<string, number>();
      const freeSlots: number[] = [];
      let nextSlot = 0;
      for (let step = 0; step < 6000; step += 1) {
        const id = randomId(random);
        const key = pointIdKey(id);
        if (random() < 0.6) {
          if (twin.has(key)) continue;
          const slot = freeSlots.pop() ?? nextSlot++;
          index.insert(id, slot);
          twin.set(key, slot);
        } else if (twin.size > 0 && random() < 0.5) {
          // Remove an existing one (picked from the twin), so removals hit long probe runs.
          const [victimKey, victimSlot] = [...twin.entries()][Math.floor(random() * twin.size)]!;
          index.remove(victimSlot);
          twin.delete(victimKey);
          freeSlots.push(victimSlot);
        }
        expect(index.slotOfKey(key)).toBe(twin.get(key) ?? -1);
      }
      expect(index.size).toBe(twin.size);
      for (const [key, slot] of twin) {
        expect(index.slotOfKey(key)).toBe(slot);
        expect(index.isLive(slot)).toBe(true);
        expect(pointIdKey(index.idAt(slot))).toBe(key);
      }
      for (const slot of freeSlots) expect(index.isLive(slot)).toBe(false);
    }
  });

  it('id index — integers keep their type: up to 2^53 - 1 a number, above it a bigint; 2^64 - 1 fits', () => {
    const index = new PointIdIndex();
    const ids: PointId[] = [0, 1, Number.MAX_SAFE_INTEGER, 2n ** 53n, 2n ** 64n - 1n, '550e8400-e29b-41d4-a716-446655440000'];
    ids.forEach((id, slot) => index.insert(id, slot));
    ids.forEach((id, slot) => {
      expect(index.idAt(slot)).toStrictEqual(id);
      expect(index.slotOfId(id)).toBe(slot);
      expect(index.slotOfKey(pointIdKey(id))).toBe(slot);
    });
    // The integer 1 and a UUID whose words are 1, 0, 0, 0 are different keys.
    expect(index.slotOfId('00000001-0000-0000-0000-000000000000')).toBe(-1);
  });

  it('id index — reserve makes room once: the inserts after it grow nothing, and every id is still found', () => {
    const index = new PointIdIndex();
    const ids = Array.from({ length: 5_000 }, (_unused, position) => position * 7 + 1);
    ids.slice(0, 1_000).forEach((id, slot) => index.insert(id, slot));
    index.ensureSlotCapacity(5_000);
    index.reserve(5_000);
    const reserved = index.byteLength;
    ids.slice(1_000).forEach((id, position) => index.insert(id, 1_000 + position));
    expect(index.byteLength).toBe(reserved);
    ids.forEach((id, slot) => expect(index.slotOfId(id)).toBe(slot));
    expect(index.slotOfId(2)).toBe(-1);
  });
});
