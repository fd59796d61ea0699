import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../test/support/seeded-random.js';
import { jsonShaped } from './json-shaped.js';
import { maxJsonDepth, parseJson } from './parse.js';
import { serializeJson } from './serialize.js';

/** The slow twin: the value written as JSON text and read back. */
const roundTrip = (value: unknown) => parseJson(serializeJson(value));

const awkwardNumbers = [0, -0, 1, -1, 0.1, 1e-7, 2 ** 53 - 1, 2 ** 53, -(2 ** 53), 2 ** 60, 1e20, 1e21, 1.5e300, -1e308, Number.NaN, Infinity, -Infinity, 3.4028234663852886e38];
const awkwardBigints = [0n, 42n, -42n, 2n ** 53n - 1n, 2n ** 53n, -(2n ** 60n), 2n ** 64n - 1n];

function randomValue(random: () => number, depth: number): unknown {
  const pick = Math.floor(random() * (depth > 4 ? 7 : 10));
  switch (pick) {
    case 0:
      return awkwardNumbers[Math.floor(random() * awkwardNumbers.length)];
    case 1:
      return awkwardBigints[Math.floor(random() * awkwardBigints.length)];
    case 2:
      return random() * 2000 - 1000;
    case 3:
      return ['', 'text', 'ünïcode', '"quoted"', '12345678901234567890'][Math.floor(random() * 5)];
    case 4:
      return random() < 0.5;
    case 5:
      return null;
    case 6:
      return undefined;
    case 7:
    case 8: {
      const object: Record<string, unknown> = {};
      const members = Math.floor(random() * 5);
      for (let member = 0; member < members; member += 1) object[`key${Math.floor(random() * 8)}`] = randomValue(random, depth + 1);
      return object;
    }
    default:
      return Array.from({ length: Math.floor(random() * 6) }, () => randomValue(random, depth + 1));
  }
}

function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let level = 0; level < depth; level += 1) value = level % 2 === 0 ? [value] : { inner: value };
  return value;
}

describe('values handed to the routes in process', () => {
  it('are what writing them as JSON and reading them back gives, for any mix of JSON values', () => {
    const random = mulberry32(20261125);
    for (let sample = 0; sample < 3000; sample += 1) {
      const value = { body: randomValue(random, 0) };
      expect(jsonShaped(value)).toStrictEqual(roundTrip(value));
    }
  });

  it('turn awkward numbers into what the codec reads back: null for non-finite, 0 for -0, bigint beyond 2^53', () => {
    for (const number of [...awkwardNumbers, ...awkwardBigints]) {
      const shaped = (jsonShaped([number]) as unknown[])[0];
      const expected = (roundTrip([number]) as unknown[])[0];
      expect(Object.is(shaped, expected), `${String(number)}: ${String(shaped)} vs ${String(expected)}`).toBe(true);
    }
  });

  it('are copies: changing the shaped value leaves the original alone', () => {
    const original = { vector: [1, 2, 3], filter: { must: [{ key: 'a' }] } };
    const shaped = jsonShaped(original) as typeof original;
    shaped.vector[0] = 9;
    shaped.filter.must[0]!.key = 'b';
    expect(original).toStrictEqual({ vector: [1, 2, 3], filter: { must: [{ key: 'a' }] } });
  });

  it('are refused with the message parseJson gives for a __proto__ key', () => {
    const hostile = JSON.parse('{"payload":{"__proto__":{"polluted":true}}}') as unknown;
    expect(() => roundTrip(hostile)).toThrow(/the key "__proto__" is not allowed/);
    expect(() => jsonShaped(hostile)).toThrow(/^Format error in JSON body: the key "__proto__" is not allowed$/);
  });

  it('are refused with the message parseJson gives when nested deeper than the limit, and accepted at it', () => {
    expect(jsonShaped(nested(maxJsonDepth - 1))).toStrictEqual(roundTrip(nested(maxJsonDepth - 1)));
    expect(() => roundTrip(nested(maxJsonDepth + 1))).toThrow(/nested deeper than 256 levels/);
    expect(() => jsonShaped(nested(maxJsonDepth + 1))).toThrow(/^Format error in JSON body: the body is nested deeper than 256 levels$/);
  });
});
