// Lossless JSON parsing: integers above 2^53 (point ids such as 424242424242424242) must survive
// exactly, which plain JSON.parse cannot do. Every body is parsed by the fast native parser
// first; only a body holding a number beyond the safe-integer range — the only kind an unsafe
// integer literal can turn into — is parsed again by the lossless parser.
//
// A body with long arrays of numbers (a query vector) has them read by the kernel, and only the
// rest of the text goes to JSON.parse: V8 took ~90 µs of the JS thread to read a 768-d search
// body, a sixth of what the request cost (bench/README.md, "Query vectors read by the kernel").
import { randomBytes } from 'node:crypto';
import { isInteger, isSafeNumber, parse as parseLossless } from 'lossless-json';
import { errors } from '../errors.js';
import { native } from '../native/index.js';

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
 * Texts shorter than this go to JSON.parse whole: the kernel's pass would cost more than it saves.
 * With one pass per number (json_numbers.rs) the kernel's way wins from ~48 numbers (~375
 * characters): a 128-d search body (~970 characters) took 6.2 µs against 12.7 µs whole, a 32-d
 * one (~260) was level (bench/README.md, "Query numbers read in one pass").
 */
const kernelTextLength = 512;
/** The key refused in any body (parseJsonWhole): it could poison prototypes when payloads merge. */
const protoKey = '"__proto__"';
/** Arrays of at least this many numbers are read by the kernel. */
const kernelArrayLength = 32;
/** Where the kernel reads the arrays' numbers; arrays beyond its room are left to JSON.parse. */
const kernelScratch = new Float64Array(65_536);
/**
 * Takes an array's place in the text handed to JSON.parse: a string no body's own string can
 * hold by chance (a NUL and random digits made once per process), then the array's number.
 */
const arrayMarker = `\u0000${randomBytes(9).toString('hex')}:`;

class ArraysNotRestored extends Error {}
const arraysNotRestored = new ArraysNotRestored();

/**
 * `value` (JSON.parse's answer for the text with arrays replaced by markers) with each marker
 * string replaced by its array, in place. Walks as holdsUnsafeNumberAt does (the same depth
 * rule and error); throws `arraysNotRestored` at a number beyond ±(2^53 - 1) (the lossless
 * parser must read the text) or a marker that is not in a value's place once.
 */
function restoreArrays(value: unknown, depth: number, arrays: (number[] | undefined)[]): unknown {
  if (typeof value === 'number') {
    if (value > Number.MAX_SAFE_INTEGER || value < -Number.MAX_SAFE_INTEGER) throw arraysNotRestored;
    return value;
  }
  if (typeof value === 'string') {
    if (!value.startsWith(arrayMarker)) return value;
    if (depth > maxJsonDepth) throw new Error(`the body is nested deeper than ${maxJsonDepth} levels`);
    const index = Number(value.slice(arrayMarker.length));
    const array = arrays[index];
    if (array === undefined) throw arraysNotRestored;
    arrays[index] = undefined;
    return array;
  }
  if (typeof value !== 'object' || value === null) return value;
  if (depth > maxJsonDepth) throw new Error(`the body is nested deeper than ${maxJsonDepth} levels`);
  if (Array.isArray(value)) {
    for (let position = 0; position < value.length; position += 1) {
      const item: unknown = value[position];
      const restored = restoreArrays(item, depth + 1, arrays);
      if (restored !== item) value[position] = restored;
    }
    return value;
  }
  const record = value as Record<string, unknown>;
  for (const key in record) {
    const member = record[key];
    const restored = restoreArrays(member, depth + 1, arrays);
    if (restored !== member) record[key] = restored;
  }
  return value;
}

/**
 * parseJson's value for a text with long number arrays, the kernel reading those; undefined
 * when it has none, or when anything is not plain (malformed text, an unsafe integer, a marker
 * out of place): the slow twin then parses the whole text, and its value or error stands.
 * `found` is the kernel's answer (findJsonNumberArrays or its bytes twin), `slice` the text
 * between two of its positions.
 */
function parseWithKernelArrays(found: number[], slice: (from: number, to?: number) => string): unknown {
  if (found.length === 0) return undefined;
  const arrays: (number[] | undefined)[] = [];
  let rest = '';
  let from = 0;
  for (let at = 0; at < found.length; at += 4) {
    const [start, end, first, count] = [found[at]!, found[at + 1]!, found[at + 2]!, found[at + 3]!];
    const numbers = new Array<number>(count);
    for (let position = 0; position < count; position += 1) numbers[position] = kernelScratch[first + position]!;
    rest += slice(from, start) + JSON.stringify(`${arrayMarker}${arrays.length}`);
    arrays.push(numbers);
    from = end;
  }
  rest += slice(from);
  // The key is looked for here rather than in the whole text: the arrays cut out hold only
  // numbers, commas and whitespace, so every `"__proto__"` of the text is in the rest, and the
  // rest of a search body is a few dozen characters against thousands (the slow path refuses it).
  if (rest.includes(protoKey)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(rest);
  } catch {
    return undefined;
  }
  try {
    value = restoreArrays(value, 1, arrays);
  } catch (error) {
    if (error === arraysNotRestored) return undefined;
    throw error;
  }
  return arrays.every((array) => array === undefined) ? value : undefined;
}

/**
 * parseJson without the kernel's arrays: JSON.parse of the whole text, then the lossless parser
 * where a number is beyond the safe range. The slow twin of the kernel's path (json.test.ts).
 */
export function parseJsonWhole(text: string): unknown {
  if (text.includes(protoKey)) throw errors.malformedJson('the key "__proto__" is not allowed');
  try {
    const value: unknown = JSON.parse(text);
    if (!holdsUnsafeNumber(value)) return value;
    checkDepth(value);
    return parseLossless(text, null, parseNumberLiteral);
  } catch (error) {
    throw errors.malformedJson((error as Error).message);
  }
}

/**
 * Parses a JSON text; unsafe integers become `bigint`, every other number a `number`.
 * Throws the registry's 400 error for malformed text or a `__proto__` key, which could
 * otherwise poison object prototypes when payloads are merged.
 */
export function parseJson(text: string): unknown {
  if (text.length >= kernelTextLength) {
    const value = kernelArraysOrMalformed(() => native.findJsonNumberArrays(text, kernelArrayLength, kernelScratch), (from, to) => text.slice(from, to));
    if (value !== undefined) return value;
  }
  return parseJsonWhole(text);
}

/** parseWithKernelArrays with what it throws (a nesting beyond the limit) as the registry's 400. */
function kernelArraysOrMalformed(find: () => number[], slice: (from: number, to?: number) => string): unknown {
  try {
    return parseWithKernelArrays(find(), slice);
  } catch (error) {
    throw errors.malformedJson((error as Error).message);
  }
}

/**
 * parseJson of a UTF-8 text as it arrived (a request body's Buffer). A body with long number
 * arrays is never made into one string: the kernel reads the bytes in place and only the text
 * around the arrays is decoded. For a 768-d search body that saves decoding ~5,700 characters and
 * copying them again into the kernel's call (bench/README.md, "Query numbers read in one pass").
 * Anything else is decoded whole and goes to the slow twin, as parseJson's text would; invalid
 * UTF-8 reads as U+FFFD either way, since the pieces are cut only at the arrays' ASCII brackets.
 */
export function parseJsonBytes(bytes: Buffer): unknown {
  if (bytes.length >= kernelTextLength) {
    const value = kernelArraysOrMalformed(() => native.findJsonNumberArraysInBytes(bytes, kernelArrayLength, kernelScratch), (from, to) => bytes.toString('utf8', from, to));
    if (value !== undefined) return value;
  }
  return parseJsonWhole(bytes.toString('utf8'));
}
