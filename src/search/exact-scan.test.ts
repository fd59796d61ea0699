import { describe, expect, it } from 'vitest';
import { linearCongruential } from '../../test/support/seeded-random.js';
import type { PointEntry } from '../engine/collection.js';
import { exactScan, scanChunkRows } from './exact-scan.js';

/** A stand-in for the kernel's vector store: one number per slot (dimension 1); NaN = no vector. */
function storedRows(values: number[]) {
  const requests: number[] = [];
  return {
    requests,
    index: {
      dimension: 1,
      vectors(slots: Uint32Array): Float32Array {
        requests.push(slots.length);
        return Float32Array.from(slots, (slot) => values[slot]!);
      },
    },
  };
}

function entries(count: number): PointEntry[] {
  return Array.from({ length: count }, (_, slot) => ({ id: slot, key: String(slot), slot, version: 0, payload: {} }));
}

describe('exact scan', () => {
  it('exact scan — keeps the same points as scoring everything at once, across chunk boundaries', async () => {
    const next = linearCongruential(11);
    const count = scanChunkRows * 2 + 37;
    // Rounded scores so ties happen: the first point found wins a tie.
    const values = Array.from({ length: count }, () => Math.round(next() * 100));
    const { index, requests } = storedRows(values);
    for (const order of ['larger_better', 'smaller_better'] as const) {
      const output = await exactScan(index, (rows, offset) => rows[offset]!, entries(count), 25, order);
      const sign = order === 'larger_better' ? -1 : 1;
      const reference = values
        .map((score, slot) => ({ slot, score }))
        .sort((left, right) => sign * (left.score - right.score) || left.slot - right.slot)
        .slice(0, 25);
      expect(output.order).toBe(order);
      expect(output.points.map((point) => ({ slot: point.entry.slot, score: point.score }))).toEqual(reference);
    }
    // Vectors leave the kernel a chunk at a time, never all at once.
    expect(Math.max(...requests)).toBe(scanChunkRows);
  });

  it('exact scan — a point without a vector under the name is skipped, not scored', async () => {
    const { index } = storedRows([3, Number.NaN, 1, Number.NaN]);
    const output = await exactScan(index, (rows, offset) => rows[offset]!, entries(4), 10);
    expect(output.points.map((point) => point.entry.slot)).toEqual([0, 2]);
  });
});
