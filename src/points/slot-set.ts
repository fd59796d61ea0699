// A set of slots as a bitset: the planner's currency and, as bytes, the kernel's `allowed`
// argument (little-endian bit order: bit `slot % 8` of byte `slot >> 3`, see
// src/native/vector-index.ts). Words are 32-bit for speed; on a little-endian host their bytes
// are exactly that layout, and the module refuses to load anywhere else rather than lie.
import { endianness } from 'node:os';

if (endianness() !== 'LE') throw new Error('SlotSet needs a little-endian host: its words double as the kernel bitset');

function popcount(word: number): number {
  let bits = word - ((word >>> 1) & 0x55555555);
  bits = (bits & 0x33333333) + ((bits >>> 2) & 0x33333333);
  return (((bits + (bits >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/**
 * Word arrays of sets given back (`giveBack`), by capacity, for `take` to hand out again. A
 * filtered search at 100k slots made two 16 KiB sets per request and dropped them; V8 counts an
 * ArrayBuffer's memory as external, and at a few thousand requests a second those drove every
 * scavenge ("external memory pressure") and a mark-compact every ~150 ms (bench/README.md,
 * "Filtered search's external memory"). Bounded: at most `spareByteLimit` bytes wait here.
 */
const spareWords = new Map<number, Uint32Array[]>();
let spareBytes = 0;
const spareByteLimit = 8 * 1024 * 1024;

/** Words of a given-back set of `capacity`, as they were left, taken off the spare list; undefined if none waits. */
function spareWordsOf(capacity: number): Uint32Array | undefined {
  const words = spareWords.get(capacity)?.pop();
  if (words !== undefined) spareBytes -= words.byteLength;
  return words;
}

export class SlotSet {
  readonly words: Uint32Array;
  private givenBack = false;
  /** Held by more than one reader (a cache of filter answers): never given back, never changed. */
  private isShared = false;

  /**
   * An empty set able to hold slots 0 .. capacity-1. `words`: given-back words of that capacity,
   * passed by `take` (cleared) and `clone` (overwritten) only; one constructor keeps every set of
   * one shape for V8.
   */
  constructor(
    readonly capacity: number,
    words?: Uint32Array,
  ) {
    this.words = words ?? new Uint32Array(Math.ceil(capacity / 32));
  }

  /** An empty set of `capacity`, in the memory of one given back if there is one. */
  static take(capacity: number): SlotSet {
    const words = spareWordsOf(capacity);
    return words === undefined ? new SlotSet(capacity) : new SlotSet(capacity, words.fill(0));
  }

  /**
   * Gives the set's memory back for `take`. Only the set's sole holder may call it, once, and
   * nothing may read or write the set afterwards (the kernel included: give back only after the
   * search that read it has answered).
   */
  giveBack(): void {
    // A second call would hand the same memory to two sets; a shared set's other readers may
    // still be reading it (a search in flight on the kernel's threads).
    if (this.givenBack || this.isShared) return;
    this.givenBack = true;
    if (spareBytes + this.words.byteLength > spareByteLimit) return;
    let spares = spareWords.get(this.capacity);
    if (spares === undefined) {
      spares = [];
      spareWords.set(this.capacity, spares);
    }
    spares.push(this.words);
    spareBytes += this.words.byteLength;
  }

  /**
   * Marks the set as held by several readers from now on: `giveBack` does nothing, and the
   * in-place operations refuse it, so a reader that forgets the rule fails loudly instead of
   * changing another request's answer. Only its maker may call this, before handing it out.
   */
  share(): this {
    this.isShared = true;
    return this;
  }

  get shared(): boolean {
    return this.isShared;
  }

  private assertOwned(): void {
    if (this.isShared) throw new Error('a shared SlotSet cannot be changed in place: clone it first');
  }

  /** Bytes of given-back sets waiting for `take` (for the tests). */
  static spareBytes(): number {
    return spareBytes;
  }

  static fromSlots(capacity: number, slots: Iterable<number>): SlotSet {
    const set = new SlotSet(capacity);
    for (const slot of slots) set.add(slot);
    return set;
  }

  add(slot: number): void {
    if (slot < 0 || slot >= this.capacity) throw new RangeError(`slot ${slot} outside a set of capacity ${this.capacity}`);
    this.words[slot >>> 5]! |= 1 << (slot & 31);
  }

  /** Adds `slots[from .. to)`, each checked as `add` checks it: a run of a typed array at typed-array speed. */
  addAll(slots: Uint32Array, from = 0, to = slots.length): void {
    const words = this.words;
    for (let at = from; at < to; at += 1) {
      const slot = slots[at]!;
      if (slot >= this.capacity) throw new RangeError(`slot ${slot} outside a set of capacity ${this.capacity}`);
      words[slot >>> 5]! |= 1 << (slot & 31);
    }
  }

  delete(slot: number): void {
    if (slot >= 0 && slot < this.capacity) this.words[slot >>> 5]! &= ~(1 << (slot & 31));
  }

  has(slot: number): boolean {
    if (slot < 0 || slot >= this.capacity) return false;
    return (this.words[slot >>> 5]! & (1 << (slot & 31))) !== 0;
  }

  get size(): number {
    let count = 0;
    for (const word of this.words) if (word !== 0) count += popcount(word);
    return count;
  }

  clone(): SlotSet {
    // Spare words need no clearing here: the copy overwrites every one.
    const spare = spareWordsOf(this.capacity);
    if (spare === undefined) {
      const copy = new SlotSet(this.capacity);
      copy.words.set(this.words);
      return copy;
    }
    spare.set(this.words);
    return new SlotSet(this.capacity, spare);
  }

  /** In place: keeps only slots also in `other`. */
  intersect(other: SlotSet): this {
    this.assertOwned();
    const words = this.words;
    const otherWords = other.words;
    for (let position = 0; position < words.length; position += 1) words[position]! &= otherWords[position] ?? 0;
    return this;
  }

  /** In place: adds every slot of `other`. */
  union(other: SlotSet): this {
    this.assertOwned();
    const words = this.words;
    const count = Math.min(words.length, other.words.length);
    for (let position = 0; position < count; position += 1) words[position]! |= other.words[position]!;
    return this;
  }

  /** In place: removes every slot of `other`. */
  subtract(other: SlotSet): this {
    this.assertOwned();
    const words = this.words;
    const count = Math.min(words.length, other.words.length);
    for (let position = 0; position < count; position += 1) words[position]! &= ~other.words[position]!;
    return this;
  }

  /** Calls `visit` for each slot in ascending order; stops early when it returns false. */
  forEach(visit: (slot: number) => boolean | void): void {
    const words = this.words;
    for (let position = 0; position < words.length; position += 1) {
      let word = words[position]!;
      while (word !== 0) {
        const lowest = word & -word;
        const slot = position * 32 + (31 - Math.clz32(lowest));
        if (visit(slot) === false) return;
        word ^= lowest;
      }
    }
  }

  toArray(): number[] {
    const slots: number[] = [];
    this.forEach((slot) => {
      slots.push(slot);
    });
    return slots;
  }

  /** The kernel's `allowed` bitset: a view over the same memory, no copy. */
  toBytes(): Uint8Array {
    return new Uint8Array(this.words.buffer, this.words.byteOffset, Math.ceil(this.capacity / 8));
  }
}
