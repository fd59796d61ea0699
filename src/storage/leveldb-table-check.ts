// Bit rot in the store's table files (docs/durability.md). LevelDB verifies a table block's
// checksum only when a read asks for it, and classic-level never asks: a flipped bit in an
// uncompressed block would be served as a wrong vector. So at start, before the store opens,
// every block of every `*.ldb` / `*.sst` file the store's manifest holds is checked against its
// CRC-32C, as LevelDB's paranoid checks would; a damaged file refuses the start with its name and
// the recovery steps. A table file the manifest does not hold (the half-written output of a
// compaction the last stop interrupted) is left out: LevelDB deletes it at open
// (leveldb-manifest.ts).
//
// The table format (LevelDB's doc/table_format.md): data blocks, meta blocks, a metaindex
// block, an index block, then a 48-byte footer: metaindex handle | index handle (varint64
// offset, varint64 size each) | padding | u64 magic 0xdb4775248b80fb57. Every block is followed
// by a 5-byte trailer: u8 compression type | u32 masked CRC-32C of (contents + type). The index
// block's entries map a key to the handle of one data block; it is snappy-compressed (type 1)
// like any other block when that saves space, so a small snappy reader is here too.
import { open, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { native } from '../native/index.js';
import { crc32c, masked } from './crc32c.js';
import { currentTableNumbers } from './leveldb-manifest.js';

const footerSize = 48;
const trailerSize = 5;
const tableMagic = 0xdb4775248b80fb57n;

/** A table file that fails a check; the start is refused (database.ts). */
export class DamagedTableError extends Error {
  override readonly name = 'DamagedTableError';
}

interface Handle {
  offset: number;
  size: number;
}

class Reader {
  position: number;
  constructor(
    private readonly bytes: Buffer,
    start = 0,
  ) {
    this.position = start;
  }

  varint(): number {
    let result = 0;
    let multiplier = 1;
    for (let count = 0; count < 10; count += 1) {
      if (this.position >= this.bytes.length) throw new Error('a varint runs past the end');
      const byte = this.bytes[this.position++]!;
      result += (byte & 0x7f) * multiplier;
      if ((byte & 0x80) === 0) return result;
      multiplier *= 128;
    }
    throw new Error('a varint is too long');
  }

  handle(): Handle {
    return { offset: this.varint(), size: this.varint() };
  }
}

/** The block at `handle` after checking its trailer's checksum; throws when it fails. */
function checkedBlock(file: Buffer, handle: Handle, what: string): Buffer {
  const end = handle.offset + handle.size;
  if (end + trailerSize > file.length) throw new Error(`${what} at offset ${handle.offset} runs past the end of the file`);
  const stored = file.readUInt32LE(end + 1);
  if (masked(crc32c(file.subarray(handle.offset, end + 1))) !== stored) throw new Error(`${what} at offset ${handle.offset} fails its checksum`);
  return file.subarray(handle.offset, end);
}

/** The block handles an (uncompressed) index block holds. */
function indexHandles(block: Buffer): Handle[] {
  const restarts = block.readUInt32LE(block.length - 4);
  const entriesEnd = block.length - 4 - restarts * 4;
  if (entriesEnd < 0) throw new Error('the index block has an impossible restart count');
  const reader = new Reader(block);
  const handles: Handle[] = [];
  while (reader.position < entriesEnd) {
    reader.varint(); // shared key bytes
    const unshared = reader.varint();
    const valueLength = reader.varint();
    reader.position += unshared;
    const value = new Reader(block.subarray(reader.position, reader.position + valueLength));
    handles.push(value.handle());
    reader.position += valueLength;
  }
  return handles;
}

/** Snappy's raw format (LevelDB's compression type 1), enough to read an index block. */
export function snappyDecompress(input: Buffer): Buffer {
  const reader = new Reader(input);
  const length = reader.varint();
  const output = Buffer.alloc(length);
  let written = 0;
  let position = reader.position;
  const need = (count: number) => {
    if (position + count > input.length) throw new Error('a compressed block runs past its end');
  };
  while (position < input.length) {
    const tag = input[position++]!;
    const kind = tag & 3;
    if (kind === 0) {
      let literal = (tag >>> 2) + 1;
      if (literal > 60) {
        const bytes = literal - 60;
        need(bytes);
        literal = input.readUIntLE(position, bytes) + 1;
        position += bytes;
      }
      need(literal);
      if (written + literal > length) throw new Error('a compressed block expands past its stated size');
      input.copy(output, written, position, position + literal);
      position += literal;
      written += literal;
      continue;
    }
    let copyLength: number;
    let offset: number;
    if (kind === 1) {
      need(1);
      copyLength = 4 + ((tag >>> 2) & 7);
      offset = ((tag >>> 5) << 8) | input[position++]!;
    } else if (kind === 2) {
      need(2);
      copyLength = (tag >>> 2) + 1;
      offset = input.readUInt16LE(position);
      position += 2;
    } else {
      need(4);
      copyLength = (tag >>> 2) + 1;
      offset = input.readUInt32LE(position);
      position += 4;
    }
    if (offset === 0 || offset > written || written + copyLength > length) throw new Error('a compressed block has a bad back-reference');
    // Byte by byte: a copy may overlap what it writes.
    for (let count = 0; count < copyLength; count += 1) output[written + count] = output[written - offset + count]!;
    written += copyLength;
  }
  if (written !== length) throw new Error('a compressed block is shorter than its stated size');
  return output;
}

/** Checks one table file; throws a message naming the problem. */
export function checkTable(file: Buffer): void {
  if (file.length < footerSize) throw new Error(`the file is too short (${file.length} bytes) to be a table`);
  const footer = file.subarray(file.length - footerSize);
  if (footer.readBigUInt64LE(footerSize - 8) !== tableMagic) throw new Error('the footer has no table magic number');
  const reader = new Reader(footer);
  const metaindex = reader.handle();
  const index = reader.handle();
  checkedBlock(file, metaindex, 'the metaindex block');
  const stored = checkedBlock(file, index, 'the index block');
  const compression = file[index.offset + index.size];
  if (compression !== 0 && compression !== 1) throw new Error(`the index block has unknown compression type ${compression}`);
  const indexBlock = compression === 1 ? snappyDecompress(stored) : stored;
  for (const handle of indexHandles(indexBlock)) checkedBlock(file, handle, 'a data block');
}

/** The start's refusal for a damaged table file: what is wrong and what to do. */
function damagedTable(path: string, problem: string): DamagedTableError {
  return new DamagedTableError(
    `the store's table file ${path} is damaged: ${problem}. Serving it could return wrong data, so the start is refused. ` +
      'Restore the data directory from a backup (stop the server first); see docs/durability.md.',
  );
}

/** What the start-up check covered: the files and bytes checked, and the table files left out. */
export interface TablesCheck {
  files: number;
  bytes: number;
  /** Table files the store's manifest does not hold (LevelDB deletes them at open). */
  leftOut: string[];
}

/**
 * The table files of the store in `storeDirectory` (`*.ldb`, `*.sst`, named by number), in name
 * order: those to check (the ones the manifest holds; all of them when it cannot be read) and
 * those left out.
 */
async function tableFiles(storeDirectory: string): Promise<{ checked: string[]; leftOut: string[] }> {
  let names: string[];
  try {
    names = await readdir(storeDirectory);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { checked: [], leftOut: [] };
    throw error;
  }
  const tables = names.filter((name) => /^\d+\.(ldb|sst)$/.test(name)).sort();
  const live = await currentTableNumbers(storeDirectory);
  if (live === undefined) return { checked: tables, leftOut: [] };
  const held = (name: string) => live.has(Number.parseInt(name, 10));
  return { checked: tables.filter(held), leftOut: tables.filter((name) => !held(name)) };
}

/**
 * Checks every table file the store in `storeDirectory` holds; throws DamagedTableError for the
 * first bad one in name order. The kernel reads and checks the files on its own threads
 * (crates/quiver-core/src/store_tables.rs), so the JS thread is free meanwhile.
 */
export async function checkStoreTables(storeDirectory: string): Promise<TablesCheck> {
  const { checked, leftOut } = await tableFiles(storeDirectory);
  const report = await native.checkStoreTables(storeDirectory, checked);
  if (report.damagedPath) throw damagedTable(report.damagedPath, report.problem ?? 'unknown damage');
  return { files: report.files, bytes: report.bytes, leftOut };
}

/** The slow twin of `checkStoreTables`: a file at a time, every block checked here. */
export async function checkStoreTablesPortable(storeDirectory: string): Promise<TablesCheck> {
  const { checked, leftOut } = await tableFiles(storeDirectory);
  let bytes = 0;
  for (const name of checked) {
    const path = join(storeDirectory, name);
    const handle = await open(path, 'r');
    let contents: Buffer;
    try {
      contents = await handle.readFile();
    } finally {
      await handle.close();
    }
    bytes += contents.length;
    try {
      checkTable(contents);
    } catch (error) {
      throw damagedTable(path, (error as Error).message);
    }
  }
  return { files: checked.length, bytes, leftOut };
}
