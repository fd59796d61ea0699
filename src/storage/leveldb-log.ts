// A torn tail of LevelDB's write-ahead log (docs/durability.md). LevelDB, without paranoid
// checks (classic-level offers none), drops a last record that was cut short or fails its
// checksum and opens as if nothing happened — a write that was acknowledged (fsync off, or a
// disk that lied about a flush) silently disappears. So before the store is opened, the
// current log file is read here, record by record, as LevelDB's own reader would; a bad last
// record is reported with what it held: the collections and operation ids it carried.
//
// The log format (LevelDB's doc/log_format.md): 32 KiB blocks of records, each
//   u32 masked CRC-32C of (type + data) | u16 length | u8 type (1 full, 2 first, 3 middle, 4 last) | data
// a block's last < 7 bytes are zero padding. A logical record (one write batch, or several
// grouped into one commit) is one full record or first, middles, last. A write batch is
//   u64 sequence | u32 count | per entry: u8 tag (1 put, 0 delete) | varint key length | key
//   [| varint value length | value].
import { open, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32c, masked } from './crc32c.js';

/** LevelDB's log blocks, and each physical record's header. */
export const blockSize = 32 * 1024;
export const headerSize = 7;
/** Only the current log's tail matters; a bigger file is read in its last part only. */
const maximumReadBytes = 64 * 1024 * 1024;

/** The keys a (possibly cut) write batch still shows. */
export function batchKeys(batch: Uint8Array): Buffer[] {
  const keys: Buffer[] = [];
  const bytes = Buffer.from(batch.buffer, batch.byteOffset, batch.byteLength);
  let position = 12;
  const varint = (): number | undefined => {
    let result = 0;
    for (let shift = 0; shift <= 28; shift += 7) {
      if (position >= bytes.length) return undefined;
      const byte = bytes[position++]!;
      result |= (byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result >>> 0;
    }
    return undefined;
  };
  while (position < bytes.length) {
    const tag = bytes[position++]!;
    if (tag !== 0 && tag !== 1) break;
    const keyLength = varint();
    if (keyLength === undefined || position + keyLength > bytes.length) break;
    keys.push(bytes.subarray(position, position + keyLength));
    position += keyLength;
    if (tag === 1) {
      const valueLength = varint();
      if (valueLength === undefined) break;
      position += valueLength;
    }
  }
  return keys;
}

export interface TornTail {
  /** The log file, for the log line. */
  file: string;
  /** Bytes from the start of the bad record to the end of the file. */
  lostBytes: number;
  /** Why the record is bad. */
  problem: string;
  /** Keys the lost record still shows (its batch may be cut short). */
  keys: Buffer[];
}

/**
 * Reads the newest `*.log` of the store in `storeDirectory` and returns its torn tail, or
 * undefined when every record checks out (or there is no log).
 */
export async function findTornLogTail(storeDirectory: string): Promise<TornTail | undefined> {
  let names: string[];
  try {
    names = await readdir(storeDirectory);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const logs = names.filter((name) => /^\d+\.log$/.test(name)).sort((left, right) => Number.parseInt(right, 10) - Number.parseInt(left, 10));
  if (logs.length === 0) return undefined;
  const file = join(storeDirectory, logs[0]!);
  const handle = await open(file, 'r');
  let bytes: Buffer;
  let base = 0;
  try {
    const size = (await handle.stat()).size;
    // Start at a block boundary so records are read in step with LevelDB's reader.
    base = size > maximumReadBytes ? Math.floor((size - maximumReadBytes) / blockSize) * blockSize : 0;
    bytes = Buffer.alloc(size - base);
    await handle.read(bytes, 0, bytes.length, base);
  } finally {
    await handle.close();
  }
  return scanLog(bytes, file, base !== 0);
}

/** A physical record's header (at least `headerSize` bytes at `position`). */
export interface RecordHeader {
  /** Masked CRC-32C of the type byte and the data. */
  checksum: number;
  length: number;
  /** 1 full, 2 first, 3 middle, 4 last. */
  type: number;
}

/**
 * The header of the physical record at `position`, or undefined for zero fill (a preallocated or
 * padded block: the rest of the block is empty). Also read by leveldb-manifest.ts.
 */
export function recordHeader(bytes: Buffer, position: number): RecordHeader | undefined {
  const checksum = bytes.readUInt32LE(position);
  const length = bytes.readUInt16LE(position + 4);
  const type = bytes[position + 6]!;
  return type === 0 && length === 0 && checksum === 0 ? undefined : { checksum, length, type };
}

/** Exported for unit tests: the scan over a log file's bytes. */
export function scanLog(bytes: Buffer, file: string, startsMidFile = false): TornTail | undefined {
  let position = 0;
  let fragments: Buffer[] = [];
  let recordStart = 0;
  let skipping = startsMidFile;
  const torn = (problem: string, start: number, partial?: Buffer): TornTail => {
    const batch = Buffer.concat(partial ? [...fragments, partial] : fragments);
    return { file, lostBytes: bytes.length - start, problem, keys: batch.length >= 12 ? batchKeys(batch) : [] };
  };
  while (position < bytes.length) {
    const leftInBlock = blockSize - (position % blockSize);
    if (leftInBlock < headerSize) {
      position += leftInBlock;
      continue;
    }
    if (bytes.length - position < headerSize) {
      const rest = bytes.subarray(position);
      if (rest.every((byte) => byte === 0)) return undefined;
      return torn('the last record header is cut short', fragments.length > 0 ? recordStart : position);
    }
    const header = recordHeader(bytes, position);
    if (header === undefined) {
      position += leftInBlock;
      continue;
    }
    const { checksum, length, type } = header;
    const start = fragments.length > 0 ? recordStart : position;
    const dataEnd = position + headerSize + length;
    if (dataEnd > bytes.length) return torn(`the last record is cut short (${dataEnd - bytes.length} bytes missing)`, start, bytes.subarray(position + headerSize));
    const data = bytes.subarray(position + headerSize, dataEnd);
    if (masked(crc32c(bytes.subarray(position + 6, dataEnd))) !== checksum) {
      const isLast = dataEnd >= bytes.length || bytes.subarray(dataEnd).every((byte) => byte === 0);
      if (isLast) return torn('the last record fails its checksum', start, data);
      // Damage before the end: LevelDB skips it too; reported the same way, with what is known.
      return { ...torn('a record in the middle of the log fails its checksum', start, data), lostBytes: length + headerSize };
    }
    position = dataEnd;
    if (skipping) {
      // Reading began mid-file: wait for the start of a logical record.
      if (type === 1 || type === 2) skipping = false;
      else continue;
    }
    if (type === 1) {
      fragments = [];
    } else if (type === 2) {
      fragments = [data];
      recordStart = dataEnd - length - headerSize;
    } else if (type === 3) {
      fragments.push(data);
    } else if (type === 4) {
      fragments = [];
    }
  }
  if (fragments.length > 0) return torn('the last record was never finished (its last fragment is missing)', recordStart);
  return undefined;
}
