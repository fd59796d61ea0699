import { describe, expect, it } from 'vitest';
import type { Payload } from '../payload/path.js';
import { defaultTextIndexOptions } from '../payload/tokenize.js';
import { matches, type EvaluationOptions } from './evaluate.js';
import { parseFilter } from './parse.js';

const limits = { maxDepth: 8, maxConditions: 100 };

function accepts(condition: unknown, payload: Payload, options: EvaluationOptions = {}, point: { idKey?: string; vectors?: string[] } = {}): boolean {
  const filter = parseFilter({ must: [condition] }, limits)!;
  const vectors = point.vectors ?? [''];
  return matches(filter, { idKey: point.idKey ?? '1', payload, hasVector: (name) => vectors.includes(name) }, options);
}

describe('match value', () => {
  const condition = { key: 'a', match: { value: 'x' } };
  it('matches the exact string, or any element of an array', () => {
    expect(accepts(condition, { a: 'x' })).toBe(true);
    expect(accepts(condition, { a: ['y', 'x'] })).toBe(true);
    expect(accepts(condition, { a: ['y'] })).toBe(false);
  });
  it('is type-strict: "1" is not 1, true is not "true"', () => {
    expect(accepts({ key: 'a', match: { value: 1 } }, { a: '1' })).toBe(false);
    expect(accepts({ key: 'a', match: { value: '1' } }, { a: 1 })).toBe(false);
    expect(accepts({ key: 'a', match: { value: true } }, { a: 'true' })).toBe(false);
    expect(accepts({ key: 'a', match: { value: true } }, { a: true })).toBe(true);
    expect(accepts({ key: 'a', match: { value: 1 } }, { a: 1.5 })).toBe(false);
  });
  it('integers above 2^53 compare exactly', () => {
    expect(accepts({ key: 'a', match: { value: 424242424242424242n } }, { a: 424242424242424242n })).toBe(true);
    expect(accepts({ key: 'a', match: { value: 424242424242424242n } }, { a: 424242424242424243n })).toBe(false);
  });
  it('a missing field or null matches nothing', () => {
    expect(accepts(condition, {})).toBe(false);
    expect(accepts(condition, { a: null })).toBe(false);
  });
  it('reaches nested objects by path', () => {
    expect(accepts({ key: 'a.b[].c', match: { value: 'x' } }, { a: { b: [{ c: 'y' }, { c: 'x' }] } })).toBe(true);
    expect(accepts({ key: 'a.b.c', match: { value: 'x' } }, { a: { b: [{ c: 'x' }] } })).toBe(false);
  });
});

describe('match any / except', () => {
  it('any: one value in the list, types kept apart', () => {
    expect(accepts({ key: 'a', match: { any: ['x', 'y'] } }, { a: ['z', 'y'] })).toBe(true);
    expect(accepts({ key: 'a', match: { any: [1, 2] } }, { a: '1' })).toBe(false);
    expect(accepts({ key: 'a', match: { any: [] } }, { a: 'x' })).toBe(false);
  });
  it('except: some value outside the list; other types count as outside, null and missing never match', () => {
    expect(accepts({ key: 'a', match: { except: ['x'] } }, { a: 'y' })).toBe(true);
    expect(accepts({ key: 'a', match: { except: ['x'] } }, { a: 'x' })).toBe(false);
    expect(accepts({ key: 'a', match: { except: ['x'] } }, { a: ['x', 'y'] })).toBe(true);
    expect(accepts({ key: 'a', match: { except: ['x'] } }, { a: 5 })).toBe(true);
    expect(accepts({ key: 'a', match: { except: ['x'] } }, { a: null })).toBe(false);
    expect(accepts({ key: 'a', match: { except: ['x'] } }, {})).toBe(false);
    expect(accepts({ key: 'a', match: { except: [1] } }, { a: [1, 1] })).toBe(false);
  });
});

describe('match text, phrase, prefix', () => {
  it('without a text index, text and phrase are substring matches, case-sensitive', () => {
    expect(accepts({ key: 't', match: { text: 'ell' } }, { t: 'Hello' })).toBe(true);
    expect(accepts({ key: 't', match: { text: 'hello' } }, { t: 'Hello' })).toBe(false);
    expect(accepts({ key: 't', match: { phrase: 'lo wo' } }, { t: ['x', 'hello world'] })).toBe(true);
    expect(accepts({ key: 't', match: { text_any: 'zz orl' } }, { t: 'world' })).toBe(true);
    expect(accepts({ key: 't', match: { text: 'x' } }, { t: 5 })).toBe(false);
  });
  it('with a text index, matching is by tokens: all for text, any for text_any, in a row for phrase', () => {
    const options: EvaluationOptions = { textIndex: (path) => (path === 't' ? defaultTextIndexOptions : undefined) };
    expect(accepts({ key: 't', match: { text: 'ell' } }, { t: 'Hello' }, options)).toBe(false);
    expect(accepts({ key: 't', match: { text: 'WORLD hello' } }, { t: 'Hello, world!' }, options)).toBe(true);
    expect(accepts({ key: 't', match: { text_any: 'moon world' } }, { t: 'hello world' }, options)).toBe(true);
    expect(accepts({ key: 't', match: { phrase: 'hello world' } }, { t: 'hello big world' }, options)).toBe(false);
    expect(accepts({ key: 't', match: { phrase: 'big world' } }, { t: 'hello big world' }, options)).toBe(true);
    expect(accepts({ key: 't', match: { text: '!!' } }, { t: 'hello' }, options)).toBe(false);
  });
  it('prefix tests the start of whole string values', () => {
    expect(accepts({ key: 'a', match: { prefix: 'ab' } }, { a: ['xab', 'abc'] })).toBe(true);
    expect(accepts({ key: 'a', match: { prefix: 'ab' } }, { a: 'xab' })).toBe(false);
  });
});

describe('range', () => {
  it('compares numbers, integer or float, any array element', () => {
    expect(accepts({ key: 'n', range: { gte: 2, lt: 3 } }, { n: 2.5 })).toBe(true);
    expect(accepts({ key: 'n', range: { gt: 2 } }, { n: 2 })).toBe(false);
    expect(accepts({ key: 'n', range: { gt: 2 } }, { n: [1, 5] })).toBe(true);
  });
  it('ignores values of other types', () => {
    expect(accepts({ key: 'n', range: { gt: 2 } }, { n: '5' })).toBe(false);
    expect(accepts({ key: 'n', range: { gt: 2 } }, { n: null })).toBe(false);
    expect(accepts({ key: 'n', range: {} }, { n: true })).toBe(false);
  });
  it('with datetime bounds compares RFC 3339 strings as instants, zones included', () => {
    const condition = { key: 'd', range: { gte: '2024-01-01T00:00:00Z', lt: '2024-02-01T00:00:00Z' } };
    expect(accepts(condition, { d: '2024-01-15T10:00:00+02:00' })).toBe(true);
    expect(accepts(condition, { d: '2023-12-31T23:30:00-01:00' })).toBe(true);
    expect(accepts(condition, { d: '2024-02-01' })).toBe(false);
    expect(accepts(condition, { d: 'yesterday' })).toBe(false);
    expect(accepts(condition, { d: 1_705_000_000_000 })).toBe(false);
  });
});

describe('geo', () => {
  const berlin = { lon: 13.405, lat: 52.52 };
  const paris = { lon: 2.3522, lat: 48.8566 };
  it('bounding box, radius in metres, polygon', () => {
    expect(accepts({ key: 'g', geo_bounding_box: { top_left: { lon: 10, lat: 55 }, bottom_right: { lon: 15, lat: 50 } } }, { g: berlin })).toBe(true);
    expect(accepts({ key: 'g', geo_bounding_box: { top_left: { lon: 10, lat: 55 }, bottom_right: { lon: 15, lat: 50 } } }, { g: paris })).toBe(false);
    expect(accepts({ key: 'g', geo_radius: { center: paris, radius: 880_000 } }, { g: berlin })).toBe(true);
    expect(accepts({ key: 'g', geo_radius: { center: paris, radius: 870_000 } }, { g: berlin })).toBe(false);
    const square = { exterior: { points: [{ lon: 10, lat: 50 }, { lon: 15, lat: 50 }, { lon: 15, lat: 55 }, { lon: 10, lat: 55 }, { lon: 10, lat: 50 }] } };
    expect(accepts({ key: 'g', geo_polygon: square }, { g: [paris, berlin] })).toBe(true);
    const holed = { ...square, interiors: [{ points: [{ lon: 13, lat: 52 }, { lon: 14, lat: 52 }, { lon: 14, lat: 53 }, { lon: 13, lat: 53 }, { lon: 13, lat: 52 }] }] };
    expect(accepts({ key: 'g', geo_polygon: holed }, { g: berlin })).toBe(false);
  });
  it('a box whose left edge is east of its right edge crosses the antimeridian', () => {
    const box = { top_left: { lon: 170, lat: 10 }, bottom_right: { lon: -170, lat: -10 } };
    expect(accepts({ key: 'g', geo_bounding_box: box }, { g: { lon: 179, lat: 0 } })).toBe(true);
    expect(accepts({ key: 'g', geo_bounding_box: box }, { g: { lon: -175, lat: 0 } })).toBe(true);
    expect(accepts({ key: 'g', geo_bounding_box: box }, { g: { lon: 0, lat: 0 } })).toBe(false);
  });
  it('values that are not geo points are ignored', () => {
    expect(accepts({ key: 'g', geo_radius: { center: paris, radius: 1e7 } }, { g: { lon: '2', lat: 48 } })).toBe(false);
    expect(accepts({ key: 'g', geo_radius: { center: paris, radius: 1e7 } }, { g: [1, 2] })).toBe(false);
  });
});

describe('values_count, is_empty, is_null', () => {
  it('values_count counts the values (null is none); missing counts 0', () => {
    expect(accepts({ key: 'a', values_count: { gte: 2 } }, { a: [1, 2] })).toBe(true);
    expect(accepts({ key: 'a', values_count: { gte: 2 } }, { a: [1, null] })).toBe(false);
    expect(accepts({ key: 'a', values_count: { lt: 1 } }, {})).toBe(true);
    expect(accepts({ key: 'a', values_count: { gt: 0 } }, { a: 'x' })).toBe(true);
  });
  it('is_empty: missing, null or [] (and nothing else)', () => {
    for (const payload of [{}, { a: null }, { a: [] }]) expect(accepts({ is_empty: { key: 'a' } }, payload)).toBe(true);
    for (const payload of [{ a: 0 }, { a: '' }, { a: [1] }, { a: {} }]) expect(accepts({ is_empty: { key: 'a' } }, payload)).toBe(false);
    expect(accepts({ key: 'a', is_empty: false }, { a: 0 })).toBe(true);
  });
  it('is_null: null or an array holding null; missing is not null', () => {
    expect(accepts({ is_null: { key: 'a' } }, { a: null })).toBe(true);
    expect(accepts({ is_null: { key: 'a' } }, { a: [1, null] })).toBe(true);
    expect(accepts({ is_null: { key: 'a' } }, {})).toBe(false);
    expect(accepts({ is_null: { key: 'a' } }, { a: [] })).toBe(false);
    expect(accepts({ key: 'a', is_null: false }, {})).toBe(true);
  });
});

describe('has_id, has_vector, nested', () => {
  it('has_id compares canonical ids', () => {
    expect(accepts({ has_id: [5, 7] }, {}, {}, { idKey: '7' })).toBe(true);
    expect(accepts({ has_id: ['550E8400-E29B-41D4-A716-446655440000'] }, {}, {}, { idKey: '550e8400-e29b-41d4-a716-446655440000' })).toBe(true);
    expect(accepts({ has_id: [] }, {}, {}, { idKey: '7' })).toBe(false);
  });
  it('has_vector asks the point', () => {
    expect(accepts({ has_vector: 'image' }, {}, {}, { vectors: ['image'] })).toBe(true);
    expect(accepts({ has_vector: 'text' }, {}, {}, { vectors: ['image'] })).toBe(false);
  });
  it('slice: every id falls in exactly one of total slices, the same one every time', () => {
    for (const idKey of ['0', '1', '2', '17', '424242424242424242', '550e8400-e29b-41d4-a716-446655440000']) {
      const hits = [0, 1, 2, 3, 4].filter((index) => accepts({ slice: { total: 5, index } }, {}, {}, { idKey }));
      expect(hits).toHaveLength(1);
      expect(accepts({ slice: { total: 5, index: hits[0] } }, {}, {}, { idKey })).toBe(true);
      expect(accepts({ slice: { total: 1, index: 0 } }, {}, {}, { idKey })).toBe(true);
    }
  });
  it('slice: consecutive ids spread over the slices', () => {
    const counts = [0, 0, 0, 0];
    for (let id = 0; id < 4000; id += 1) {
      const index = [0, 1, 2, 3].find((slice) => accepts({ slice: { total: 4, index: slice } }, {}, {}, { idKey: String(id) }))!;
      counts[index]! += 1;
    }
    for (const count of counts) expect(count).toBeGreaterThan(850);
  });
  it('nested: one array element must satisfy the whole inner filter', () => {
    const payload = { diet: [{ food: 'meat', likes: false }, { food: 'fish', likes: true }] };
    const inner = { must: [{ key: 'food', match: { value: 'meat' } }, { key: 'likes', match: { value: true } }] };
    expect(accepts({ nested: { key: 'diet', filter: inner } }, payload)).toBe(false);
    // The same conditions on flattened paths are satisfied by different elements:
    expect(accepts({ must: [{ key: 'diet[].food', match: { value: 'meat' } }, { key: 'diet[].likes', match: { value: true } }] }, payload)).toBe(true);
    expect(accepts({ nested: { key: 'diet', filter: { must: [{ key: 'food', match: { value: 'fish' } }, { key: 'likes', match: { value: true } }] } } }, payload)).toBe(true);
  });
});

describe('clauses', () => {
  const payload = { a: 1, b: 2 };
  const is = (key: string, value: number) => ({ key, match: { value } });
  function run(filter: unknown): boolean {
    return matches(parseFilter(filter, limits)!, { idKey: '1', payload, hasVector: () => true });
  }
  it('must needs all, should one (when given), must_not none', () => {
    expect(run({ must: [is('a', 1), is('b', 2)] })).toBe(true);
    expect(run({ must: [is('a', 1), is('b', 3)] })).toBe(false);
    expect(run({ should: [is('a', 9), is('b', 2)] })).toBe(true);
    expect(run({ should: [is('a', 9), is('b', 9)] })).toBe(false);
    expect(run({ should: [] })).toBe(true);
    expect(run({ must_not: [is('a', 9), is('b', 2)] })).toBe(false);
    expect(run({})).toBe(true);
  });
  it('min_should needs at least min_count of its conditions', () => {
    expect(run({ min_should: { conditions: [is('a', 1), is('b', 2), is('a', 3)], min_count: 2 } })).toBe(true);
    expect(run({ min_should: { conditions: [is('a', 1), is('b', 9), is('a', 3)], min_count: 2 } })).toBe(false);
  });
  it('groups nest', () => {
    expect(run({ must: [{ should: [is('a', 9), { must_not: [is('b', 9)] }] }] })).toBe(true);
  });
});
