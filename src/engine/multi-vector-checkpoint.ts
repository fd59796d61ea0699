// The sub-slot map file of a multivector checkpoint (docs/architecture.md §17). A multivector
// index is a kernel dense index of rows (saved by the kernel's own checkpoint, `.qvi`) plus the
// map from each row's sub-slot to its point's slot, which lives here, beside it (`.qvm`). Both
// carry the same operation id and binding, so a pair written by two different checkpoints (a
// crash between the two saves) is refused, and recovery rebuilds from the point records instead.
//
// Format 1, little-endian:
//   "QUIVERMV" (8 bytes) | format u8 = 1 | binding length u16 | binding (UTF-8, ≤ 256 bytes)
//   | last operation id u64 | sub-slot count u32 | parent slot of each sub-slot u32[count]
//   (0xffffffff: free) | point count u32 | per point: slot u32, rows u32, sub-slots u32[rows]
//   (row order) | free count u32 | free sub-slots u32[free count] | CRC-32C u32 of all before.
import { crc32c } from '../storage/crc32c.js';

export const multivectorMapFormat = 1;
export const noParent = 0xffff_ffff;
const magic = Buffer.from('QUIVERMV', 'latin1');
const maximumBindingBytes = 256;

/** The map file beside the rows' kernel checkpoint `checkpointPath` (vector-<hex>.qvi -> .qvm). */
export function multivectorMapPath(checkpointPath: string): string {
  return `${checkpointPath.replace(/\.qvi$/, '')}.qvm`;
}

export interface MultivectorMap {
  /** The last operation the checkpoint covers; must equal the rows checkpoint's. */
  lastOperationId: number;
  /** Who the checkpoint belongs to (docs/durability.md); must equal the rows checkpoint's. */
  binding: string;
  /** Parent point slot of each sub-slot below the next unused one (noParent: free). */
  parents: Uint32Array;
  /** Each point's sub-slots, in row order. */
  points: ReadonlyMap<number, Uint32Array>;
  /** Free sub-slots below parents.length, in the order they are handed out again (last first). */
  free: Uint32Array;
}

export function encodeMultivectorMap(map: MultivectorMap): Uint8Array {
  const binding = Buffer.from(map.binding, 'utf8');
  if (binding.length > maximumBindingBytes) throw new Error(`multivector map binding is ${binding.length} bytes; at most ${maximumBindingBytes}`);
  let rows = 0;
  for (const own of map.points.values()) rows += own.length;
  const size = magic.length + 1 + 2 + binding.length + 8 + 4 + map.parents.length * 4 + 4 + map.points.size * 8 + rows * 4 + 4 + map.free.length * 4 + 4;
  const bytes = Buffer.alloc(size);
  let offset = magic.copy(bytes, 0);
  offset = bytes.writeUInt8(multivectorMapFormat, offset);
  offset = bytes.writeUInt16LE(binding.length, offset);
  offset += binding.copy(bytes, offset);
  offset = bytes.writeBigUInt64LE(BigInt(map.lastOperationId), offset);
  const writeWords = (words: Uint32Array) => {
    offset = bytes.writeUInt32LE(words.length, offset);
    for (const word of words) offset = bytes.writeUInt32LE(word, offset);
  };
  writeWords(map.parents);
  offset = bytes.writeUInt32LE(map.points.size, offset);
  for (const [slot, own] of map.points) {
    offset = bytes.writeUInt32LE(slot, offset);
    writeWords(own);
  }
  writeWords(map.free);
  bytes.writeUInt32LE(crc32c(bytes.subarray(0, offset)), offset);
  return bytes;
}

/** Why a map file is refused: its reason names what is wrong, for the recovery warning. */
export class MultivectorMapError extends Error {}

/** Reads and checks a map file; throws MultivectorMapError naming the first problem found. */
export function decodeMultivectorMap(data: Uint8Array): MultivectorMap {
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const refuse = (reason: string): never => {
    throw new MultivectorMapError(reason);
  };
  if (bytes.length < magic.length + 1 || !bytes.subarray(0, magic.length).equals(magic)) refuse('not a multivector map file (bad magic)');
  const format = bytes[magic.length]!;
  if (format !== multivectorMapFormat) refuse(`unknown multivector map format ${format} (this server reads ${multivectorMapFormat})`);
  if (bytes.length < magic.length + 1 + 2 + 8 + 4 * 4) refuse(`multivector map truncated (${bytes.length} bytes)`);
  const body = bytes.length - 4;
  if (crc32c(bytes.subarray(0, body)) !== bytes.readUInt32LE(body)) refuse('multivector map checksum mismatch (truncated or corrupt)');

  let offset = magic.length + 1;
  const need = (count: number, what: string) => {
    if (count < 0 || offset + count > body) refuse(`multivector map truncated in ${what}`);
  };
  need(2, 'the binding length');
  const bindingLength = bytes.readUInt16LE(offset);
  offset += 2;
  if (bindingLength > maximumBindingBytes) refuse(`multivector map binding of ${bindingLength} bytes`);
  need(bindingLength + 8, 'the binding');
  const binding = bytes.toString('utf8', offset, offset + bindingLength);
  offset += bindingLength;
  const lastOperationId = Number(bytes.readBigUInt64LE(offset));
  offset += 8;
  const readWords = (what: string): Uint32Array => {
    need(4, what);
    const count = bytes.readUInt32LE(offset);
    offset += 4;
    need(count * 4, what);
    const words = new Uint32Array(count);
    for (let index = 0; index < count; index += 1, offset += 4) words[index] = bytes.readUInt32LE(offset);
    return words;
  };
  const parents = readWords('the parents');
  need(4, 'the point count');
  const pointCount = bytes.readUInt32LE(offset);
  offset += 4;
  const points = new Map<number, Uint32Array>();
  const seen = new Uint8Array(parents.length);
  for (let point = 0; point < pointCount; point += 1) {
    need(4, 'the points');
    const slot = bytes.readUInt32LE(offset);
    offset += 4;
    const own = readWords('the points');
    if (own.length === 0) refuse(`multivector map: point slot ${slot} has no rows`);
    if (points.has(slot)) refuse(`multivector map: point slot ${slot} listed twice`);
    for (const subSlot of own) {
      if (subSlot >= parents.length || parents[subSlot] !== slot || seen[subSlot] !== 0) refuse(`multivector map: sub-slot ${subSlot} of point slot ${slot} disagrees with the parents`);
      seen[subSlot] = 1;
    }
    points.set(slot, own);
  }
  const free = readWords('the free list');
  if (offset !== body) refuse(`multivector map has ${body - offset} unexpected bytes before its checksum`);
  for (const subSlot of free) {
    if (subSlot >= parents.length || parents[subSlot] !== noParent || seen[subSlot] !== 0) refuse(`multivector map: free sub-slot ${subSlot} is in use or listed twice`);
    seen[subSlot] = 1;
  }
  // Every sub-slot is a row of exactly one point or free: none is lost or left dangling.
  const unaccounted = seen.indexOf(0);
  if (unaccounted >= 0) refuse(`multivector map: sub-slot ${unaccounted} is neither a row of a point nor free`);
  return { lastOperationId, binding, parents, points, free };
}
