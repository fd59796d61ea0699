import { describe, expect, it } from 'vitest';
import { QuiverError } from '../errors.js';
import { parseJson } from './parse.js';
import { serializeJson } from './serialize.js';

describe('json codec', () => {
  it('keeps integers above 2^53 exact through parse and serialise', () => {
    const text = '{"id":424242424242424242,"small":42,"float":1.25}';
    const value = parseJson(text) as Record<string, unknown>;
    expect(value.id).toBe(424242424242424242n);
    expect(value.small).toBe(42);
    expect(value.float).toBe(1.25);
    expect(serializeJson(value)).toBe(text);
  });

  it('keeps the largest u64 exact', () => {
    const value = parseJson('[18446744073709551615]') as unknown[];
    expect(value[0]).toBe(18446744073709551615n);
    expect(serializeJson(value)).toBe('[18446744073709551615]');
  });

  it('reads long float literals and long digit strings as plain values', () => {
    const value = parseJson('{"pi":3.14159265358979323846,"text":"12345678901234567890"}') as Record<string, unknown>;
    expect(value.pi).toBeCloseTo(Math.PI, 12);
    expect(value.text).toBe('12345678901234567890');
  });

  it('refuses malformed JSON with a registry error', () => {
    expect(() => parseJson('{"a":')).toThrow(QuiverError);
    expect(() => parseJson('{"a":')).toThrow(/Format error in JSON body/);
  });

  it('refuses a __proto__ key so merges cannot poison prototypes', () => {
    expect(() => parseJson('{"__proto__":{"polluted":true}}')).toThrow(/__proto__/);
  });

  it('serialises values without bigints exactly like JSON.stringify', () => {
    const value = { a: [1, 2.5, 'x', null, true], b: { c: 'd' } };
    expect(serializeJson(value)).toBe(JSON.stringify(value));
  });
});

describe('json codec fast path', () => {
  it('parses long float literals exactly like JSON.parse (they never need the slow path)', () => {
    const text = '{"vector":[0.8444218515250481,-0.7579544029403025,1.2345678901234567e-5,12345678901234567.5]}';
    expect(parseJson(text)).toEqual(JSON.parse(text));
  });

  it('still finds an unsafe integer next to floats, negative or in an array', () => {
    const value = parseJson('{"points":[{"id":9007199254740993,"vector":[0.1234567890123456789]}],"n":-9007199254740993}') as {
      points: Array<{ id: unknown }>;
      n: unknown;
    };
    expect(value.points[0]!.id).toBe(9007199254740993n);
    expect(value.n).toBe(-9007199254740993n);
  });
});

describe('json codec unsafe-number detection', () => {
  it('a float beyond 2^53 such as 1e20 stays a number after the lossless re-parse', () => {
    expect(parseJson('{"big":1e20,"id":18446744073709551615}')).toEqual({ big: 1e20, id: 18446744073709551615n });
  });
});
