// JSON serialisation that writes bigint values as integer literals. JSON.stringify throws on a
// bigint, so the fast native path is tried first and the lossless writer only runs for the rare
// response that holds one; no walk over the value is needed to decide.
import { stringify as stringifyLossless } from 'lossless-json';

export function serializeJson(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (error) {
    if (error instanceof TypeError && /BigInt/i.test(error.message)) {
      return stringifyLossless(value) ?? 'null';
    }
    throw error;
  }
}
