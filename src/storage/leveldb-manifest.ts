// Which table files the store's current version holds, from LevelDB's manifest. A server stopped
// while LevelDB was compacting leaves the compaction's half-written output file behind: LevelDB
// never listed it in the manifest and deletes it when it next opens the store. The start-up
// table check (leveldb-table-check.ts) must not call such a file damage, so it checks the files
// the manifest lists, and leaves the others to LevelDB.
//
// The manifest, as LevelDB writes it: CURRENT names it; it is a log file
// (32 KiB blocks of checksummed records, as the write-ahead log: leveldb-log.ts) whose records
// are version edits, each a sequence of tagged fields:
//   1 comparator name | 2 log number | 3 next file number | 4 last sequence | 5 compact pointer
//   (level, key) | 6 deleted file (level, number) | 7 new file (level, number, size, smallest
//   key, largest key) | 9 previous log number
// with varint numbers and length-prefixed strings. Replaying the edits in order gives the files
// of the current version.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32c, masked } from './crc32c.js';
import { blockSize, headerSize, recordHeader } from './leveldb-log.js';

/** A manifest this reader cannot follow; the caller then checks every table file. */
class UnreadableManifest extends Error {}

/** The logical records of a LevelDB log file, in order; throws UnreadableManifest at any damage. */
function logRecords(bytes: Buffer): Buffer[] {
  const records: Buffer[] = [];
  let fragments: Buffer[] = [];
  let position = 0;
  while (position < bytes.length) {
    const leftInBlock = blockSize - (position % blockSize);
    if (leftInBlock < headerSize || bytes.length - position < headerSize) {
      // A block's tail too short for a header is zero padding; so is a file's last few bytes.
      position += leftInBlock;
      continue;
    }
    const header = recordHeader(bytes, position);
    if (header === undefined) {
      position += leftInBlock;
      continue;
    }
    const { checksum, length, type } = header;
    const end = position + headerSize + length;
    if (end > bytes.length || masked(crc32c(bytes.subarray(position + 6, end))) !== checksum) {
      throw new UnreadableManifest('a record is cut short or fails its checksum');
    }
    const data = bytes.subarray(position + headerSize, end);
    position = end;
    if (type === 1) records.push(data);
    else if (type === 2) fragments = [data];
    else if (type === 3) fragments.push(data);
    else if (type === 4) records.push(Buffer.concat([...fragments, data]));
    else throw new UnreadableManifest(`a record has unknown type ${type}`);
  }
  return records;
}

/** Reads the fields of one version edit. */
class EditReader {
  private position = 0;
  constructor(private readonly bytes: Buffer) {}

  get done(): boolean {
    return this.position >= this.bytes.length;
  }

  varint(): number {
    let value = 0;
    for (let scale = 1; scale < 2 ** 63; scale *= 128) {
      if (this.position >= this.bytes.length) throw new UnreadableManifest('a number is cut short');
      const byte = this.bytes[this.position++]!;
      value += (byte & 0x7f) * scale;
      if ((byte & 0x80) === 0) return value;
    }
    throw new UnreadableManifest('a number is too long');
  }

  skipString(): void {
    const length = this.varint();
    if (this.position + length > this.bytes.length) throw new UnreadableManifest('a string is cut short');
    this.position += length;
  }
}

/** The numbers of the table files the edits leave in the current version. */
export function liveTableNumbers(manifest: Buffer): Set<number> {
  // Keyed by level and number: a file moved down a level is deleted from one and added to the next.
  const live = new Map<string, number>();
  for (const record of logRecords(manifest)) {
    const edit = new EditReader(record);
    while (!edit.done) {
      const tag = edit.varint();
      if (tag === 1 || tag === 5) {
        if (tag === 5) edit.varint();
        edit.skipString();
      } else if (tag === 2 || tag === 3 || tag === 4 || tag === 9) {
        edit.varint();
      } else if (tag === 6) {
        const level = edit.varint();
        live.delete(`${level}:${edit.varint()}`);
      } else if (tag === 7) {
        const level = edit.varint();
        const number = edit.varint();
        edit.varint();
        edit.skipString();
        edit.skipString();
        live.set(`${level}:${number}`, number);
      } else {
        throw new UnreadableManifest(`an edit has unknown tag ${tag}`);
      }
    }
  }
  return new Set(live.values());
}

/**
 * The numbers of the table files the store's current version holds, or undefined when the
 * store has no manifest yet or this reader cannot follow it (LevelDB's own open then judges it).
 */
export async function currentTableNumbers(storeDirectory: string): Promise<Set<number> | undefined> {
  let manifest: Buffer;
  try {
    const current = (await readFile(join(storeDirectory, 'CURRENT'), 'utf8')).trim();
    if (!/^MANIFEST-\d+$/.test(current)) return undefined;
    manifest = await readFile(join(storeDirectory, current));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    return liveTableNumbers(manifest);
  } catch (error) {
    if (error instanceof UnreadableManifest) return undefined;
    throw error;
  }
}
