import { describe, expect, it } from 'vitest';
import { QuiverError } from '../errors.js';
import { parseJson, parseJsonBytes, parseJsonWhole } from './parse.js';
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

describe('json codec: number arrays read by the kernel', () => {
  /** A parse's value, or its error's message. */
  function outcomeOf(parse: () => unknown): { value: unknown } | { error: string } {
    try {
      return { value: parse() };
    } catch (error) {
      return { error: (error as Error).message };
    }
  }

  /** parseJson's value or error message, and its slow twin's (parseJsonWhole), side by side. */
  function bothWays(text: string): [unknown, unknown] {
    return [outcomeOf(() => parseJson(text)), outcomeOf(() => parseJsonWhole(text))];
  }

  it('parseJson — a body with long number arrays gives parseJsonWhole\'s value or error (its slow twin), on random bodies', () => {
    let state = 0x2545f491;
    const next = () => {
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      return (state >>> 0) / 2 ** 32;
    };
    const numberText = () => {
      const kind = Math.floor(next() * 6);
      if (kind === 0) return String(Math.floor(next() * 1000) - 500);
      if (kind === 1) return (next() - 0.5).toString();
      if (kind === 2) return `${(next() * 9).toFixed(3)}e${Math.floor(next() * 40) - 20}`;
      if (kind === 3) return '-0';
      if (kind === 4) return String(Number.MAX_SAFE_INTEGER + Math.floor(next() * 5));
      return (Math.fround(next() - 0.5) * 1).toPrecision(17);
    };
    const array = (length: number) => `[${Array.from({ length }, numberText).join(next() < 0.5 ? ',' : ' , ')}]`;
    const strings = ['"plain"', '"[1,2,3] in a string"', '"an \\" escaped [4,5,6] quote"', '"é€😀 [7,8]"', JSON.stringify('\u0000 nul')];
    const pick = <T>(items: T[]) => items[Math.floor(next() * items.length)]!;
    const value = (depth: number): string => {
      const kind = Math.floor(next() * (depth > 3 ? 3 : 6));
      if (kind === 0) return array(Math.floor(next() * 80));
      if (kind === 1) return pick(strings);
      if (kind === 2) return numberText();
      if (kind === 3) return `[${Array.from({ length: Math.floor(next() * 4) }, () => value(depth + 1)).join(',')}]`;
      return `{${Array.from({ length: 1 + Math.floor(next() * 4) }, (_, index) => `${pick(strings).slice(0, -1)}${index}":${value(depth + 1)}`).join(',')}}`;
    };
    const damages = [(text: string) => text, (text: string) => text.slice(0, -1), (text: string) => text.replace(']', ']]'), (text: string) => text.replace(',', ',,')];
    let kernelShaped = 0;
    for (let round = 0; round < 400; round += 1) {
      const body = `{"vector":${array(32 + Math.floor(next() * 800))},"rest":${value(0)},"limit":10}`;
      const text = round % 5 === 4 ? pick(damages)(body) : body;
      const [fast, slow] = bothWays(text);
      expect(fast, text).toEqual(slow);
      expect(outcomeOf(() => parseJsonBytes(Buffer.from(text))), text).toEqual(slow);
      if ('value' in (slow as object)) kernelShaped += 1;
    }
    expect(kernelShaped).toBeGreaterThan(300);
  });

  it('parseJsonBytes — a body\'s bytes give what parseJson gives of their UTF-8 text, invalid sequences and all', () => {
    const row = Array.from({ length: 200 }, (_, index) => (index - 100) / 7);
    const pieces = [
      Buffer.from(`{"vector":${JSON.stringify(row)},"note":"`),
      Buffer.from([0xc3, 0xa9, 0xff, 0xe2, 0x82]), // é, a byte no UTF-8 has, a cut-off €
      Buffer.from(`","more":${JSON.stringify(row)},"tail":"\u00e9 😀"}`),
    ];
    const bytes = Buffer.concat(pieces);
    const expected = parseJson(bytes.toString('utf8')) as { vector: number[]; note: string };
    expect(parseJsonBytes(bytes)).toEqual(expected);
    expect(expected.note).toBe('é\ufffd\ufffd');
    expect(expected.vector).toEqual(row);
    // A cut-off sequence right before an array's bracket decodes alike.
    const cut = Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xe2, 0x82]), Buffer.from(`","v":${JSON.stringify(row)}}`)]);
    expect(outcomeOf(() => parseJsonBytes(cut))).toEqual(outcomeOf(() => parseJson(cut.toString('utf8'))));
    // The refused key and malformed text get parseJson's errors.
    // (The key is looked for in the text around the arrays: before, between and after them.)
    const refused = [`{"__proto__":{"x":1},"v":${JSON.stringify(row)}}`, `{"v":${JSON.stringify(row)},"w":{"__proto__":1},"u":${JSON.stringify(row)}}`, `{"v":${JSON.stringify(row)},"__proto__":{"x":1}}`];
    for (const text of [...refused, `{"v":${JSON.stringify(row)}`, `{"v":${JSON.stringify(row)},}`]) {
      expect(outcomeOf(() => parseJsonBytes(Buffer.from(text)))).toEqual(outcomeOf(() => parseJson(text)));
      expect(outcomeOf(() => parseJson(text))).toHaveProperty('error');
    }
  });

  it('parseJson — arrays in a value\'s place come back as plain arrays; one out of place, or an unsafe integer, takes the slow twin', () => {
    const row = Array.from({ length: 40 }, (_, index) => index / 8 - 2);
    const text = JSON.stringify({ vector: row, matrix: [row, row], note: 'x'.repeat(1000) });
    const value = parseJson(text) as { vector: number[]; matrix: number[][] };
    expect(value).toEqual(JSON.parse(text));
    expect(Array.isArray(value.vector) && Array.isArray(value.matrix[1])).toBe(true);
    // An array as an object's key is not JSON; written where a marker would parse as a key.
    for (const text of [`{${JSON.stringify(row)}:1,"pad":"${'y'.repeat(1000)}"}`, `{"id":9007199254740993,"vector":${JSON.stringify(row)},"pad":"${'z'.repeat(1000)}"}`]) {
      const [fast, slow] = bothWays(text);
      expect(fast).toEqual(slow);
    }
    expect((parseJson(`{"id":9007199254740993,"vector":${JSON.stringify(row)},"pad":"${'z'.repeat(1000)}"}`) as { id: unknown }).id).toBe(9007199254740993n);
    // Depth counts the kernel's arrays as JSON.parse's would be counted.
    const deep = `${'['.repeat(256)}${JSON.stringify(row)}${']'.repeat(256)}`;
    expect(bothWays(deep)[0]).toEqual({ error: expect.stringMatching(/nested deeper than 256/) });
    expect(bothWays(deep)[0]).toEqual(bothWays(deep)[1]);
  });
});
