// Lossless JSON parsing: integers above 2^53 (point ids such as 424242424242424242) must survive
// exactly, which plain JSON.parse cannot do. Every body is parsed by the fast native parser
// first; only a body holding a number beyond the safe-integer range — the only kind an unsafe
// integer literal can turn into — is parsed again by the lossless parser.
import { isInteger, isSafeNumber, parse as parseLossless } from 'lossless-json';
import { errors } from '../errors.js';

function parseNumberLiteral(literal: string): number | bigint {
  if (isInteger(literal) && !isSafeNumber(literal)) return BigInt(literal);
  const value = Number(literal);
  // `1e400` would silently become Infinity, then `null` when printed back: refuse it, as serde does.
  if (!Number.isFinite(value)) throw new Error(`number ${literal} is out of range`);
  return value;
}

/**
 * Deepest nesting of objects and arrays a body may have. Qdrant (serde_json) stops at 128; we
 * allow more so that the deepest filter our own limits accept still parses, yet stay far below
 * the depth where the recursive walks over payloads and filters would overflow the stack (which
 * would turn a hostile body into a 500).
 */
export const maxJsonDepth = 256;

function holdsUnsafeNumberAt(value: unknown, depth: number): boolean {
  if (typeof value === 'number') return value > Number.MAX_SAFE_INTEGER || value < -Number.MAX_SAFE_INTEGER;
  if (typeof value !== 'object' || value === null) return false;
  if (depth > maxJsonDepth) throw new Error(`the body is nested deeper than ${maxJsonDepth} levels`);
  if (Array.isArray(value)) {
    for (const item of value) {
      if (typeof item === 'number') {
        if (item > Number.MAX_SAFE_INTEGER || item < -Number.MAX_SAFE_INTEGER) return true;
      } else if (typeof item === 'object' && item !== null && holdsUnsafeNumberAt(item, depth + 1)) {
        return true;
      }
    }
    return false;
  }
  for (const key in value) {
    if (holdsUnsafeNumberAt((value as Record<string, unknown>)[key], depth + 1)) return true;
  }
  return false;
}

/**
 * Whether a parsed value holds a number outside ±(2^53 - 1). Walking the parsed values is far
 * cheaper than scanning the text: a vector body has one value per ~19 characters. The same walk
 * bounds the nesting depth (throws beyond maxJsonDepth), so it stops early on hostile input.
 */
export function holdsUnsafeNumber(value: unknown): boolean {
  return holdsUnsafeNumberAt(value, 1);
}

/**
 * Throws beyond maxJsonDepth. holdsUnsafeNumber stops at the first unsafe number, so the part of
 * the body after it would go unchecked; the lossless re-parse keeps the same structure, so the
 * native parse's value is walked in full before it runs (docs/api.md §1).
 */
function checkDepth(value: unknown): void {
  const pending: [unknown, number][] = [[value, 1]];
  while (pending.length > 0) {
    const [node, depth] = pending.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    if (depth > maxJsonDepth) throw new Error(`the body is nested deeper than ${maxJsonDepth} levels`);
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (typeof child === 'object' && child !== null) pending.push([child, depth + 1]);
    }
  }
}

/**
 * Parses a JSON text; unsafe integers become `bigint`, every other number a `number`.
 * Throws the registry's 400 error for malformed text or a `__proto__` key, which could
 * otherwise poison object prototypes when payloads are merged.
 */
export function parseJson(text: string): unknown {
  if (text.includes('"__proto__"')) throw errors.malformedJson('the key "__proto__" is not allowed');
  try {
    const value: unknown = JSON.parse(text);
    if (!holdsUnsafeNumber(value)) return value;
    checkDepth(value);
    return parseLossless(text, null, parseNumberLiteral);
  } catch (error) {
    throw errors.malformedJson((error as Error).message);
  }
}
