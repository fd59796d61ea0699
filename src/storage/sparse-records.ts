// The stored form of one sparse vector (docs/architecture.md §5.2). Byte 0 is the format
// version, as in every stored value; the rest is fixed-layout so recovery reads a vector with
// two typed-array copies and no parsing:
//
//   [format u8 = 1][count u32 LE][indices u32 LE × count][values f32 LE × count]
import { FormatVersionError } from './codec.js';

const sparseFormat = 1;

/** A sparse vector as stored: indices ascending and distinct, one value each. */
export interface StoredSparseVector {
  indices: Uint32Array;
  values: Float32Array;
}

export function encodeSparseRecord(vector: StoredSparseVector): Buffer {
  const count = vector.indices.length;
  if (vector.values.length !== count) throw new RangeError(`sparse vector: ${count} indices but ${vector.values.length} values`);
  const record = Buffer.allocUnsafe(5 + count * 8);
  record[0] = sparseFormat;
  record.writeUInt32LE(count, 1);
  for (let position = 0; position < count; position += 1) {
    record.writeUInt32LE(vector.indices[position]!, 5 + position * 4);
    record.writeFloatLE(vector.values[position]!, 5 + count * 4 + position * 4);
  }
  return record;
}

export function decodeSparseRecord(bytes: Uint8Array): StoredSparseVector {
  const record = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (record[0] !== sparseFormat || record.length < 5) {
    throw new FormatVersionError(`sparse vector record: unsupported format version ${record[0] ?? 'none'} (this build reads ${sparseFormat})`);
  }
  const count = record.readUInt32LE(1);
  if (record.length !== 5 + count * 8) throw new FormatVersionError(`sparse vector record: ${record.length} bytes cannot hold ${count} entries`);
  const indices = new Uint32Array(count);
  const values = new Float32Array(count);
  for (let position = 0; position < count; position += 1) {
    indices[position] = record.readUInt32LE(5 + position * 4);
    values[position] = record.readFloatLE(5 + count * 4 + position * 4);
  }
  return { indices, values };
}
