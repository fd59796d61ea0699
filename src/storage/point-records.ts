// Binary values of the per-point records. Byte 0 is the format version (as everywhere, see
// codec.ts); the rest is fixed-layout so that loading 200k points does not parse 200k JSON
// envelopes around the payload.
import { FormatVersionError } from './codec.js';

/** Byte 0 of a point record; the shutdown snapshot writes records in this layout too (point-snapshot.ts). */
export const pointRecordFormat = 1;
const vectorFormat = 1;
const stateFormat = 1;

export interface StoredPoint {
  slot: number;
  /** The operation that last wrote the point. */
  version: number;
  /** The payload as JSON text (kept as text so it is serialised once per write). */
  payloadJson: string;
}

// [format u8][slot u32 LE][version u64 LE][payload JSON utf8]
export function encodePointRecord(point: StoredPoint): Buffer {
  const payloadLength = Buffer.byteLength(point.payloadJson, 'utf8');
  const record = Buffer.allocUnsafe(13 + payloadLength);
  record[0] = pointRecordFormat;
  record.writeUInt32LE(point.slot, 1);
  record.writeBigUInt64LE(BigInt(point.version), 5);
  record.write(point.payloadJson, 13, 'utf8');
  return record;
}

/** The record as a Buffer once its format byte and length check out; throws otherwise. */
export function checkedPointRecord(bytes: Uint8Array): Buffer {
  const record = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (record[0] !== pointRecordFormat || record.length < 13) {
    throw new FormatVersionError(`point record: unsupported format version ${record[0] ?? 'none'} (this build reads ${pointRecordFormat})`);
  }
  return record;
}

export function decodePointRecord(bytes: Uint8Array): StoredPoint {
  const record = checkedPointRecord(bytes);
  return { slot: record.readUInt32LE(1), version: Number(record.readBigUInt64LE(5)), payloadJson: record.toString('utf8', 13) };
}

// [format u8][float32 LE ...]
export function encodeVectorRecord(vector: Float32Array): Buffer {
  const record = Buffer.allocUnsafe(1 + vector.byteLength);
  record[0] = vectorFormat;
  Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).copy(record, 1);
  return record;
}

/** Copies the stored vector into `target` at `offset` (in elements); returns its length. */
export function decodeVectorRecordInto(bytes: Uint8Array, target: Float32Array, offset: number): number {
  if (bytes[0] !== vectorFormat) throw new FormatVersionError(`vector record: unsupported format version ${bytes[0] ?? 'none'} (this build reads ${vectorFormat})`);
  const length = (bytes.byteLength - 1) / 4;
  const bytesView = new Uint8Array(target.buffer, target.byteOffset + offset * 4, length * 4);
  bytesView.set(bytes.subarray(1));
  return length;
}

// [format u8][last operation id u64 LE]
export function encodeCollectionState(lastOperationId: number): Buffer {
  const record = Buffer.allocUnsafe(9);
  record[0] = stateFormat;
  record.writeBigUInt64LE(BigInt(lastOperationId), 1);
  return record;
}

export function decodeCollectionState(bytes: Uint8Array): { lastOperationId: number } {
  const record = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (record[0] !== stateFormat || record.length !== 9) {
    throw new FormatVersionError(`collection state: unsupported format version ${record[0] ?? 'none'} (this build reads ${stateFormat})`);
  }
  return { lastOperationId: Number(record.readBigUInt64LE(1)) };
}
