import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../test/support/seeded-random.js';
import { parseJson } from './parse.js';
import { parseUpsertBody } from './upsert-body-parser.js';

/** The fast parser's answer with its Float64Array vectors as plain arrays: parseJson's shape. */
function asPlain(value: unknown): unknown {
  if (value instanceof Float64Array) return Array.from(value);
  if (Array.isArray(value)) return value.map(asPlain);
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, asPlain(item)]));
  return value;
}

/** A number literal of one of the forms clients send, valid JSON. */
function numberLiteral(random: () => number): string {
  const sign = random() < 0.3 ? '-' : '';
  switch (Math.floor(random() * 9)) {
    case 0:
      return `${sign}${(random() * 2).toFixed(4)}`;
    case 1:
      return `${sign}${random()}`; // up to 17 significant digits: read by Number()
    case 2:
      return `${sign}${Math.floor(random() * 1000)}`;
    case 3:
      return `${sign}${(random() * 10).toFixed(1 + Math.floor(random() * 20))}`; // long fractions
    case 4:
      return `${sign}${Math.floor(random() * 9) + 1}.${Math.floor(random() * 1000)}e${random() < 0.5 ? '-' : '+'}${Math.floor(random() * 40)}`;
    case 5:
      return `${sign}0`;
    case 6:
      return `${sign}0.${'0'.repeat(Math.floor(random() * 25))}${Math.floor(random() * 100_000) + 1}`;
    case 7:
      return `${sign}${Math.floor(random() * 1e15)}.${Math.floor(random() * 1e6)}E${Math.floor(random() * 10)}`;
    default:
      return `${sign}${(random() * 1e-3).toExponential(Math.floor(random() * 16))}`;
  }
}

function space(random: () => number): string {
  return random() < 0.2 ? [' ', '\n', '\t', '\r\n  '][Math.floor(random() * 4)]! : '';
}

function randomPayload(random: () => number): string {
  const forms = [
    'null',
    '{}',
    `{"group":${Math.floor(random() * 100)}}`,
    `{"text":"a \\"quoted\\" word, a [bracket] and {brace}","tags":["x","y\\\\"],"nested":{"list":[1,2.5,{"deep":[true,false,null]}]}}`,
    '{"big":424242424242424242,"small":-7}',
    `{"unicode":"\\u00e9t\\u00e9 \u2014 ${Math.floor(random() * 10)}"}`,
  ];
  return forms[Math.floor(random() * forms.length)]!;
}

function randomId(random: () => number, position: number): string {
  if (random() < 0.2) return `"${Math.floor(random() * 0xffffffff).toString(16).padStart(8, '0')}-0000-4000-8000-${String(position).padStart(12, '0')}"`;
  return String(position + 1);
}

function randomBody(random: () => number): string {
  const points: string[] = [];
  const count = 1 + Math.floor(random() * 6);
  for (let position = 0; position < count; position += 1) {
    const dimension = 1 + Math.floor(random() * 12);
    const values = Array.from({ length: dimension }, () => `${space(random)}${numberLiteral(random)}${space(random)}`);
    const dense = `[${values.join(',')}]`;
    // Named vectors too: dense ones, a sparse one, a Document, an empty set.
    const vector = [
      dense,
      dense,
      `{${space(random)}"text-dense":${space(random)}${dense},"text-sparse":{"indices":[1,${space(random)}7],"values":[0.5,${numberLiteral(random)}]}${space(random)}}`,
      `{"a":${dense},${space(random)}"b":[${numberLiteral(random)}],"doc":{"text":"a \\"quoted\\" [word]","model":"qdrant/bm25"}}`,
      '{}',
    ][Math.floor(random() * 5)]!;
    const fields = [`"id":${space(random)}${randomId(random, position)}`, `"vector":${space(random)}${vector}`];
    if (random() < 0.8) fields.push(`"payload":${space(random)}${randomPayload(random)}`);
    // Key order is the client's.
    if (random() < 0.3) fields.reverse();
    points.push(`${space(random)}{${fields.join(`,${space(random)}`)}}`);
  }
  return `${space(random)}{"points":${space(random)}[${points.join(',')}]${space(random)}}${space(random)}`;
}

describe('fast upsert body parser', () => {
  it('upsert parser — agrees with parseJson, value for value, on random bodies (and reads them all)', () => {
    const random = mulberry32(20);
    for (let round = 0; round < 500; round += 1) {
      const text = randomBody(random);
      const fast = parseUpsertBody(text);
      expect(fast, text).toBeDefined();
      expect(asPlain(fast), text).toEqual(parseJson(text));
      for (const point of (fast as { points: { vector: unknown }[] }).points) {
        // Every dense vector, named or not, is read into the slab.
        const vectors = point.vector instanceof Float64Array ? [point.vector] : Object.values(point.vector as object).filter((value) => !('text' in value || 'indices' in value));
        for (const dense of vectors) expect(dense).toBeInstanceOf(Float64Array);
      }
    }
  });

  it('upsert parser — reads every number exactly as JSON.parse, bit for bit (signed zeros too)', () => {
    const random = mulberry32(21);
    const literals = Array.from({ length: 20_000 }, () => numberLiteral(random));
    literals.push('0', '-0', '-0.0', '0.1', '0.30000000000000004', '9007199254740993', '123456789012345', '1234567890123456', '1e22', '1e23', '2.2250738585072014e-308', '5e-324', '1.7976931348623157e308');
    const text = `{"points":[{"id":1,"vector":[${literals.join(',')}]}]}`;
    const fast = (parseUpsertBody(text) as { points: { vector: Float64Array }[] }).points[0]!.vector;
    const expected = JSON.parse(`[${literals.join(',')}]`) as number[];
    expect(fast.length).toBe(expected.length);
    expected.forEach((value, position) => {
      if (!Object.is(fast[position], value)) throw new Error(`${literals[position]}: fast ${fast[position]} != JSON.parse ${value}`);
    });
  });

  it('upsert parser — ids above 2^53 are left to the lossless parser, and survive exactly there', () => {
    const text = '{"points":[{"id":424242424242424242,"vector":[0.5,0.25]}]}';
    expect(parseUpsertBody(text)).toBeUndefined();
    expect((parseJson(text) as { points: { id: unknown }[] }).points[0]!.id).toBe(424242424242424242n);
    // 15 digits are always exact; 16 already may not be, so they go to the slow path too.
    expect(asPlain(parseUpsertBody('{"points":[{"id":999999999999999,"vector":[1]}]}'))).toEqual({ points: [{ id: 999999999999999, vector: [1] }] });
    expect(parseUpsertBody('{"points":[{"id":9007199254740993,"vector":[1]}]}')).toBeUndefined();
  });

  it('upsert parser — a payload with an integer above 2^53 keeps it as a bigint', () => {
    const fast = parseUpsertBody('{"points":[{"id":1,"vector":[1],"payload":{"n":18446744073709551615}}]}') as { points: { payload: { n: unknown } }[] };
    expect(fast.points[0]!.payload.n).toBe(18446744073709551615n);
  });

  it('upsert parser — anything not valid JSON or not its shape is left to the slow path (undefined), never thrown', () => {
    const refused = [
      '',
      '{}',
      '[]',
      '{"points":[{"id":1,"vector":[1,]}]}',
      '{"points":[{"id":1,"vector":[01]}]}',
      '{"points":[{"id":1,"vector":[1.]}]}',
      '{"points":[{"id":1,"vector":[.5]}]}',
      '{"points":[{"id":1,"vector":[1e]}]}',
      '{"points":[{"id":1,"vector":[1e400]}]}',
      '{"points":[{"id":1,"vector":[-]}]}',
      '{"points":[{"id":1,"vector":[NaN]}]}',
      '{"points":[{"id":1,"vector":["1"]}]}',
      '{"points":[{"id":1,"vector":[[1,2],[3,4]]}]}',
      '{"points":[{"id":1,"vector":{"a":[[1,2],[3,4]]}}]}',
      '{"points":[{"id":1,"vector":{"a":[1],}}]}',
      '{"points":[{"id":1,"vector":{"a":[1] "b":[2]}}]}',
      '{"points":[{"id":1,"vector":{"a\\u0062":[1]}}]}',
      '{"points":[{"id":1,"vector":{"a":[1],"b":{"indices":[1],"values":[}}}]}',
      '{"points":[{"id":1.5,"vector":[1]}]}',
      '{"points":[{"id":01,"vector":[1]}]}',
      '{"points":[{"id":"a\\"b","vector":[1]}]}',
      '{"points":[{"id":1,"vector":[1],"payload":{"a":}}]}',
      '{"points":[{"id":1,"vector":[1],"payload":{"__proto__":{}}}]}',
      '{"points":[{"id":1,"vector":[1],"extra":true}]}',
      '{"points":[{"id":1,"vector":[1]}],"update_mode":"insert_only"}',
      '{"batch":{"ids":[1],"vectors":[[1]]}}',
      '{"points":[{"id":1,"vector":[1]}]} trailing',
      '{"points":[{"id":1,"vector":[1]}]',
      '{"points":[{"id":1,"vector":[1 2]}]}',
      // After a literal the kernel reads (long, or with an exponent), the same refusals.
      '{"points":[{"id":1,"vector":[0.12345678901234567,]}]}',
      '{"points":[{"id":1,"vector":[1e5 2]}]}',
      '{"points":[{"id":1,"vector":[1e5,NaN]}]}',
      '{"points":[{"id":1,"vector":[1e5,01]}]}',
      '{"points":[{"id":1,"vector":[1e5,+1]}]}',
      '{"points":[{"id":1,"vector":[0.12345678901234567,1e400]}]}',
      '{"points":[{"id":1,"vector":[0.12345678901234567,[1]]}]}',
      '{"points":[{"id":1,"vector":[0.12345678901234567,"1"]}]}',
      '{"points":[{"id":1,"vector":[0.12345678901234567\u00a0]}]}',
      '{"points":[{"id":1,"vector":[1e5,2}]}',
      `{"points":[{"id":1,"vector":[1],"payload":${'['.repeat(300)}${']'.repeat(300)}}]}`,
    ];
    for (const text of refused) expect(parseUpsertBody(text), text).toBeUndefined();
  });

  it('upsert parser — vectors longer than a slab, and many of them, read whole', () => {
    const random = mulberry32(22);
    const vectors = Array.from({ length: 3 }, () => Array.from({ length: 40_000 }, () => Number((random() - 0.5).toFixed(5))));
    const text = `{"points":[${vectors.map((vector, position) => `{"id":${position},"vector":[${vector.join(',')}]}`).join(',')}]}`;
    expect(asPlain(parseUpsertBody(text))).toEqual(parseJson(text));
    // Long literals (the kernel's part), after a few short ones, past a slab's end.
    const long = Array.from({ length: 3 }, () => [0.5, 0.25, ...Array.from({ length: 30_000 }, () => random() - 0.5)]);
    const longText = `{"points":[${long.map((vector, position) => `{"id":${position},"vector":[${vector.join(', ')}]}`).join(',')}]}`;
    const fast = parseUpsertBody(longText) as { points: { vector: Float64Array }[] };
    expect(asPlain(fast)).toEqual(parseJson(longText));
    expect(fast.points.map((point) => point.vector.length)).toEqual([30_002, 30_002, 30_002]);
  });
});
