// A value as the server's JSON codec would hand it back after writing it out and reading it in
// (`parseJson(serializeJson(value))`), without the text in between. In-process callers that
// already hold a request as values (the gRPC door, src/http/in-process-exchange.ts) pass it to the
// REST routes this way: the routes then see exactly what the same body sent as JSON would give
// them, and refuse what parseJson refuses, with the same messages.
import { errors } from '../errors.js';
import { maxJsonDepth } from './parse.js';

/**
 * JSON.stringify prints an integral double below 1e21 as its shortest digits (2^60 as
 * 1152921504606847000), and parseJson reads an unsafe one back as the bigint of those digits.
 */
const plainDigitsBelow = 1e21;

/** A JSON integer as parseJson gives it: a plain number when it is safe, a bigint otherwise. */
export function jsonInteger(value: bigint): number | bigint {
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
}

function shapedNumber(value: number): number | bigint | null {
  if (!Number.isFinite(value)) return null; // JSON.stringify writes NaN and ±Infinity as null
  if (Number.isSafeInteger(value) || !Number.isInteger(value)) return value === 0 ? 0 : value; // -0 prints as 0
  return Math.abs(value) < plainDigitsBelow ? BigInt(String(value)) : value;
}

/** Objects a caller takes as they are (jsonShaped's `keep`). */
type Keep = ((value: object) => boolean) | undefined;

function shapedAt(value: unknown, depth: number, keep: Keep): unknown {
  switch (typeof value) {
    case 'number':
      return shapedNumber(value);
    case 'bigint':
      return jsonInteger(value);
    case 'string':
    case 'boolean':
      return value;
    case 'object':
      break;
    default:
      // undefined, functions and symbols: not JSON values (an object's such member is dropped by the caller).
      return undefined;
  }
  if (value === null) return null;
  if (keep?.(value)) return value;
  // As JSON.stringify does: a value with a toJSON method is written as what it returns
  // (vectors' rows, src/points/float32-row.ts).
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return shapedAt((value as { toJSON(key: string): unknown }).toJSON(''), depth, keep);
  if (depth > maxJsonDepth) throw errors.malformedJson(`the body is nested deeper than ${maxJsonDepth} levels`);
  if (Array.isArray(value)) {
    const items = new Array<unknown>(value.length);
    for (let index = 0; index < value.length; index += 1) items[index] = shapedAt(value[index], depth + 1, keep) ?? null;
    return items;
  }
  const shaped: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    // The key parseJson refuses (it could poison prototypes when payloads are merged).
    if (key === '__proto__') throw errors.malformedJson('the key "__proto__" is not allowed');
    const member = shapedAt((value as Record<string, unknown>)[key], depth + 1, keep);
    if (member !== undefined) shaped[key] = member;
  }
  return shaped;
}

/**
 * `parseJson(serializeJson(value))` for a value made of plain objects, arrays, strings, numbers,
 * bigints, booleans, null and objects with a `toJSON` method: a fresh copy, undefined members
 * dropped (null in arrays), NaN and ±Infinity as null, safe bigints as numbers and unsafe
 * integers as bigints. Throws the 400 parseJson would for a `__proto__` key or nesting deeper
 * than `maxJsonDepth`. The round trip itself is its slow twin (json-shaped.test.ts). Objects
 * `keep` picks are left as they are (the gRPC door keeps vectors' float32 rows, which its
 * messages carry as float32 anyway).
 */
export function jsonShaped(value: unknown, keep?: (value: object) => boolean): unknown {
  return shapedAt(value, 1, keep);
}
