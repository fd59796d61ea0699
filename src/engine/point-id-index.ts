// The id -> slot map of one collection, outside the JS heap (docs/architecture.md §16): every
// point id is a 128-bit key in typed-array columns indexed by slot (an integer id is its low and
// high u32 words, a UUID its four big-endian u32 words), and an open-addressing hash table
// (linear probing, backward-shift deletion, so no tombstones) maps a key to its slot. Typed-array
// backing stores live outside V8's old space: ten million ids cost ~170 MB here and ~0 of heap.
import type { PointId } from '../points/ids.js';
import { finalMix32 } from '../text/murmur3.js';
import { capacityFor, grown } from './typed-columns.js';

// A slot's kind, the first id column (the point hand-off file keeps it as it is: point-handoff.ts).
/** No point in this slot. */
export const freeKind = 0;
/** An unsigned integer id (number up to 2^53 - 1, bigint above). */
export const integerKind = 1;
/** A UUID id. */
export const uuidKind = 2;
/** The first byte of a stored id key (src/points/ids.ts encodePointIdBytes). */
const integerTag = 0;
const uuidTag = 1;

const twoTo32 = 4_294_967_296;
/** The largest high word of a safe integer: 2^53 - 1 = 0x1fffff * 2^32 + 0xffffffff. */
const maximumSafeHighWord = 0x1f_ffff;
/** Grow the bucket array once it is this full (linear probing stays short below ~0.7). */
const maximumLoad = 0.7;

/** The key's words chained through murmur3's finaliser: every input bit reaches every output bit. */
function hashWords(kind: number, w0: number, w1: number, w2: number, w3: number): number {
  return finalMix32(w0 ^ finalMix32(w1 ^ finalMix32(w2 ^ finalMix32(w3 ^ finalMix32(kind)))));
}

function hex8(word: number): string {
  return word.toString(16).padStart(8, '0');
}

export class PointIdIndex {
  /** Per slot: freeKind, integerKind or uuidKind. */
  private kinds = new Uint8Array(0);
  /** Per slot: four u32 key words. */
  private words = new Uint32Array(0);
  /** Per slot: the key's hash, so growth and deletion never re-hash. */
  private hashes = new Uint32Array(0);
  /** slot + 1 per bucket; 0 = empty. */
  private buckets = new Uint32Array(16);
  private mask = 15;
  private count = 0;
  // The key being looked up or inserted, decoded once (no allocation per lookup).
  private lookupKind = freeKind;
  private readonly lookupWords = new Uint32Array(4);

  get size(): number {
    return this.count;
  }

  /** Slots `0..capacity-1` can hold keys (columns grow by doubling). */
  ensureSlotCapacity(capacity: number): void {
    if (capacity <= this.kinds.length) return;
    const next = capacityFor(this.kinds.length, capacity - 1);
    this.kinds = grown(this.kinds, next);
    this.words = grown(this.words, next * 4);
    this.hashes = grown(this.hashes, next);
  }

  /** Bytes held by the columns and buckets (all outside the JS heap). */
  get byteLength(): number {
    return this.kinds.byteLength + this.words.byteLength + this.hashes.byteLength + this.buckets.byteLength;
  }

  private loadId(id: PointId): void {
    const words = this.lookupWords;
    if (typeof id === 'number') {
      this.lookupKind = integerKind;
      words[0] = id % twoTo32;
      words[1] = Math.floor(id / twoTo32);
      words[2] = 0;
      words[3] = 0;
    } else if (typeof id === 'bigint') {
      this.lookupKind = integerKind;
      words[0] = Number(id & 0xffff_ffffn);
      words[1] = Number(id >> 32n);
      words[2] = 0;
      words[3] = 0;
    } else {
      this.lookupKind = uuidKind;
      const hex = id.replaceAll('-', '');
      for (let word = 0; word < 4; word += 1) words[word] = Number.parseInt(hex.slice(word * 8, word * 8 + 8), 16);
    }
  }

  /** pointIdKey's text back into the lookup key: a hyphenated UUID, or a decimal integer. */
  private loadKey(key: string): void {
    if (key.length === 36 && key.charCodeAt(8) === 45) this.loadId(key);
    else this.loadId(key.length <= 15 ? Number(key) : BigInt(key));
  }

  private sameKey(slot: number): boolean {
    const base = slot * 4;
    const words = this.lookupWords;
    return this.kinds[slot] === this.lookupKind && this.words[base] === words[0] && this.words[base + 1] === words[1] && this.words[base + 2] === words[2] && this.words[base + 3] === words[3];
  }

  private lookup(): number {
    const words = this.lookupWords;
    let bucket = hashWords(this.lookupKind, words[0]!, words[1]!, words[2]!, words[3]!) & this.mask;
    for (;;) {
      const held = this.buckets[bucket]!;
      if (held === 0) return -1;
      if (this.sameKey(held - 1)) return held - 1;
      bucket = (bucket + 1) & this.mask;
    }
  }

  /** The slot holding `id`, or -1. */
  slotOfId(id: PointId): number {
    this.loadId(id);
    return this.lookup();
  }

  /** The slot holding the id whose pointIdKey is `key`, or -1. */
  slotOfKey(key: string): number {
    this.loadKey(key);
    return this.lookup();
  }

  /** Whether `slot` holds a point. */
  isLive(slot: number): boolean {
    return slot >= 0 && slot < this.kinds.length && this.kinds[slot] !== freeKind;
  }

  /** The id stored at a live slot, in the same form parsePointId gives. */
  idAt(slot: number): PointId {
    const base = slot * 4;
    const low = this.words[base]!;
    const high = this.words[base + 1]!;
    if (this.kinds[slot] === integerKind) {
      if (high <= maximumSafeHighWord) return high * twoTo32 + low;
      return (BigInt(high) << 32n) | BigInt(low);
    }
    const hex = hex8(low) + hex8(high) + hex8(this.words[base + 2]!) + hex8(this.words[base + 3]!);
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }

  /**
   * The lookup key from the store's id bytes (`encodePointIdBytes`: tag 0 + u64 big-endian, or
   * tag 1 + 16 UUID bytes), with no PointId made on the way: start-up reads every key this way.
   */
  private loadIdBytes(bytes: Buffer): void {
    const length = bytes.length;
    const words = this.lookupWords;
    if (bytes[0] === integerTag && length === 9) {
      this.lookupKind = integerKind;
      words[0] = bytes.readUInt32BE(5);
      words[1] = bytes.readUInt32BE(1);
      words[2] = 0;
      words[3] = 0;
    } else if (bytes[0] === uuidTag && length === 17) {
      this.lookupKind = uuidKind;
      for (let word = 0; word < 4; word += 1) words[word] = bytes.readUInt32BE(1 + word * 4);
    } else {
      throw new Error(`corrupt point id key of ${length} bytes`);
    }
  }

  /** Stores `id` at `slot` (the slot must be free and the id absent). */
  insert(id: PointId, slot: number): void {
    this.loadId(id);
    this.insertLoaded(slot);
  }

  /** `insert` from the store's id key bytes (see loadIdBytes). */
  insertIdBytes(bytes: Buffer, slot: number): void {
    this.loadIdBytes(bytes);
    this.insertLoaded(slot);
  }

  private insertLoaded(slot: number): void {
    this.ensureSlotCapacity(slot + 1);
    if ((this.count + 1) > maximumLoad * this.buckets.length) this.growBuckets();
    const words = this.lookupWords;
    const hash = hashWords(this.lookupKind, words[0]!, words[1]!, words[2]!, words[3]!);
    this.kinds[slot] = this.lookupKind;
    // Four stores, not words.set(): set() is a call with checks, a fifth of a restore's time.
    const base = slot * 4;
    this.words[base] = words[0]!;
    this.words[base + 1] = words[1]!;
    this.words[base + 2] = words[2]!;
    this.words[base + 3] = words[3]!;
    this.hashes[slot] = hash;
    this.place(slot, hash);
    this.count += 1;
  }

  private place(slot: number, hash: number): void {
    let bucket = hash & this.mask;
    while (this.buckets[bucket] !== 0) bucket = (bucket + 1) & this.mask;
    this.buckets[bucket] = slot + 1;
  }

  /**
   * The id columns as they are, for the clean stop's hand-off file (point-handoff.ts): a kind
   * byte per slot (0 free, 1 integer, 2 UUID) and four key words per slot. Read only; valid
   * until the next write.
   */
  columns(): { kinds: Uint8Array; words: Uint32Array } {
    return { kinds: this.kinds, words: this.words };
  }

  /**
   * Slots `first..first + count - 1` straight from hand-off columns (point-handoff.ts checked
   * them): `kinds` a byte per slot, `words` four u32 per slot in this host's byte order, the
   * layout `columns()` gives. The live ones are placed in the hash table; the slots must be free
   * and their ids absent (a restore fills an empty table). Returns how many were live.
   */
  restoreRun(first: number, count: number, kinds: Uint8Array, words: Uint8Array): number {
    this.ensureSlotCapacity(first + count);
    this.kinds.set(kinds, first);
    new Uint8Array(this.words.buffer, this.words.byteOffset + first * 16, count * 16).set(words);
    let live = 0;
    for (let slot = first; slot < first + count; slot += 1) {
      const kind = this.kinds[slot]!;
      if (kind === freeKind) continue;
      if (this.count + 1 > maximumLoad * this.buckets.length) this.growBuckets();
      const base = slot * 4;
      const hash = hashWords(kind, this.words[base]!, this.words[base + 1]!, this.words[base + 2]!, this.words[base + 3]!);
      this.hashes[slot] = hash;
      this.place(slot, hash);
      this.count += 1;
      live += 1;
    }
    return live;
  }

  /** Room for `count` keys without growing (a restore that knows its count: point-table.ts). */
  reserve(count: number): void {
    let buckets = this.buckets.length;
    while (count > maximumLoad * buckets) buckets *= 2;
    if (buckets > this.buckets.length) this.growBuckets(buckets);
  }

  private growBuckets(length = this.buckets.length * 2): void {
    const previous = this.buckets;
    this.buckets = new Uint32Array(length);
    this.mask = this.buckets.length - 1;
    for (const held of previous) if (held !== 0) this.place(held - 1, this.hashes[held - 1]!);
  }

  /** Frees `slot` and forgets its id. */
  remove(slot: number): void {
    if (!this.isLive(slot)) return;
    let hole = this.hashes[slot]! & this.mask;
    while (this.buckets[hole] !== slot + 1) hole = (hole + 1) & this.mask;
    // Backward shift: move later members of the probe run into the hole when their home allows.
    let next = hole;
    for (;;) {
      next = (next + 1) & this.mask;
      const held = this.buckets[next]!;
      if (held === 0) break;
      const home = this.hashes[held - 1]! & this.mask;
      const between = hole <= next ? home > hole && home <= next : home > hole || home <= next;
      if (!between) {
        this.buckets[hole] = held;
        hole = next;
      }
    }
    this.buckets[hole] = 0;
    this.kinds[slot] = freeKind;
    this.count -= 1;
  }
}
