// A request value as it appears in an error message. JSON.stringify throws on a bigint (integers
// beyond 2^53 arrive as bigint from the lossless parser, docs/api.md §1), and a throw while
// building a 400 would become a 500; this never throws.
import { serializeJson } from './serialize.js';

/** The value as JSON text (bigints as integer literals), cut to `maxLength` characters when given. */
export function describeJsonValue(value: unknown, maxLength?: number): string {
  let text: string;
  try {
    text = typeof value === 'bigint' ? value.toString() : (serializeJson(value) ?? String(value));
  } catch {
    text = String(value);
  }
  if (maxLength === undefined || text.length <= maxLength) return text;
  return `${text.slice(0, maxLength - 3)}...`;
}
