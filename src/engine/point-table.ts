// The in-memory point table of one collection: id <-> slot, and which slots are free. A slot is
// the kernel's row number for a point; a slot freed by a delete is reused only once no read
// that started before the delete can still return it, so a search never names the wrong point.
import { errors } from '../errors.js';
import { pointIdKey, type PointId } from '../points/ids.js';
import type { Payload } from '../points/selectors.js';

/** A live point as held in memory. Entries are replaced, never mutated, on every write. */
export interface PointEntry {
  readonly id: PointId;
  /** pointIdKey(id): the map key. */
  readonly key: string;
  readonly slot: number;
  /** The operation id that last wrote this point. */
  readonly version: number;
  readonly payload: Payload;
}

/** Slots are u32 in the kernel; the last value is never handed out. */
const slotLimit = 0xffff_ffff;

export class PointTable {
  private readonly pointsByKey = new Map<string, PointEntry>();
  private readonly pointsBySlot: (PointEntry | undefined)[] = [];
  /** Slots free for new points. */
  private readonly freeSlots: number[] = [];
  /** Slots freed while reads were running; reused only once no read could still return them. */
  private pendingFreeSlots: number[] = [];
  private nextSlot = 0;
  private readsInFlight = 0;

  get size(): number {
    return this.pointsByKey.size;
  }

  /** One past the highest slot ever used: the size a slot bitset needs. */
  get slotCapacity(): number {
    return this.nextSlot;
  }

  /** Every live point, in no particular order. */
  values(): IterableIterator<PointEntry> {
    return this.pointsByKey.values();
  }

  byKey(key: string): PointEntry | undefined {
    return this.pointsByKey.get(key);
  }

  byId(id: PointId): PointEntry | undefined {
    return this.pointsByKey.get(pointIdKey(id));
  }

  bySlot(slot: number): PointEntry | undefined {
    return this.pointsBySlot[slot];
  }

  /** Stores `entry` (new, or replacing the entry of the same id at the same slot). */
  set(entry: PointEntry): void {
    this.pointsByKey.set(entry.key, entry);
    this.pointsBySlot[entry.slot] = entry;
  }

  /** Forgets a deleted point; its slot is not free until `retireSlots` says so. */
  remove(entry: PointEntry): void {
    this.pointsByKey.delete(entry.key);
    this.pointsBySlot[entry.slot] = undefined;
  }

  /** Adds a point read from storage at start-up. */
  restore(entry: PointEntry): void {
    this.set(entry);
    if (entry.slot >= this.nextSlot) this.nextSlot = entry.slot + 1;
  }

  /** Finishes start-up: free slots are the holes below the highest used slot. */
  finishRestore(): void {
    this.freeSlots.length = 0;
    for (let slot = this.nextSlot - 1; slot >= 0; slot -= 1) {
      if (this.pointsBySlot[slot] === undefined) this.freeSlots.push(slot);
    }
  }

  /** A slot for a new point: a free one when any is safe to reuse, else a fresh one. */
  allocateSlot(): number {
    if (this.pendingFreeSlots.length > 0 && this.readsInFlight === 0) {
      // No read that began before these slots were freed is still running: safe to reuse.
      this.freeSlots.push(...this.pendingFreeSlots);
      this.pendingFreeSlots = [];
    }
    const reused = this.freeSlots.pop();
    if (reused !== undefined) return reused;
    if (this.nextSlot >= slotLimit) throw errors.invalidInput('Collection is full: no free point slot left');
    const slot = this.nextSlot;
    this.nextSlot += 1;
    return slot;
  }

  /** Gives back slots allocated by a write that was then refused (nothing used them). */
  releaseSlots(slots: readonly number[]): void {
    this.freeSlots.push(...slots);
  }

  /** Slots of deleted points, once the kernel can no longer return them to a new search. */
  retireSlots(slots: Iterable<number>): void {
    this.pendingFreeSlots.push(...slots);
  }

  /** Runs a read that may return slots; freed slots are not reused while it runs. */
  async reading<Result>(read: () => Promise<Result>): Promise<Result> {
    this.readsInFlight += 1;
    try {
      return await read();
    } finally {
      this.readsInFlight -= 1;
    }
  }

  /** Resolves once no read is running, or after `timeout_ms` (a read never takes this long). */
  async waitForReads(timeout_ms = 30_000): Promise<void> {
    const started = performance.now();
    while (this.readsInFlight > 0 && performance.now() - started < timeout_ms) {
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  }
}
