// The point table of one collection: id <-> slot, each point's version and payload, and which
// slots are free. A slot is the kernel's row number for a point; a slot freed by a delete is
// reused only once no read that started before the delete can still return it, so a search
// never names the wrong point.
//
// Nothing here is a JS object per point (docs/architecture.md §16): ids live in PointIdIndex's
// typed-array columns, versions and payload locations in per-slot typed arrays, and payload
// bytes (UTF-8 JSON, the same text as the stored record) in a PayloadArena, in memory or in a
// working file per `on_disk_payload`. A PointEntry handed out is a short-lived view made on
// demand; its payload is decoded the first time it is read, so a filter answered by a payload
// index never decodes a payload.
import { errors } from '../errors.js';
import { parseJsonBytes } from '../json/parse.js';
import { serializeJson } from '../json/serialize.js';
import { pointIdKey, type PointId } from '../points/ids.js';
import type { Payload } from '../points/selectors.js';
import { StoredPayload } from '../points/stored-payload.js';
import { FilePayloadArena, MemoryPayloadArena, type PayloadArena, type PayloadLocation } from './payload-arena.js';
import { PointIdIndex } from './point-id-index.js';
import { capacityFor, grown } from './typed-columns.js';

/** A live point as reads and writes see it. Views are replaced, never mutated, on every write. */
export interface PointEntry {
  readonly id: PointId;
  /** pointIdKey(id): the id as map text. */
  readonly key: string;
  readonly slot: number;
  /** The operation id that last wrote this point. */
  readonly version: number;
  readonly payload: Payload;
}

/** The columns a clean stop writes into the hand-off file (PointTable.handoffColumns). */
export interface HandoffColumns {
  readonly slotBound: number;
  readonly kinds: Uint8Array;
  readonly words: Uint32Array;
  readonly versions: Float64Array;
  readonly locations: Float64Array;
  readonly lengths: Uint32Array;
}

/** Where one block of the hand-off file keeps each column of its run of slots (byte offsets). */
export interface HandoffRun {
  first: number;
  count: number;
  kinds: number;
  words: number;
  versions: number;
  lengths: number;
  /** The live payloads, back to back, from here to the block's end. */
  payloads: number;
}

/** The bytes of `column`'s values `first..first + count - 1`. */
function bytesOf(column: Float64Array | Uint32Array, first: number, count: number): Uint8Array {
  return new Uint8Array(column.buffer, column.byteOffset + first * column.BYTES_PER_ELEMENT, count * column.BYTES_PER_ELEMENT);
}

/** Slots are u32 in the kernel; the last value is never handed out. */
const slotLimit = 0xffff_ffff;

let decodedPayloads = 0;

/** How many payloads were decoded from an arena in this process (tests prove indexes avoid it). */
export function payloadDecodeCount(): number {
  return decodedPayloads;
}

/** A point as stored in the table: id and version copied, the payload decoded on first read. */
class StoredPoint implements PointEntry {
  private decoded: Payload | undefined;
  private idKey: string | undefined;

  constructor(
    readonly id: PointId,
    readonly slot: number,
    readonly version: number,
    /** The arena the bytes were in when the view was made (a compaction never moves them there). */
    readonly arena: PayloadArena,
    readonly location: number,
    readonly length: number,
    decoded?: Payload,
    /** The payload's bytes when they were read already (viewsReadTogether), else read on first use. */
    private bytes?: Buffer,
  ) {
    this.decoded = decoded;
  }

  get key(): string {
    return (this.idKey ??= pointIdKey(this.id));
  }

  get payload(): Payload {
    if (this.decoded === undefined) {
      decodedPayloads += 1;
      this.decoded = parseJsonBytes(this.bytes ?? this.arena.read(this.location, this.length)) as Payload;
      this.bytes = undefined;
    }
    return this.decoded;
  }

  /** The payload if it was already decoded (no decode here). */
  get decodedPayload(): Payload | undefined {
    return this.decoded;
  }
}

/**
 * The whole payloads of `entries` as an answer writes them: a table view's as its stored text
 * (src/points/stored-payload.ts; the texts of views of one arena read together, `readMany`), a
 * write's own entry's as its value.
 */
export function answerPayloads(entries: readonly PointEntry[]): (Payload | StoredPayload)[] {
  const answers = new Array<Payload | StoredPayload>(entries.length);
  // Views of one table share its arena, but for views made before a compaction.
  const byArena = new Map<PayloadArena, number[]>();
  entries.forEach((entry, position) => {
    if (!(entry instanceof StoredPoint)) {
      answers[position] = entry.payload;
      return;
    }
    const positions = byArena.get(entry.arena);
    if (positions) positions.push(position);
    else byArena.set(entry.arena, [position]);
  });
  for (const [arena, positions] of byArena) {
    const views = positions.map((position) => entries[position] as StoredPoint);
    const texts = arena.readMany(views.map((view) => view.location), views.map((view) => view.length));
    positions.forEach((position, member) => (answers[position] = new StoredPayload(texts[member]!.toString('utf8'))));
  }
  return answers;
}

/** `entry` with a new version and the same payload, without decoding it. */
export function withVersion(entry: PointEntry, version: number): PointEntry {
  if (entry instanceof StoredPoint) return new StoredPoint(entry.id, entry.slot, version, entry.arena, entry.location, entry.length, entry.decodedPayload);
  return { id: entry.id, key: entry.key, slot: entry.slot, version, payload: entry.payload };
}

/** `entry` with another payload (a plain value: the table stores it on `set`). */
export function withPayload(entry: PointEntry, payload: Payload, version = entry.version): PointEntry {
  return { id: entry.id, key: entry.key, slot: entry.slot, version, payload };
}

/** Whether two entries hold the same payload value (the same stored bytes, or the same object). */
export function samePayload(left: PointEntry, right: PointEntry): boolean {
  if (left instanceof StoredPoint && right instanceof StoredPoint && left.arena === right.arena && left.location === right.location) return true;
  return left.payload === right.payload;
}

export interface PointTableOptions {
  /** `on_disk_payload`: payload bytes in a working file in `directory` instead of memory. */
  onDiskPayload?: boolean;
  /** The collection's directory (the working file's home). */
  directory?: string;
  /** Compact once garbage passes this many bytes AND the live bytes (tests set it small). */
  compactionMinimumBytes?: number;
}

export class PointTable {
  private readonly ids = new PointIdIndex();
  private versions = new Float64Array(0);
  private locations = new Float64Array(0);
  private lengths = new Uint32Array(0);
  private arena: PayloadArena;
  private liveBytes = 0;
  private compactions = 0;
  /** Slots free for new points. */
  private readonly freeSlots: number[] = [];
  /** Slots freed while reads were running; reused only once no read could still return them. */
  private pendingFreeSlots: number[] = [];
  private nextSlot = 0;
  private readsInFlight = 0;

  constructor(private readonly options: PointTableOptions = {}) {
    this.arena = this.newArena();
  }

  private newArena(): PayloadArena {
    if (!this.options.onDiskPayload || this.options.directory === undefined) return new MemoryPayloadArena();
    // A new, already unlinked file: rebuilt at every load from the store, never read back.
    try {
      return new FilePayloadArena(this.options.directory, this.compactions);
    } catch {
      // The directory cannot take a file (read-only volume, no space): payloads stay in memory.
      return new MemoryPayloadArena();
    }
  }

  get size(): number {
    return this.ids.size;
  }

  /** One past the highest slot ever used: the size a slot bitset needs. */
  get slotCapacity(): number {
    return this.nextSlot;
  }

  /** Memory the table holds outside the JS heap, and the payload arena's live and total bytes. */
  get footprint(): { columnBytes: number; arenaResidentBytes: number; payloadBytes: number; arenaBytes: number; compactions: number } {
    return {
      columnBytes: this.ids.byteLength + this.versions.byteLength + this.locations.byteLength + this.lengths.byteLength,
      arenaResidentBytes: this.arena.residentBytes,
      payloadBytes: this.liveBytes,
      arenaBytes: this.arena.byteLength,
      compactions: this.compactions,
    };
  }

  private view(slot: number): StoredPoint {
    return new StoredPoint(this.ids.idAt(slot), slot, this.versions[slot]!, this.arena, this.locations[slot]!, this.lengths[slot]!);
  }

  /**
   * Views of the points in `slots` (undefined for a free slot), their payloads' bytes read
   * together (`readMany`: neighbours in the working file in one read) and decoded only when a
   * view's payload is read. For a filter condition on a field without a payload index, checked
   * on every candidate: one positional read per payload made an exact count over 100k points
   * twice as long as with payloads in memory (bench/README.md, "Unindexed filters read payloads
   * together").
   */
  viewsReadTogether(slots: readonly number[]): (PointEntry | undefined)[] {
    const live = slots.filter((slot) => this.ids.isLive(slot));
    const bytes = this.arena.readMany(live.map((slot) => this.locations[slot]!), live.map((slot) => this.lengths[slot]!));
    let next = 0;
    return slots.map((slot) => {
      if (!this.ids.isLive(slot)) return undefined;
      return new StoredPoint(this.ids.idAt(slot), slot, this.versions[slot]!, this.arena, this.locations[slot]!, this.lengths[slot]!, undefined, bytes[next++]);
    });
  }

  /** Every live point, in slot order. */
  *values(): IterableIterator<PointEntry> {
    for (let slot = 0; slot < this.nextSlot; slot += 1) if (this.ids.isLive(slot)) yield this.view(slot);
  }

  /** Every live id, in slot order, without making a view per point (scroll's id order). */
  *liveIds(): IterableIterator<PointId> {
    for (let slot = 0; slot < this.nextSlot; slot += 1) if (this.ids.isLive(slot)) yield this.ids.idAt(slot);
  }

  byKey(key: string): PointEntry | undefined {
    const slot = this.ids.slotOfKey(key);
    return slot < 0 ? undefined : this.view(slot);
  }

  byId(id: PointId): PointEntry | undefined {
    const slot = this.ids.slotOfId(id);
    return slot < 0 ? undefined : this.view(slot);
  }

  /** The slot of a live id, or -1: a lookup without a view (a scroll's filter test). */
  slotOfId(id: PointId): number {
    return this.ids.slotOfId(id);
  }

  bySlot(slot: number): PointEntry | undefined {
    return this.ids.isLive(slot) ? this.view(slot) : undefined;
  }

  /** Whether `entry` is still the table's current state of its point (no write since the view). */
  isCurrent(entry: PointEntry): boolean {
    // Versions only grow, and a slot is reused only after the operation that freed it.
    return this.ids.isLive(entry.slot) && this.versions[entry.slot] === entry.version;
  }

  private ensureColumns(slot: number): void {
    if (slot < this.versions.length) return;
    const next = capacityFor(this.versions.length, slot);
    this.versions = grown(this.versions, next);
    this.locations = grown(this.locations, next);
    this.lengths = grown(this.lengths, next);
    this.ids.ensureSlotCapacity(next);
  }

  /**
   * Stores `entry` (new, or replacing the entry of the same id at the same slot). `payloadJson`,
   * when the caller already has it, is the payload's serialised text (no second serialisation).
   */
  set(entry: PointEntry, payloadJson?: string): void {
    const slot = entry.slot;
    this.ensureColumns(slot);
    if (this.ids.isLive(slot)) {
      this.versions[slot] = entry.version;
      // A version change of the same stored bytes (vectors updated) keeps its payload in place.
      if (entry instanceof StoredPoint && entry.arena === this.arena && entry.location === this.locations[slot]) return;
      this.liveBytes -= this.lengths[slot]!;
    } else {
      this.ids.insert(entry.id, slot);
      this.versions[slot] = entry.version;
    }
    this.storePayload(slot, Buffer.from(payloadJson ?? serializeJson(entry.payload), 'utf8'));
    this.compactIfWasteful();
  }

  private storePayload(slot: number, bytes: Buffer, start = 0, end = bytes.length): void {
    this.locations[slot] = this.arena.append(bytes, start, end);
    this.lengths[slot] = end - start;
    this.liveBytes += end - start;
  }

  /** Forgets a deleted point; its slot is not free until `retireSlots` says so. */
  remove(entry: PointEntry): void {
    if (!this.ids.isLive(entry.slot)) return;
    this.liveBytes -= this.lengths[entry.slot]!;
    this.ids.remove(entry.slot);
    this.compactIfWasteful();
  }

  /** Adds a point read from storage at start-up, straight from its record's payload text. */
  restoreRecord(id: PointId, slot: number, version: number, payloadJson: string): void {
    this.ensureColumns(slot);
    if (this.ids.isLive(slot)) this.liveBytes -= this.lengths[slot]!;
    else this.ids.insert(id, slot);
    this.versions[slot] = version;
    this.storePayload(slot, Buffer.from(payloadJson, 'utf8'));
    if (slot >= this.nextSlot) this.nextSlot = slot + 1;
  }

  /**
   * `restoreRecord` straight from the store's bytes (start-up's path, docs/architecture.md §21):
   * the id key bytes and the point record (`[format u8][slot u32 LE][version u64 LE][payload]`,
   * src/storage/point-records.ts, checked by the caller) go into the columns and the arena with
   * no id, string or object made per point.
   */
  restoreStoredRecord(idBytes: Buffer, record: Buffer): void {
    const slot = record.readUInt32LE(1);
    this.ensureColumns(slot);
    if (this.ids.isLive(slot)) this.liveBytes -= this.lengths[slot]!;
    else this.ids.insertIdBytes(idBytes, slot);
    // Operation ids stay below 2^53 (docs/architecture.md §16), so two words make the number exactly.
    this.versions[slot] = record.readUInt32LE(9) * 4_294_967_296 + record.readUInt32LE(5);
    this.storePayload(slot, record, 13, record.length);
    if (slot >= this.nextSlot) this.nextSlot = slot + 1;
  }

  /**
   * The table's columns as they are, for the clean stop's hand-off file (point-handoff.ts), read
   * only and valid until the next write: per slot below `slotBound` (one past the highest live
   * slot) the id's kind and words, and for a live slot its version and payload location and
   * length (a free slot's entries there are stale).
   */
  handoffColumns(): HandoffColumns {
    let slotBound = this.nextSlot;
    while (slotBound > 0 && !this.ids.isLive(slotBound - 1)) slotBound -= 1;
    return { slotBound, ...this.ids.columns(), versions: this.versions, locations: this.locations, lengths: this.lengths };
  }

  /**
   * Slots `first..first + run.count - 1` of an empty table's restore, straight from a checked
   * block of the hand-off file (point-handoff.ts): columns are copied whole, ids placed in the
   * hash table, and the live payloads, which follow each other in the block, appended to the
   * arena as one run. Byte order is this host's (the file is refused on a big-endian one).
   */
  restoreRun(block: Buffer, run: HandoffRun): void {
    const { first, count } = run;
    this.ensureColumns(first + count - 1);
    this.ids.restoreRun(first, count, block.subarray(run.kinds, run.kinds + count), block.subarray(run.words, run.words + count * 16));
    bytesOf(this.versions, first, count).set(block.subarray(run.versions, run.versions + count * 8));
    bytesOf(this.lengths, first, count).set(block.subarray(run.lengths, run.lengths + count * 4));
    const start = run.payloads < block.length ? this.arena.append(block, run.payloads, block.length) : 0;
    let offset = 0;
    for (let slot = first; slot < first + count; slot += 1) {
      if (!this.ids.isLive(slot)) continue;
      this.locations[slot] = start + offset;
      offset += this.lengths[slot]!;
    }
    this.liveBytes += offset;
    if (first + count > this.nextSlot) this.nextSlot = first + count;
  }

  /**
   * Room for `points` more points before a restore that knows its count (the hand-off file's
   * header): the columns and the id hash table grow once instead of doubling their way there.
   */
  reserve(points: number): void {
    this.ensureColumns(this.nextSlot + points - 1);
    this.ids.reserve(this.ids.size + points);
  }

  /**
   * Payload reads for one pass over the live points in slot order, batched by the arena
   * (`sequentialReader`); it follows the table to a new arena if a compaction replaces it.
   */
  payloadPassReader(): (location: PayloadLocation, length: number) => Buffer {
    let arena = this.arena;
    let read = arena.sequentialReader();
    return (location, length) => {
      if (arena !== this.arena) {
        arena = this.arena;
        read = arena.sequentialReader();
      }
      return read(location, length);
    };
  }

  /** Every live slot, in slot order. */
  *liveSlots(): IterableIterator<number> {
    for (let slot = 0; slot < this.nextSlot; slot += 1) if (this.ids.isLive(slot)) yield slot;
  }

  /** Adds a point read from storage at start-up. */
  restore(entry: PointEntry): void {
    this.restoreRecord(entry.id, entry.slot, entry.version, serializeJson(entry.payload));
  }

  /** Finishes start-up: free slots are the holes below the highest used slot. */
  finishRestore(): void {
    this.freeSlots.length = 0;
    for (let slot = this.nextSlot - 1; slot >= 0; slot -= 1) {
      if (!this.ids.isLive(slot)) this.freeSlots.push(slot);
    }
    this.compactIfWasteful();
  }

  /**
   * Rewrites the live payloads into a fresh arena once garbage outweighs them. Views made before
   * keep the old arena alive (and readable) until they are dropped.
   */
  private compactIfWasteful(): void {
    const garbage = this.arena.byteLength - this.liveBytes;
    if (garbage <= (this.options.compactionMinimumBytes ?? 64 * 1024 * 1024) || garbage <= this.liveBytes) return;
    this.compact();
  }

  /** Copies every live payload into a new arena (public for tests). */
  compact(): void {
    const previous = this.arena;
    // The generation names the new working file, so it must change before the arena is made.
    this.compactions += 1;
    const next = this.newArena();
    for (let slot = 0; slot < this.nextSlot; slot += 1) {
      if (!this.ids.isLive(slot)) continue;
      this.locations[slot] = next.append(previous.read(this.locations[slot]!, this.lengths[slot]!));
    }
    // The previous arena stays readable by views made before; it is closed once none is left.
    this.arena = next;
  }

  /**
   * Lets go of the payload arena (collection closed or dropped, after its reads finished): the
   * working file's descriptor is closed now; memory chunks go with the last view holding them.
   */
  close(): void {
    if (this.arena instanceof FilePayloadArena) this.arena.close();
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
    for (const slot of slots) this.pendingFreeSlots.push(slot);
  }

  /** Runs a read that may return slots; freed slots are not reused while it runs. */
  async reading<Result>(read: () => Promise<Result>): Promise<Result> {
    this.beginRead();
    try {
      return await read();
    } finally {
      this.endRead();
    }
  }

  /**
   * `reading` for a caller that awaits its read itself (a plain search, which saves the two
   * promises of `reading` and its callback): every beginRead must be paired with an endRead in
   * a `finally`.
   */
  beginRead(): void {
    this.readsInFlight += 1;
  }

  endRead(): void {
    this.readsInFlight -= 1;
  }

  /** Resolves once no read is running, or after `timeout_ms` (a read never takes this long). */
  async waitForReads(timeout_ms = 30_000): Promise<void> {
    const started = performance.now();
    while (this.readsInFlight > 0 && performance.now() - started < timeout_ms) {
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  }
}
