// The point table handed from a clean stop to the next start (docs/architecture.md §21; the
// layout is in §5.3). Streaming the point records out of the store costs a start about 5 µs per
// point on the JS thread (classic-level makes two Buffers per record), ~1 s for 150k points. So
// a clean stop writes the point table's own columns (ids, versions, payload lengths, then the
// payload bytes) into one file of checksummed blocks (the hand-off file, points.qvp), and the
// next start copies them back column by column when the file is whole and matches the store
// exactly: the same binding (database and collection incarnation) and the same last operation.
// Format 1 held the store's records point by point and cost ~1 µs per point to restore.
//
// The file is one-shot: the start that finds it deletes it (durably) before the collection
// serves, used or refused, so it can never be paired later with a store that has moved on.
// Every other start (after a crash, say) reads the store, as before.
import { open, type FileHandle } from 'node:fs/promises';
import { endianness } from 'node:os';
import { join } from 'node:path';
import { removeFileDurably, replaceFileAtomically } from '../storage/atomic-file.js';
import { crc32c } from '../storage/crc32c.js';
import { freeKind, integerKind, uuidKind } from './point-id-index.js';
import type { HandoffRun, PointTable } from './point-table.js';

const magic = Buffer.from('QUIVERPT', 'latin1');
export const pointHandoffFormat = 2;
/** The columns are copied as the host holds them: little-endian, as the file says. */
const littleEndianHost = endianness() === 'LE';
/** Per slot: kind u8, four id words u32, version f64, payload length u32. */
const slotBytes = 1 + 16 + 8 + 4;
/** A block's run header: first slot u32, slot count u32. */
const runHeaderBytes = 8;
/** Points are written in blocks of about this size, each with its own checksum. */
const blockBytes = 1 << 20;
const blockHeaderBytes = 8;
/** A block larger than this is damage (one record never comes near it: payloads are bounded). */
const blockLimit = 1 << 30;
const twoTo32 = 4_294_967_296;

export function pointHandoffPath(directory: string): string {
  return join(directory, 'points.qvp');
}

/** The header: magic | format u32 | last operation u64 | points u64 | binding length u32 | binding | CRC-32C u32. */
function header(binding: string, lastOperationId: number, points: number): Buffer {
  const bindingBytes = Buffer.from(binding, 'utf8');
  const bytes = Buffer.alloc(8 + 4 + 8 + 8 + 4 + bindingBytes.length + 4);
  magic.copy(bytes, 0);
  bytes.writeUInt32LE(pointHandoffFormat, 8);
  bytes.writeUInt32LE(lastOperationId % twoTo32, 12);
  bytes.writeUInt32LE(Math.floor(lastOperationId / twoTo32), 16);
  bytes.writeUInt32LE(points % twoTo32, 20);
  bytes.writeUInt32LE(Math.floor(points / twoTo32), 24);
  bytes.writeUInt32LE(bindingBytes.length, 28);
  bindingBytes.copy(bytes, 32);
  bytes.writeUInt32LE(crc32c(bytes.subarray(0, bytes.length - 4)), bytes.length - 4);
  return bytes;
}

/** Fills in a block's `[length u32][CRC-32C u32]` and returns the used part. */
function sealed(block: Buffer, used: number): Buffer {
  block.writeUInt32LE(used - blockHeaderBytes, 0);
  block.writeUInt32LE(crc32c(block.subarray(blockHeaderBytes, used)), 4);
  return block.subarray(0, used);
}

/**
 * The file, a block at a time: header, then blocks each holding a run of consecutive slots
 * (from slot 0 to one past the highest live one) as `[first u32][count u32]`, the run's kinds,
 * id words, versions and payload lengths (zero for a free slot), then its live payloads in slot
 * order; an empty end block.
 */
function* handoffContents(table: PointTable, binding: string, lastOperationId: number): Generator<Buffer> {
  yield header(binding, lastOperationId, table.size);
  const columns = table.handoffColumns();
  const readPayload = table.payloadPassReader();
  const { kinds, words, versions, locations, lengths } = columns;
  const wordBytes = new Uint8Array(words.buffer, words.byteOffset, words.byteLength);
  for (let first = 0; first < columns.slotBound; ) {
    // As many slots as fit in a block (at least one, whatever its payload's size).
    let count = 0;
    let payloadBytes = 0;
    while (first + count < columns.slotBound) {
      const slot = first + count;
      const payload = kinds[slot] === freeKind ? 0 : lengths[slot]!;
      if (count > 0 && runHeaderBytes + (count + 1) * slotBytes + payloadBytes + payload > blockBytes) break;
      payloadBytes += payload;
      count += 1;
    }
    const block = Buffer.allocUnsafe(blockHeaderBytes + runHeaderBytes + count * slotBytes + payloadBytes);
    const run = runLayout(blockHeaderBytes, first, count);
    block.writeUInt32LE(first, blockHeaderBytes);
    block.writeUInt32LE(count, blockHeaderBytes + 4);
    block.set(kinds.subarray(first, first + count), run.kinds);
    block.set(wordBytes.subarray(first * 16, (first + count) * 16), run.words);
    let at = run.payloads;
    for (let index = 0; index < count; index += 1) {
      const slot = first + index;
      const live = kinds[slot] !== freeKind;
      block.writeDoubleLE(live ? versions[slot]! : 0, run.versions + index * 8);
      block.writeUInt32LE(live ? lengths[slot]! : 0, run.lengths + index * 4);
      if (live) {
        readPayload(locations[slot]!, lengths[slot]!).copy(block, at);
        at += lengths[slot]!;
      }
    }
    yield sealed(block, block.length);
    first += count;
  }
  yield sealed(Buffer.alloc(blockHeaderBytes), blockHeaderBytes);
}

/** Where a block body starting at `start` keeps the columns of its run of `count` slots. */
function runLayout(start: number, first: number, count: number): HandoffRun {
  const kinds = start + runHeaderBytes;
  const words = kinds + count;
  const versions = words + count * 16;
  const lengths = versions + count * 8;
  const payloads = lengths + count * 4;
  return { first, count, kinds, words, versions, lengths, payloads };
}

/** Writes the hand-off file of `table` (atomically: the old file or the new one, never half of one). */
export async function writePointHandoff(directory: string, table: PointTable, binding: string, lastOperationId: number): Promise<void> {
  // The columns go out in the host's byte order; a big-endian host leaves the next start to read
  // the store instead.
  if (!littleEndianHost) return;
  await replaceFileAtomically(pointHandoffPath(directory), handoffContents(table, binding, lastOperationId));
}

/** Why a hand-off file was not used; thrown inside this module only. */
class Refused extends Error {}

/** One block's run of slots, its columns at offsets into `block` (PointTable.restoreRun). */
type Visit = (block: Buffer, run: HandoffRun) => void;

/** What a load does with a whole file's points: `reserve` once with their count, then `run` per block. */
export interface HandoffRestore {
  reserve?: (points: number) => void;
  run: Visit;
}

/** Reads `length` bytes at `position` into `buffer`; a short read means the file changed under us. */
async function readExactly(handle: FileHandle, buffer: Buffer, length: number, position: number): Promise<void> {
  const { bytesRead } = await handle.read(buffer, 0, length, position);
  if (bytesRead !== length) throw new Refused(`the file ended early at offset ${position + bytesRead}`);
}

/** A file at most this large is checked and restored from one read; a larger one is read twice. */
const defaultKeptBytesLimit = 256 * 1024 * 1024;

/** The file's blocks after its header, each read whole and checked against its checksum. */
async function* checkedBlocks(handle: FileHandle, start: number, size: number): AsyncGenerator<Buffer> {
  let position = start;
  const blockHeader = Buffer.alloc(blockHeaderBytes);
  for (;;) {
    if (position + blockHeaderBytes > size) throw new Refused('the file ends before its end block');
    await readExactly(handle, blockHeader, blockHeaderBytes, position);
    position += blockHeaderBytes;
    const length = blockHeader.readUInt32LE(0);
    if (length === 0) {
      if (position !== size) throw new Refused('bytes follow the end block');
      return;
    }
    if (length > blockLimit || position + length > size) throw new Refused(`a block at offset ${position - blockHeaderBytes} runs past the end of the file`);
    const block = Buffer.allocUnsafe(length);
    await readExactly(handle, block, length, position);
    if (crc32c(block) !== blockHeader.readUInt32LE(4)) throw new Refused(`the block at offset ${position - blockHeaderBytes} fails its checksum`);
    position += length;
    yield block;
  }
}

/** What the blocks so far have held: the next slot a run must start at, and live points. */
interface Walked {
  nextSlot: number;
  points: number;
}

/**
 * Checks one block's run against the layout (handoffContents) and hands it to `visit` when
 * given: it starts where the last one ended, its kinds are known, an integer id has no UUID
 * words, a free slot has no version or payload, a live slot's version is an operation id the
 * file covers, and the payload lengths add up to the bytes that follow.
 */
function walkBlock(block: Buffer, walked: Walked, lastOperationId: number, visit?: Visit): void {
  if (block.length < runHeaderBytes) throw new Refused('a block is too short for its run header');
  const first = block.readUInt32LE(0);
  const count = block.readUInt32LE(4);
  if (first !== walked.nextSlot) throw new Refused(`a block starts at slot ${first}, not ${walked.nextSlot}`);
  if (count === 0 || first + count > 0xffff_ffff || runHeaderBytes + count * slotBytes > block.length) throw new Refused('a block\'s run of slots does not fit it');
  const run = runLayout(0, first, count);
  // A DataView's reads compile to plain loads; Buffer's read methods check their bounds each time.
  const view = new DataView(block.buffer, block.byteOffset, block.length);
  let payloadBytes = 0;
  let live = 0;
  for (let index = 0; index < count; index += 1) {
    const kind = block[run.kinds + index]!;
    const version = view.getFloat64(run.versions + index * 8, true);
    const length = view.getUint32(run.lengths + index * 4, true);
    if (kind === freeKind) {
      if (version !== 0 || length !== 0) throw new Refused(`free slot ${first + index} has a version or a payload`);
      continue;
    }
    if (kind !== integerKind && kind !== uuidKind) throw new Refused(`slot ${first + index} has an unknown id kind ${kind}`);
    if (kind === integerKind && (view.getUint32(run.words + index * 16 + 8, true) !== 0 || view.getUint32(run.words + index * 16 + 12, true) !== 0)) {
      throw new Refused(`slot ${first + index} has an integer id wider than 64 bits`);
    }
    if (!Number.isInteger(version) || version < 1 || version > lastOperationId) throw new Refused(`slot ${first + index} has version ${version}, outside the file's operations`);
    payloadBytes += length;
    live += 1;
  }
  if (run.payloads + payloadBytes !== block.length) throw new Refused('a block\'s payload lengths do not add up to its bytes');
  visit?.(block, run);
  walked.nextSlot = first + count;
  walked.points += live;
}

export type PointHandoffLoad = { loaded: true; points: number } | { loaded: false; reason: string };

/**
 * Restores the points of the hand-off file in `directory` through `restore` when the file is whole
 * and belongs to this store state; answers why not otherwise (no file, damage, another binding,
 * another operation). The whole file is checked before the first point is restored, so a refused
 * file restores nothing. The file is deleted either way.
 */
export async function loadPointHandoff(
  directory: string,
  expected: { binding: string; lastOperationId: number },
  restore: HandoffRestore,
  keptBytesLimit = defaultKeptBytesLimit,
): Promise<PointHandoffLoad> {
  const path = pointHandoffPath(directory);
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { loaded: false, reason: 'no point hand-off file (the last stop was not clean, or this is the first start)' };
    throw error;
  }
  // Until the first point is restored, any failure (an I/O error too) leaves the table untouched
  // and the store can be read instead; after it, a failure is the collection's.
  let restoring = false;
  try {
    const size = (await handle.stat()).size;
    const fixed = Buffer.alloc(32);
    if (size < fixed.length + 4) throw new Refused('the file is too short');
    await readExactly(handle, fixed, fixed.length, 0);
    if (!fixed.subarray(0, 8).equals(magic)) throw new Refused('the file is not a point hand-off file');
    const format = fixed.readUInt32LE(8);
    if (format !== pointHandoffFormat) throw new Refused(`format version ${format} (this build reads ${pointHandoffFormat})`);
    const bindingLength = fixed.readUInt32LE(28);
    if (32 + bindingLength + 4 > size) throw new Refused('the header runs past the end of the file');
    const whole = Buffer.alloc(32 + bindingLength + 4);
    await readExactly(handle, whole, whole.length, 0);
    if (crc32c(whole.subarray(0, whole.length - 4)) !== whole.readUInt32LE(whole.length - 4)) throw new Refused('the header fails its checksum');
    const lastOperationId = whole.readUInt32LE(16) * twoTo32 + whole.readUInt32LE(12);
    const points = whole.readUInt32LE(24) * twoTo32 + whole.readUInt32LE(20);
    const binding = whole.toString('utf8', 32, 32 + bindingLength);
    if (binding !== expected.binding) throw new Refused('the file belongs to another database or collection incarnation');
    if (lastOperationId !== expected.lastOperationId) throw new Refused(`the file holds operation ${lastOperationId}, the store ${expected.lastOperationId}`);
    if (!littleEndianHost) throw new Refused('this host is big-endian and the file\'s columns are little-endian');
    // First every block is checked, then the points are restored: nothing half-restored.
    // A file of a bounded size is read once, its blocks kept for the restore.
    const kept: { block: Buffer; run: HandoffRun }[] | undefined = size <= keptBytesLimit ? [] : undefined;
    const counted: Walked = { nextSlot: 0, points: 0 };
    for await (const block of checkedBlocks(handle, whole.length, size)) {
      walkBlock(block, counted, lastOperationId, (checked, run) => kept?.push({ block: checked, run }));
    }
    if (counted.points !== points) throw new Refused(`the header counts ${points} points, the blocks hold ${counted.points}`);
    restoring = true;
    restore.reserve?.(points);
    if (kept) {
      // The very blocks just checked, still in memory: restored without a second check.
      for (const { block, run } of kept) restore.run(block, run);
      return { loaded: true, points };
    }
    // Read again, so checked again: the file may have changed since the first pass.
    const restored: Walked = { nextSlot: 0, points: 0 };
    for await (const block of checkedBlocks(handle, whole.length, size)) walkBlock(block, restored, lastOperationId, restore.run);
    if (restored.points !== points) throw new Error(`the point hand-off file changed while it was restored (${restored.points} points, not ${points})`);
    return { loaded: true, points };
  } catch (error) {
    if (error instanceof Refused) return { loaded: false, reason: `point hand-off file refused: ${error.message}` };
    if (!restoring) return { loaded: false, reason: `point hand-off file unreadable: ${(error as Error).message}` };
    throw error;
  } finally {
    await handle.close();
    await removeFileDurably(path);
  }
}
