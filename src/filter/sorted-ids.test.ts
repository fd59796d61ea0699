import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../test/support/seeded-random.js';
import { comparePointIds, type PointId } from '../points/ids.js';
import { IdOrder, type SortedIds } from './sorted-ids.js';

function listed(order: SortedIds): PointId[] {
  return Array.from({ length: order.length }, (_unused, position) => order.at(position));
}

/** One id of each form, drawn from a small space so that the same id comes and goes often. */
function randomId(next: () => number): PointId {
  const draw = Math.floor(next() * 600);
  if (draw < 400) return draw * 7;
  if (draw < 500) return 2n ** 60n + BigInt(draw);
  return `00000000-0000-4000-8000-${draw.toString(16).padStart(12, '0')}`;
}

describe('id order for scroll', () => {
  it('id order — after any sequence of comes and goes it equals a fresh sort of the live ids, merged or re-sorted', () => {
    for (const seed of [1, 2, 3, 4]) {
      const next = mulberry32(seed);
      const live = new Set<PointId>();
      const order = new IdOrder();
      let fullSorts = 0;
      const all = () => {
        fullSorts += 1;
        return live.values();
      };
      for (let step = 0; step < 6_000; step += 1) {
        const id = randomId(next);
        if (live.has(id)) {
          live.delete(id);
          order.removed(id);
        } else {
          live.add(id);
          order.added(id);
        }
        // Read the order now and then: small batches of changes are merged, not re-sorted.
        if (next() < 0.02) {
          const current = order.current(all, live.size);
          expect(listed(current)).toEqual([...live].sort(comparePointIds));
          const probe = randomId(next);
          const position = current.position(probe);
          expect(position === 0 || comparePointIds(current.at(position - 1), probe) < 0).toBe(true);
          expect(position === current.length || comparePointIds(current.at(position), probe) >= 0).toBe(true);
        }
      }
      // The first read sorts; later ones (at most ~60 changes apart, under the 1,024 floor) merge.
      expect(fullSorts).toBe(1);
    }
  });

  it('id order — a change larger than an eighth of the collection (and the floor) sorts again', () => {
    const live = new Set<PointId>(Array.from({ length: 2_000 }, (_unused, index) => index));
    const order = new IdOrder();
    let fullSorts = 0;
    const all = () => {
      fullSorts += 1;
      return live.values();
    };
    order.current(all, live.size);
    for (let id = 5_000; id < 6_100; id += 1) {
      live.add(id);
      order.added(id);
    }
    expect(listed(order.current(all, live.size))).toEqual([...live].sort(comparePointIds));
    expect(fullSorts).toBe(2);
  });
});
