// The vectors of the write between its commit and the end of its kernel update, by slot then
// name (null: removed). An acknowledged (wait=false) write is visible from its commit, so a
// record read in that window must show its new vectors with its new payload, not none or the
// old ones. The write queue runs one write at a time, except that an upsert's store commit may
// overlap the previous upsert's kernel update (write-queue.ts runOverlapped), so this holds at
// most two writes' vectors, the later one's mark winning for a slot both touch.
import type { VectorIndex } from '../native/vector-index.js';
import { inStoredForm } from '../points/vector-datatype.js';
import { isMultiVectorIndex, normalizedRows } from './multi-vector-index.js';

export class InFlightVectors {
  private readonly bySlot = new Map<number, Map<string, Float32Array | null>>();

  /** Marks the vectors a committed write gives `slot` (null: the write removes that vector). */
  set(slot: number, vectors: Map<string, Float32Array | null>): void {
    this.bySlot.set(slot, vectors);
  }

  /**
   * Runs one write's kernel update; its vectors stop being in flight once it settles. With
   * `marks` (what the write set for each slot, same order), a slot a later write has marked
   * since keeps that later mark.
   */
  async applying(slots: readonly number[], apply: () => Promise<void>, marks?: readonly (Map<string, Float32Array | null> | undefined)[]): Promise<void> {
    try {
      await apply();
    } finally {
      slots.forEach((slot, position) => {
        if (marks === undefined || this.bySlot.get(slot) === marks[position]) this.bySlot.delete(slot);
      });
    }
  }

  /** Whether a write in flight gives `slot` the vector (true), removes it (false), or leaves it (undefined). */
  holds(slot: number, vectorName: string): boolean | undefined {
    const vector = this.bySlot.get(slot)?.get(vectorName);
    return vector === undefined ? undefined : vector !== null;
  }

  /**
   * The in-flight vector of a slot in stored form (Cosine: normalised, as the kernel stores it);
   * null when the write removes it, undefined when no write in flight touches it.
   */
  stored(slot: number, vectorName: string, index: VectorIndex): Float32Array | null | undefined {
    const vector = this.bySlot.get(slot)?.get(vectorName);
    if (vector === undefined || vector === null) return vector;
    // A multivector is float32 rows, normalised row by row under Cosine (docs/api.md §20).
    if (isMultiVectorIndex(index)) return index.distance === 'Cosine' ? normalizedRows(vector, index.dimension) : vector;
    // uint8 rows keep their integers under Cosine (docs/api.md §21).
    if (index.distance !== 'Cosine' || index.datatype === 'uint8') return inStoredForm(vector, index.datatype);
    let squares = 0;
    for (const value of vector) squares += value * value;
    const norm = Math.sqrt(squares);
    return inStoredForm(norm > 0 ? vector.map((value) => value / norm) : vector, index.datatype);
  }
}
