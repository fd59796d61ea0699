// The fast parser of the common upsert body, `{"points":[{"id":..,"vector":[numbers],"payload":..},..]}`
// (docs/architecture.md §20). A general JSON.parse of a 1,000 x 128 body allocates a JS array per
// vector and a number slot per element, and the lossless check (json/parse.ts) walks every number
// again; here each vector's numbers are read by the kernel straight into one Float64Array slab,
// and the vector is handed on as a view of it (points/vectors.ts takes it like an array of numbers).
//
// It is a fast path only: anything it does not read exactly as JSON.parse would — another shape,
// a multivector, an id that is not a short integer or a plain string, a number out of the double
// range, a payload nested deeply, any syntax error — makes it answer `undefined`, and the caller
// parses the whole body with parseJson (the slow twin), whose values and 400s are unchanged.
// Doubles are kept (not float32) so every later check sees the very value JSON.parse gives.
import { parseJson } from './parse.js';
import { native } from '../native/index.js';

/** A payload with more brackets than this goes to the slow path, so depth limits stay exact. */
const maxPayloadBrackets = 200;

/** Numbers per slab: one allocation serves many vectors (the views keep their slab alive). */
const slabLength = 65_536;

class GiveUp extends Error {}
const giveUp = new GiveUp();

const quote = 0x22;
const comma = 0x2c;
const minus = 0x2d;
const dot = 0x2e;
const zero = 0x30;
const nine = 0x39;
const colon = 0x3a;
const openBracket = 0x5b;
const backslash = 0x5c;
const closeBracket = 0x5d;
const openBrace = 0x7b;
const closeBrace = 0x7d;

function isWhitespace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

class UpsertBodyReader {
  private position = 0;
  private slab = new Float64Array(slabLength);
  private slabUsed = 0;

  constructor(private readonly text: string) {}

  read(): unknown {
    this.expect(openBrace);
    const body: Record<string, unknown> = {};
    if (this.peek() === closeBrace) throw giveUp;
    for (;;) {
      const key = this.readKey();
      if (key !== 'points') throw giveUp;
      this.expect(colon);
      body.points = this.readPoints();
      const next = this.next();
      if (next === closeBrace) break;
      if (next !== comma) throw giveUp;
    }
    this.skipWhitespace();
    if (this.position !== this.text.length) throw giveUp;
    return body;
  }

  private readPoints(): Record<string, unknown>[] {
    this.expect(openBracket);
    const points: Record<string, unknown>[] = [];
    if (this.peek() === closeBracket) {
      this.position += 1;
      return points;
    }
    for (;;) {
      points.push(this.readPoint());
      const next = this.next();
      if (next === closeBracket) return points;
      if (next !== comma) throw giveUp;
    }
  }

  private readPoint(): Record<string, unknown> {
    const point: Record<string, unknown> = {};
    this.readObject((key) => {
      if (key === 'vector') point.vector = this.peek() === openBrace ? this.readNamedVectors() : this.readVector();
      else if (key === 'id') point.id = this.readId();
      else if (key === 'payload') point.payload = this.readSmallValue();
      else throw giveUp;
    });
    return point;
  }

  /**
   * Named vectors, `{"name": [numbers] | value, ...}`: each array of numbers into the slab as
   * `readVector` reads it, any other value (a sparse vector, a Document) as the payload reader
   * does, parsed by parseJson. Hybrid set-ups (LlamaIndex's "text-dense" and "text-sparse") send
   * every point this way.
   */
  private readNamedVectors(): Record<string, unknown> {
    const vectors: Record<string, unknown> = {};
    this.readObject((name) => {
      vectors[name] = this.peek() === openBracket ? this.readVector() : this.readSmallValue();
    });
    return vectors;
  }

  /** `{"key": value, ...}` (or `{}`): `readEntry` reads each key's value, after its colon. */
  private readObject(readEntry: (key: string) => void): void {
    this.expect(openBrace);
    if (this.peek() === closeBrace) {
      this.position += 1;
      return;
    }
    for (;;) {
      const key = this.readKey();
      this.expect(colon);
      readEntry(key);
      const next = this.next();
      if (next === closeBrace) return;
      if (next !== comma) throw giveUp;
    }
  }

  /** A short integer (a number) or a string without escapes; anything else is the slow path's. */
  private readId(): number | string {
    this.skipWhitespace();
    if (this.text.charCodeAt(this.position) === quote) return this.readPlainString();
    const start = this.position;
    let code = this.text.charCodeAt(this.position);
    if (code === minus) {
      this.position += 1;
      code = this.text.charCodeAt(this.position);
    }
    const digitsStart = this.position;
    while (code >= zero && code <= nine) {
      this.position += 1;
      code = this.text.charCodeAt(this.position);
    }
    const digits = this.position - digitsStart;
    // 15 digits are always below 2^53; a fraction or exponent is left to the slow path's messages.
    if (digits === 0 || digits > 15 || (digits > 1 && this.text.charCodeAt(digitsStart) === zero)) throw giveUp;
    if (code === dot || code === 0x65 || code === 0x45) throw giveUp;
    return Number(this.text.slice(start, this.position));
  }

  /** `[numbers]` into the slab; a view of it. The kernel reads the numbers (`readVectorRest`). */
  private readVector(): Float64Array {
    this.expect(openBracket);
    const text = this.text;
    let position = this.position;
    let code = text.charCodeAt(position);
    while (isWhitespace(code)) code = text.charCodeAt(++position);
    if (code === closeBracket) {
      this.position = position + 1;
      return this.slab.subarray(this.slabUsed, this.slabUsed);
    }
    return this.readVectorRest(position, this.slabUsed, 0);
  }

  /**
   * A new slab of at least `places` (and a whole slab's) values, holding at its start the `count`
   * values the vector being read has in the current one from `start`; the current slab stays
   * alive as long as the views of earlier vectors do.
   */
  private moveToNewSlab(start: number, count: number, places: number): Float64Array<ArrayBuffer> {
    const grown = new Float64Array(Math.max(slabLength, places));
    grown.set(this.slab.subarray(start, start + count));
    this.slab = grown;
    return grown;
  }

  /**
   * The rest of a vector from `numberStart` (its first number, or one after it) through its `]`,
   * read by the kernel (`readJsonNumbers`, crates/quiver-core/src/json_numbers.rs) into the slab
   * after the `count` values already there from `start`. Long literals are what Python clients
   * send (numpy's float32 widened to 16–17 digits); `Number()` of each sliced literal made such
   * a body three times slower to read than JSON.parse (bench/README.md, "Long numbers in
   * upserts"), and since the kernel reads short ones by Clinger's fast path too, it reads every
   * vector: 1.3× faster than this file's own loop over 4-decimal bodies ("Query vectors read by
   * the kernel"). The kernel parses doubles correctly rounded, JSON.parse's values, and gives up
   * where JSON.parse would read the text otherwise or refuse it, leaving the body to the slow path.
   */
  private readVectorRest(numberStart: number, start: number, count: number): Float64Array {
    const close = this.text.indexOf(']', numberStart);
    if (close < 0) throw giveUp;
    // Each number takes a character and a separator at least.
    const most = Math.ceil((close - numberStart) / 2) + 1;
    let slab = this.slab;
    if (start + count + most > slab.length) {
      slab = this.moveToNewSlab(start, count, count + most);
      start = 0;
    }
    const read = native.readJsonNumbers(this.text.slice(numberStart, close + 1), slab, start + count);
    if (read < 0) throw giveUp;
    this.position = close + 1;
    this.slabUsed = start + count + read;
    return slab.subarray(start, start + count + read);
  }

  /**
   * A payload: its extent is found here and it is parsed by parseJson (lossless, depth-checked).
   * A deeply nested one is the slow path's, so the body's depth limit is judged as before.
   */
  private readSmallValue(): unknown {
    this.skipWhitespace();
    const text = this.text;
    const start = this.position;
    let depth = 0;
    let brackets = 0;
    let position = start;
    for (;;) {
      if (position >= text.length) throw giveUp;
      const code = text.charCodeAt(position);
      if (code === quote) {
        position = this.stringEnd(position);
        if (depth === 0) break;
        continue;
      }
      if (code === openBrace || code === openBracket) {
        depth += 1;
        brackets += 1;
        if (brackets > maxPayloadBrackets) throw giveUp;
      } else if (code === closeBrace || code === closeBracket) {
        if (depth === 0) break;
        depth -= 1;
        if (depth === 0) {
          position += 1;
          break;
        }
      } else if (depth === 0 && (code === comma || isWhitespace(code))) {
        break;
      }
      position += 1;
    }
    this.position = position;
    try {
      return parseJson(text.slice(start, position));
    } catch {
      // A malformed payload: the slow path's whole-body message (with its position) is the answer.
      throw giveUp;
    }
  }

  /** The position after the string starting at `position` (a quote). */
  private stringEnd(position: number): number {
    const text = this.text;
    let cursor = position + 1;
    for (;;) {
      const end = text.indexOf('"', cursor);
      if (end < 0) throw giveUp;
      // An escaped quote has an odd run of backslashes before it.
      let backslashes = 0;
      while (text.charCodeAt(end - 1 - backslashes) === backslash) backslashes += 1;
      if (backslashes % 2 === 0) return end + 1;
      cursor = end + 1;
    }
  }

  /** A string without escapes or control characters (keys and string ids). */
  private readPlainString(): string {
    this.skipWhitespace();
    if (this.text.charCodeAt(this.position) !== quote) throw giveUp;
    const start = this.position + 1;
    const end = this.text.indexOf('"', start);
    if (end < 0) throw giveUp;
    for (let cursor = start; cursor < end; cursor += 1) {
      const code = this.text.charCodeAt(cursor);
      if (code === backslash || code < 0x20) throw giveUp;
    }
    this.position = end + 1;
    return this.text.slice(start, end);
  }

  private readKey(): string {
    return this.readPlainString();
  }

  private skipWhitespace(): void {
    while (isWhitespace(this.text.charCodeAt(this.position))) this.position += 1;
  }

  private peek(): number {
    this.skipWhitespace();
    return this.text.charCodeAt(this.position);
  }

  private next(): number {
    this.skipWhitespace();
    const code = this.text.charCodeAt(this.position);
    this.position += 1;
    return code;
  }

  private expect(code: number): void {
    if (this.next() !== code) throw giveUp;
  }
}

/**
 * The upsert body as parseJson would give it, except that each point's `vector` (a flat array of
 * numbers) is a Float64Array of the same values; `undefined` when the body is not in the shape
 * this parser reads exactly, or is not valid JSON (the caller then uses parseJson). Never throws.
 */
export function parseUpsertBody(text: string): unknown {
  if (text.includes('"__proto__"')) return undefined;
  try {
    return new UpsertBodyReader(text).read();
  } catch (error) {
    if (error === giveUp) return undefined;
    throw error;
  }
}
