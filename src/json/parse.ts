// Lossless JSON parsing: integers above 2^53 (point ids such as 424242424242424242) must survive
// exactly, which plain JSON.parse cannot do. Bodies without a long digit run, nearly all of
// them, stay on the fast native parser.
import { isInteger, isSafeNumber, parse as parseLossless } from 'lossless-json';
import { errors } from '../errors.js';

// 2^53 has 16 digits, so a shorter run of digits is always a safe integer.
const possiblyUnsafeInteger = /\d{16,}/;

function parseNumberLiteral(literal: string): number | bigint {
  return isInteger(literal) && !isSafeNumber(literal) ? BigInt(literal) : Number(literal);
}

/**
 * Parses a JSON text; unsafe integers become `bigint`, every other number a `number`.
 * Throws the registry's 400 error for malformed text or a `__proto__` key, which could
 * otherwise poison object prototypes when payloads are merged.
 */
export function parseJson(text: string): unknown {
  if (text.includes('"__proto__"')) throw errors.malformedJson('the key "__proto__" is not allowed');
  try {
    return possiblyUnsafeInteger.test(text) ? parseLossless(text, null, parseNumberLiteral) : JSON.parse(text);
  } catch (error) {
    throw errors.malformedJson((error as Error).message);
  }
}
