// Point ids (docs/api.md §2): an unsigned 64-bit integer or a UUID. Integers at or below 2^53 - 1 are
// plain numbers, larger ones bigint, so they print back as the exact literal; UUIDs are kept in
// one canonical form (lowercase, hyphenated) whatever form they arrived in.
import { errors } from '../errors.js';

/** A parsed, canonical point id: number (safe integer), bigint (above 2^53 - 1) or UUID text. */
export type PointId = number | bigint | string;

const maximumId = (1n << 64n) - 1n;
const hyphenatedUuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const simpleUuid = /^[0-9a-f]{32}$/;

function hyphenate(hex: string): string {
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The canonical UUID text for any accepted form, or undefined when `text` is not a UUID. */
export function canonicalUuid(text: string): string | undefined {
  let body = text.trim().toLowerCase();
  if (body.startsWith('urn:uuid:')) body = body.slice('urn:uuid:'.length);
  else if (body.startsWith('{') && body.endsWith('}')) body = body.slice(1, -1);
  if (hyphenatedUuid.test(body)) return body;
  if (simpleUuid.test(body)) return hyphenate(body);
  return undefined;
}

function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'bigint') return value.toString();
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** Parses a wire id; throws the registry's 400 `value X is not a valid point ID...` otherwise. */
export function parsePointId(value: unknown): PointId {
  if (typeof value === 'number') {
    if (Number.isSafeInteger(value) && value >= 0) return value;
  } else if (typeof value === 'bigint') {
    if (value >= 0n && value <= maximumId) return value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
  } else if (typeof value === 'string') {
    const uuid = canonicalUuid(value);
    if (uuid !== undefined) return uuid;
  }
  throw errors.invalidPointId(describeValue(value));
}

/** Parses a list of wire ids (each checked). */
export function parsePointIds(values: readonly unknown[]): PointId[] {
  return values.map(parsePointId);
}

export function isUuidId(id: PointId): id is string {
  return typeof id === 'string';
}

/** A string that identifies the id in maps: the decimal integer, or the canonical UUID. */
export function pointIdKey(id: PointId): string {
  return typeof id === 'string' ? id : id.toString();
}

/** Id order (docs/api.md §2): every integer ascending, then UUIDs by byte order. */
export function comparePointIds(left: PointId, right: PointId): number {
  const leftIsUuid = typeof left === 'string';
  const rightIsUuid = typeof right === 'string';
  if (leftIsUuid !== rightIsUuid) return leftIsUuid ? 1 : -1;
  if (leftIsUuid) {
    // Lowercase hex with hyphens at fixed places compares in the same order as the bytes.
    return left < (right as string) ? -1 : left > (right as string) ? 1 : 0;
  }
  if (typeof left === 'number' && typeof right === 'number') return left - right;
  const leftBig = BigInt(left);
  const rightBig = BigInt(right as number | bigint);
  return leftBig < rightBig ? -1 : leftBig > rightBig ? 1 : 0;
}

/** Human form for messages: `424242424242424242` or the UUID. */
export function formatPointId(id: PointId): string {
  return pointIdKey(id);
}

const integerTag = 0;
const uuidTag = 1;

/**
 * Storage key bytes whose byte order is the id order: tag 0 + u64 big-endian for integers,
 * tag 1 + the 16 UUID bytes.
 */
export function encodePointIdBytes(id: PointId): Buffer {
  if (typeof id === 'string') {
    const bytes = Buffer.alloc(17);
    bytes[0] = uuidTag;
    bytes.write(id.replaceAll('-', ''), 1, 'hex');
    return bytes;
  }
  const bytes = Buffer.alloc(9);
  bytes[0] = integerTag;
  bytes.writeBigUInt64BE(BigInt(id), 1);
  return bytes;
}

/** Inverse of encodePointIdBytes; `bytes` may be a view into a longer key. */
export function decodePointIdBytes(bytes: Uint8Array): PointId {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buffer[0] === uuidTag && buffer.length === 17) return hyphenate(buffer.toString('hex', 1, 17));
  if (buffer[0] === integerTag && buffer.length === 9) {
    const value = buffer.readBigUInt64BE(1);
    return value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
  }
  throw new Error(`corrupt point id key of ${buffer.length} bytes`);
}
