// The key layout of the classic-level store. Numbers are big-endian so keys sort numerically;
// each collection's keys share a prefix (tag + internal collection number) so that removing a
// collection is one range deletion, and a re-created name never sees the old data.
//
//   [0x01] "next_collection_number"                 -> registry counter
//   [0x01] "database_id"                            -> random id, written once (store-identity.ts)
//   [0x02][collection u32]                           -> collection record (name, config, state)
//   [0x10][collection u32][0x01]                     -> collection state (last operation id)
//   [0x10][collection u32][0x02][point id bytes]     -> point record (slot, version, payload)
//   [0x10][collection u32][0x03][slot u32][name]     -> one stored vector
//   [0x10][collection u32][0x04][operation u64]      -> operation log entry
//   [0x10][collection u32][0x05][namespace]0x00[key] -> extension records (payload indexes, ...)
//   [0x10][collection u32][0x06][slot u32][name]     -> one stored sparse vector

const registryCounterTag = 0x01;
const collectionRecordTag = 0x02;
const collectionDataTag = 0x10;

export const collectionPart = {
  state: 0x01,
  point: 0x02,
  vector: 0x03,
  operation: 0x04,
  extension: 0x05,
  sparseVector: 0x06,
} as const;

export const registryCounterKey = Buffer.concat([Buffer.from([registryCounterTag]), Buffer.from('next_collection_number', 'utf8')]);

/** The store's random id; every checkpoint is bound to it (store-identity.ts). */
export const databaseIdKey = Buffer.concat([Buffer.from([registryCounterTag]), Buffer.from('database_id', 'utf8')]);

export function collectionRecordKey(collectionNumber: number): Buffer {
  const key = Buffer.alloc(5);
  key[0] = collectionRecordTag;
  key.writeUInt32BE(collectionNumber, 1);
  return key;
}

export const collectionRecordRange = { gte: Buffer.from([collectionRecordTag]), lt: Buffer.from([collectionRecordTag + 1]) };

export function collectionNumberFromRecordKey(key: Uint8Array): number {
  return Buffer.from(key.buffer, key.byteOffset, key.byteLength).readUInt32BE(1);
}

function collectionPrefix(collectionNumber: number, part?: number): Buffer {
  const key = Buffer.alloc(part === undefined ? 5 : 6);
  key[0] = collectionDataTag;
  key.writeUInt32BE(collectionNumber, 1);
  if (part !== undefined) key[5] = part;
  return key;
}

/** Every data key of one collection. */
export function collectionDataRange(collectionNumber: number): { gte: Buffer; lt: Buffer } {
  const start = collectionPrefix(collectionNumber);
  const end = Buffer.from(start);
  // The collection number is at most 2^32 - 1; the tag byte carries the overflow.
  if (collectionNumber === 0xffff_ffff) return { gte: start, lt: Buffer.from([collectionDataTag + 1]) };
  end.writeUInt32BE(collectionNumber + 1, 1);
  return { gte: start, lt: end };
}

/** All keys of one part of one collection. */
export function collectionPartRange(collectionNumber: number, part: number): { gte: Buffer; lt: Buffer } {
  return { gte: collectionPrefix(collectionNumber, part), lt: collectionPrefix(collectionNumber, part + 1) };
}

export function collectionStateKey(collectionNumber: number): Buffer {
  return collectionPrefix(collectionNumber, collectionPart.state);
}

export function pointKey(collectionNumber: number, pointIdBytes: Buffer): Buffer {
  return Buffer.concat([collectionPrefix(collectionNumber, collectionPart.point), pointIdBytes]);
}

/** The id bytes at the end of a point key. */
export function pointIdBytesOfKey(key: Uint8Array): Uint8Array {
  return key.subarray(6);
}

export function vectorKey(collectionNumber: number, slot: number, vectorName: string): Buffer {
  const prefix = collectionPrefix(collectionNumber, collectionPart.vector);
  const slotBytes = Buffer.alloc(4);
  slotBytes.writeUInt32BE(slot);
  return Buffer.concat([prefix, slotBytes, Buffer.from(vectorName, 'utf8')]);
}

export function sparseVectorKey(collectionNumber: number, slot: number, vectorName: string): Buffer {
  const prefix = collectionPrefix(collectionNumber, collectionPart.sparseVector);
  const slotBytes = Buffer.alloc(4);
  slotBytes.writeUInt32BE(slot);
  return Buffer.concat([prefix, slotBytes, Buffer.from(vectorName, 'utf8')]);
}

/** Vector and sparse vector keys share one layout after the part byte. */
export function parseVectorKey(key: Uint8Array): { slot: number; vectorName: string } {
  const buffer = Buffer.from(key.buffer, key.byteOffset, key.byteLength);
  return { slot: buffer.readUInt32BE(6), vectorName: buffer.toString('utf8', 10) };
}

export function operationKey(collectionNumber: number, operationId: number): Buffer {
  const key = Buffer.alloc(14);
  collectionPrefix(collectionNumber, collectionPart.operation).copy(key);
  key.writeBigUInt64BE(BigInt(operationId), 6);
  return key;
}

export function operationIdOfKey(key: Uint8Array): number {
  return Number(Buffer.from(key.buffer, key.byteOffset, key.byteLength).readBigUInt64BE(6));
}

export function extensionPrefix(collectionNumber: number, namespace: string): Buffer {
  if (namespace.includes('\u0000')) throw new RangeError('an extension namespace must not contain NUL');
  return Buffer.concat([collectionPrefix(collectionNumber, collectionPart.extension), Buffer.from(namespace, 'utf8'), Buffer.from([0])]);
}

export function extensionKey(collectionNumber: number, namespace: string, key: string): Buffer {
  return Buffer.concat([extensionPrefix(collectionNumber, namespace), Buffer.from(key, 'utf8')]);
}

/** The smallest key above every key starting with `prefix`. */
export function prefixEnd(prefix: Buffer): Buffer {
  const end = Buffer.from(prefix);
  for (let position = end.length - 1; position >= 0; position -= 1) {
    if (end[position]! < 0xff) {
      end[position] = end[position]! + 1;
      return end.subarray(0, position + 1);
    }
  }
  throw new RangeError('no key follows an all-0xff prefix');
}
