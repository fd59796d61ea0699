// JSON serialisation that writes bigint values as integer literals, and lets values that know
// their own JSON text (vectors, whose text the kernel writes: src/points/float32-row.ts) put it in
// place. JSON.stringify throws on a bigint, so the fast native path is tried first and the
// lossless writer only runs for the rare response that holds one; no walk over the value is needed
// to decide.
import { randomBytes } from 'node:crypto';
import { stringify as stringifyLossless } from 'lossless-json';

/** A value that can write its own JSON text, cheaper than JSON.stringify would from its `toJSON`. */
export interface OwnJsonText {
  jsonText(): string;
}

/**
 * Marks a value's place in JSON.stringify's text: a string that no other value's text can hold
 * by chance (a NUL, written `\u0000`, and random digits made once per process), then its number.
 */
const marker = `\u0000${randomBytes(9).toString('hex')}:`;
/** The marker as JSON.stringify writes it, from the string's opening quote. */
const writtenMarker = JSON.stringify(marker).slice(0, -1);

/** The values of the serialisation under way that asked for their own text, in the order written. */
let ownTexts: OwnJsonText[] | undefined;

/**
 * For a `toJSON` method: inside serializeJson, the string that keeps `value`'s place, to be
 * replaced by `value.jsonText()`; anywhere else (a plain JSON.stringify, the lossless writer),
 * undefined, and the caller returns its plain JSON value.
 */
export function ownTextPlaceholder(value: OwnJsonText): string | undefined {
  if (ownTexts === undefined) return undefined;
  ownTexts.push(value);
  return `${marker}${ownTexts.length - 1}`;
}

/**
 * `text` with each placeholder replaced by its value's own text; undefined if the placeholders
 * found are not exactly those handed out, in order (a string that imitates one), so that the
 * caller writes the value again without them.
 */
function withOwnTexts(text: string, values: readonly OwnJsonText[]): string | undefined {
  const parts: string[] = [];
  let from = 0;
  for (let expected = 0; ; expected += 1) {
    const at = text.indexOf(writtenMarker, from);
    if (at < 0) break;
    const digitsStart = at + writtenMarker.length;
    const end = text.indexOf('"', digitsStart);
    if (expected >= values.length || text.slice(digitsStart, end) !== String(expected)) return undefined;
    parts.push(text.slice(from, at), values[expected]!.jsonText());
    from = end + 1;
  }
  if (parts.length !== values.length * 2) return undefined;
  parts.push(text.slice(from));
  return parts.join('');
}

/** JSON.stringify, with `collected` receiving the values that ask for their own text (none if undefined). */
function stringifyCollecting(value: unknown, collected: OwnJsonText[] | undefined): string {
  const outer = ownTexts;
  ownTexts = collected;
  try {
    return JSON.stringify(value);
  } catch (error) {
    if (!(error instanceof TypeError && /BigInt/i.test(error.message))) throw error;
    // The lossless writer calls each toJSON too: there the values give their plain JSON.
    ownTexts = undefined;
    if (collected !== undefined) collected.length = 0;
    return stringifyLossless(value) ?? 'null';
  } finally {
    ownTexts = outer;
  }
}

export function serializeJson(value: unknown): string {
  const collected: OwnJsonText[] = [];
  const text = stringifyCollecting(value, collected);
  if (collected.length === 0) return text;
  return withOwnTexts(text, collected) ?? stringifyCollecting(value, undefined);
}
