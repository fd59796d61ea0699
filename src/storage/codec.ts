// Versioned value codec: byte 0 is the format version, the rest is the encoded body. Readers
// refuse versions they do not know instead of misreading them.
import { parseJsonBytes } from '../json/parse.js';
import { serializeJson } from '../json/serialize.js';

export class FormatVersionError extends Error {
  override name = 'FormatVersionError';
}

/** Encodes a JSON-able value (bigints allowed) behind a format-version byte. */
export function encodeJsonRecord(version: number, value: unknown): Buffer {
  if (!Number.isInteger(version) || version < 1 || version > 255) throw new RangeError(`format version ${version} out of range`);
  const body = Buffer.from(serializeJson(value), 'utf8');
  const record = Buffer.allocUnsafe(body.length + 1);
  record[0] = version;
  body.copy(record, 1);
  return record;
}

/** Decodes a record written by encodeJsonRecord, refusing any version not in `accepted`. */
export function decodeJsonRecord(record: Uint8Array, accepted: readonly number[], what: string): { version: number; value: unknown } {
  const version = record[0];
  if (version === undefined || !accepted.includes(version)) {
    throw new FormatVersionError(`${what}: unsupported format version ${version ?? 'none'} (this build reads ${accepted.join(', ')})`);
  }
  return { version, value: parseJsonBytes(Buffer.from(record.buffer, record.byteOffset + 1, record.byteLength - 1)) };
}
