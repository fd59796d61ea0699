// Payload bytes outside the JS heap (docs/architecture.md §16). Two kinds, chosen by the
// collection's `on_disk_payload`: chunks of Buffer memory (`false`), or an append-only working
// file read with positional reads, where the OS page cache is the cache (`true`). The file is
// unlinked as soon as it is open, so it never outlives the process, a killed one included. Both only ever
// append; a rewritten payload leaves garbage that the point table counts and, past a threshold,
// compacts into a fresh arena. An arena never moves bytes it has handed out, so a point view
// made before a compaction still reads its payload from the arena it captured.
import { closeSync, mkdirSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/** Where an append landed: read it back with the same arena. */
export type PayloadLocation = number;

export interface PayloadArena {
  /**
   * Appends `bytes` (from `start` to `end` when given: a restore appends straight from a block
   * of many records, with no view made per payload); returns their location.
   */
  append(bytes: Buffer, start?: number, end?: number): PayloadLocation;
  /** The bytes at a location (a view into the arena or a fresh buffer; never kept by callers). */
  read(location: PayloadLocation, length: number): Buffer;
  /**
   * The bytes at several locations (an answer's payloads, a filter's run of candidates), in the
   * order asked; views that may share memory, kept no longer than the answer or run they serve.
   * The file arena reads payloads that lie near each other with one positional read.
   */
  readMany(locations: readonly PayloadLocation[], lengths: readonly number[]): Buffer[];
  /**
   * A reader for one pass over many payloads in about increasing location order (the point
   * table's hand-off file): like `read`, but a view it returns is valid only until its next call.
   */
  sequentialReader(): (location: PayloadLocation, length: number) => Buffer;
  /** Bytes appended so far (live and garbage). */
  readonly byteLength: number;
  /** Bytes held in memory by the arena itself (the file arena holds only its write buffer). */
  readonly residentBytes: number;
  /** Gives back the memory or closes the file; later reads are an error. */
  close(): void;
}

const twoTo32 = 4_294_967_296;

/**
 * Buffer.copy for the arenas' appends. Most payloads are a few dozen bytes, where copy()'s
 * argument checks cost more than the bytes (a third of a hand-off restore): those are copied
 * byte by byte.
 */
function copyInto(source: Buffer, start: number, end: number, target: Buffer, at: number): void {
  if (end - start > 64) {
    source.copy(target, at, start, end);
    return;
  }
  for (let position = start; position < end; position += 1) target[at + position - start] = source[position]!;
}

/** In-memory chunks; a location is chunk * 2^32 + offset. */
export class MemoryPayloadArena implements PayloadArena {
  private readonly chunks: Buffer[] = [];
  private current: Buffer | undefined;
  private used = 0;
  private appended = 0;
  private held = 0;

  constructor(private readonly chunkBytes = 4 * 1024 * 1024) {}

  get byteLength(): number {
    return this.appended;
  }

  get residentBytes(): number {
    return this.held;
  }

  append(bytes: Buffer, start = 0, end = bytes.length): PayloadLocation {
    const length = end - start;
    if (this.current === undefined || this.used + length > this.current.length) {
      // allocUnsafeSlow: a buffer of its own, never a slice of Node's shared pool.
      this.current = Buffer.allocUnsafeSlow(Math.max(this.chunkBytes, length));
      this.chunks.push(this.current);
      this.held += this.current.length;
      this.used = 0;
    }
    copyInto(bytes, start, end, this.current, this.used);
    const location = (this.chunks.length - 1) * twoTo32 + this.used;
    this.used += length;
    this.appended += length;
    return location;
  }

  read(location: PayloadLocation, length: number): Buffer {
    const chunk = this.chunks[Math.floor(location / twoTo32)];
    if (chunk === undefined) throw new Error('payload arena: read after close or outside the arena');
    const offset = location % twoTo32;
    return chunk.subarray(offset, offset + length);
  }

  readMany(locations: readonly PayloadLocation[], lengths: readonly number[]): Buffer[] {
    return locations.map((location, position) => this.read(location, lengths[position]!));
  }

  sequentialReader(): (location: PayloadLocation, length: number) => Buffer {
    return (location, length) => this.read(location, length);
  }

  close(): void {
    this.chunks.length = 0;
    this.current = undefined;
    this.held = 0;
  }
}

// Closes the descriptor of a file arena nobody references any more (a compaction's old file,
// still readable by point views made before it).
const abandonedFiles = new FinalizationRegistry<{ descriptor: number; closed: boolean }>((state) => {
  if (!state.closed) {
    state.closed = true;
    try {
      closeSync(state.descriptor);
    } catch {
      // Already closed.
    }
  }
});

/** An append-only working file; appends gather in a small buffer, written when it fills. */
export class FilePayloadArena implements PayloadArena {
  private readonly state: { descriptor: number; closed: boolean };
  private pending: Buffer;
  private pendingUsed = 0;
  /** Bytes already written to the file; later locations are in `pending`. */
  private flushed = 0;
  /**
   * Bytes whose write failed (disk full, a volume turned read-only), kept in memory by their
   * file offset: an append never fails after its write is durable in the store, so the table
   * never half-applies a committed write. After one failure the file takes no more writes.
   */
  private readonly unwritten: { start: number; bytes: Buffer }[] = [];

  /** `generation`: the owner's count of arenas so far (a compaction's file is the next one). */
  constructor(directory: string, generation: number, private readonly bufferBytes = 256 * 1024) {
    mkdirSync(directory, { recursive: true });
    // The checkpoint temporaries' name pattern: start-up removes one a kill left in the instant
    // between open and unlink (src/storage/leftover-files.ts).
    const path = join(directory, `.payloads-${generation}.tmp-${process.pid}`);
    this.state = { descriptor: openSync(path, 'w+', 0o600), closed: false };
    rmSync(path, { force: true });
    this.pending = Buffer.allocUnsafeSlow(bufferBytes);
    abandonedFiles.register(this, this.state, this);
  }

  get byteLength(): number {
    return this.flushed + this.pendingUsed;
  }

  get residentBytes(): number {
    return this.pending.length + this.unwritten.reduce((sum, kept) => sum + kept.bytes.length, 0);
  }

  /** Writes `bytes` at `position`, or keeps a copy in memory when the file cannot take them. */
  private persist(bytes: Buffer, position: number): void {
    if (this.unwritten.length === 0) {
      try {
        let written = 0;
        while (written < bytes.length) written += writeSync(this.state.descriptor, bytes, written, bytes.length - written, position + written);
        return;
      } catch {
        // Falls through: from now on this arena holds new bytes in memory.
      }
    }
    const copy = Buffer.allocUnsafeSlow(bytes.length);
    bytes.copy(copy);
    this.unwritten.push({ start: position, bytes: copy });
  }

  private flush(): void {
    this.persist(this.pending.subarray(0, this.pendingUsed), this.flushed);
    this.flushed += this.pendingUsed;
    this.pendingUsed = 0;
  }

  /** The kept copy holding `location`, when it is past the first failed write. */
  private unwrittenAt(location: number): { start: number; bytes: Buffer } | undefined {
    if (this.unwritten.length === 0 || location < this.unwritten[0]!.start) return undefined;
    let low = 0;
    let high = this.unwritten.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >>> 1;
      if (this.unwritten[middle]!.start <= location) low = middle;
      else high = middle - 1;
    }
    return this.unwritten[low];
  }

  append(bytes: Buffer, start = 0, end = bytes.length): PayloadLocation {
    if (this.state.closed) throw new Error('payload arena: append after close');
    const location = this.byteLength;
    const length = end - start;
    if (this.pendingUsed + length > this.pending.length) this.flush();
    if (length > this.pending.length) {
      this.persist(bytes.subarray(start, end), this.flushed);
      this.flushed += length;
      return location;
    }
    copyInto(bytes, start, end, this.pending, this.pendingUsed);
    this.pendingUsed += length;
    return location;
  }

  read(location: PayloadLocation, length: number): Buffer {
    if (this.state.closed) throw new Error('payload arena: read after close');
    if (location >= this.flushed) return this.pending.subarray(location - this.flushed, location - this.flushed + length);
    const kept = this.unwrittenAt(location);
    if (kept) return kept.bytes.subarray(location - kept.start, location - kept.start + length);
    const bytes = Buffer.allocUnsafe(length);
    let read = 0;
    while (read < length) {
      const got = readSync(this.state.descriptor, bytes, read, length - read, location + read);
      if (got === 0) throw new Error('payload arena: short read');
      read += got;
    }
    return bytes;
  }

  /**
   * Payloads on file whose ranges lie within `joinGapBytes` of each other are read together, up
   * to `spanBytes` a read: a scroll's hundred payloads, written one after another, cost one
   * `pread` instead of a hundred (~1 µs each through `readSync`; bench/README.md, "Payloads out
   * as stored text"). A search's ten payloads, scattered over the file, are read one by one.
   */
  readMany(locations: readonly PayloadLocation[], lengths: readonly number[], joinGapBytes = 4096, spanBytes = 256 * 1024): Buffer[] {
    const views = new Array<Buffer>(locations.length);
    const onFileUntil = this.unwritten.length === 0 ? this.flushed : this.unwritten[0]!.start;
    const onFile: number[] = [];
    for (let position = 0; position < locations.length; position += 1) {
      if (!this.state.closed && locations[position]! + lengths[position]! <= onFileUntil) onFile.push(position);
      else views[position] = this.read(locations[position]!, lengths[position]!);
    }
    onFile.sort((left, right) => locations[left]! - locations[right]!);
    for (let first = 0; first < onFile.length; ) {
      const start = locations[onFile[first]!]!;
      let end = start + lengths[onFile[first]!]!;
      let last = first;
      while (last + 1 < onFile.length) {
        const next = onFile[last + 1]!;
        const nextEnd = Math.max(end, locations[next]! + lengths[next]!);
        if (locations[next]! - end > joinGapBytes || nextEnd - start > spanBytes) break;
        end = nextEnd;
        last += 1;
      }
      const span = this.read(start, end - start);
      for (let member = first; member <= last; member += 1) {
        const position = onFile[member]!;
        views[position] = span.subarray(locations[position]! - start, locations[position]! - start + lengths[position]!);
      }
      first = last + 1;
    }
    return views;
  }

  /**
   * One positional read per window of `windowBytes` instead of one per payload: a pass over
   * 150k small payloads made 150k `pread` calls (~2 µs each, ~0.3 s of a clean stop). Reads
   * outside the window's reach (in memory, kept after a failed write, or larger than the window)
   * go through `read`.
   */
  sequentialReader(windowBytes = 1024 * 1024): (location: PayloadLocation, length: number) => Buffer {
    const window = Buffer.allocUnsafe(windowBytes);
    let windowStart = 0;
    let windowFilled = 0;
    return (location, length) => {
      if (location >= windowStart && location + length <= windowStart + windowFilled) return window.subarray(location - windowStart, location - windowStart + length);
      const onFileUntil = this.unwritten.length === 0 ? this.flushed : this.unwritten[0]!.start;
      if (this.state.closed || length > windowBytes || location + length > onFileUntil) return this.read(location, length);
      const wanted = Math.min(windowBytes, onFileUntil - location);
      let filled = 0;
      while (filled < wanted) {
        const got = readSync(this.state.descriptor, window, filled, wanted - filled, location + filled);
        if (got === 0) throw new Error('payload arena: short read');
        filled += got;
      }
      windowStart = location;
      windowFilled = filled;
      return window.subarray(0, length);
    };
  }

  close(): void {
    if (this.state.closed) return;
    this.state.closed = true;
    abandonedFiles.unregister(this);
    closeSync(this.state.descriptor);
  }
}
