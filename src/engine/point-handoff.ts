// The point table handed from a clean stop to the next start (docs/architecture.md §21; the
// layout is in §5.3). Streaming the point records out of the store costs a start about 5 µs per
// point on the JS thread (classic-level makes two Buffers per record), ~1 s for 150k points. So
// a clean stop writes every live point, id and record exactly as the store holds them, into one
// file of checksummed blocks (the hand-off file, points.qvp), and the next start reads that file
// instead when it is whole and matches the store exactly: the same binding (database and
// collection incarnation) and the same last operation.
//
// The file is one-shot: the start that finds it deletes it (durably) before the collection
// serves, used or refused, so it can never be paired later with a store that has moved on.
// Every other start (after a crash, say) reads the store, as before.
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { removeFileDurably, replaceFileAtomically } from '../storage/atomic-file.js';
import { crc32c } from '../storage/crc32c.js';
import { pointRecordFormat } from '../storage/point-records.js';
import type { PointTable } from './point-table.js';

const magic = Buffer.from('QUIVERPT', 'latin1');
export const pointHandoffFormat = 1;
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

/** The file, a block at a time: header, blocks of `[id length u16][record length u32][id][record]`, an empty end block. */
function* handoffContents(table: PointTable, binding: string, lastOperationId: number): Generator<Buffer> {
  yield header(binding, lastOperationId, table.size);
  let block = Buffer.allocUnsafe(blockHeaderBytes + blockBytes);
  let used = blockHeaderBytes;
  const readPayload = table.payloadPassReader();
  for (const slot of table.liveSlots()) {
    const limit = table.storedSizeLimit(slot);
    if (used + limit > block.length) {
      if (used > blockHeaderBytes) yield sealed(block, used);
      block = Buffer.allocUnsafe(blockHeaderBytes + Math.max(blockBytes, limit));
      used = blockHeaderBytes;
    }
    used += table.writeStored(slot, block, used, readPayload);
  }
  if (used > blockHeaderBytes) yield sealed(block, used);
  yield sealed(Buffer.alloc(blockHeaderBytes), blockHeaderBytes);
}

/** Writes the hand-off file of `table` (atomically: the old file or the new one, never half of one). */
export async function writePointHandoff(directory: string, table: PointTable, binding: string, lastOperationId: number): Promise<void> {
  await replaceFileAtomically(pointHandoffPath(directory), handoffContents(table, binding, lastOperationId));
}

/** Why a hand-off file was not used; thrown inside this module only. */
class Refused extends Error {}

/** One point of a block: its id key bytes and its store record, as offsets into `block`. */
type Visit = (block: Buffer, idStart: number, idLength: number, recordStart: number, recordLength: number) => void;

/** What a load does with a whole file's points: `reserve` once with their count, then `point` each. */
export interface HandoffRestore {
  reserve?: (points: number) => void;
  point: Visit;
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

/** Checks the shape of every point of `block` and hands each to `visit` when given; returns how many. */
function walkBlock(block: Buffer, visit?: Visit): number {
  const length = block.length;
  let points = 0;
  let offset = 0;
  while (offset < length) {
    if (offset + 6 > length) throw new Refused('a point runs past the end of its block');
    const idLength = block.readUInt16LE(offset);
    const recordLength = block.readUInt32LE(offset + 2);
    const end = offset + 6 + idLength + recordLength;
    if ((idLength !== 9 && idLength !== 17) || end > length) throw new Refused('a point runs past the end of its block');
    const idStart = offset + 6;
    const recordStart = idStart + idLength;
    // The store's id encodings (src/points/ids.ts): tag 0 and a u64, or tag 1 and 16 UUID bytes.
    if (block[idStart] !== (idLength === 9 ? 0 : 1)) throw new Refused('a point id has an unknown tag');
    if (block[recordStart] !== pointRecordFormat || recordLength < 13) {
      throw new Refused(`a point record has format version ${block[recordStart]} (this build reads ${pointRecordFormat})`);
    }
    visit?.(block, idStart, idLength, recordStart, recordLength);
    points += 1;
    offset = end;
  }
  return points;
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
    // First every block and record is checked, then the points are restored: nothing half-restored.
    // A file of a bounded size is read once, its blocks kept for the restore.
    const kept: Buffer[] | undefined = size <= keptBytesLimit ? [] : undefined;
    let counted = 0;
    for await (const block of checkedBlocks(handle, whole.length, size)) {
      counted += walkBlock(block);
      kept?.push(block);
    }
    if (counted !== points) throw new Refused(`the header counts ${points} points, the blocks hold ${counted}`);
    restoring = true;
    restore.reserve?.(points);
    for await (const block of kept ?? checkedBlocks(handle, whole.length, size)) walkBlock(block, restore.point);
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
