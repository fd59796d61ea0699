import { describe, expect, it } from 'vitest';
import { isQuiverError } from '../errors.js';
import { parseFilter } from './parse.js';

const limits = { maxDepth: 4, maxConditions: 20 };

function refusal(filter: unknown): string {
  try {
    parseFilter(filter, limits);
  } catch (error) {
    if (isQuiverError(error) && error.status === 400) return error.message;
    throw error;
  }
  throw new Error('the filter was accepted');
}

describe('filter parsing — shapes', () => {
  it('a clause is one condition or an array of them', () => {
    const single = parseFilter({ must: { key: 'a', match: { value: 1 } } }, limits)!;
    const list = parseFilter({ must: [{ key: 'a', match: { value: 1 } }] }, limits)!;
    expect(single.must).toEqual(list.must);
    expect(single.must[0]).toMatchObject({ kind: 'match_value', value: 1 });
  });

  it('null and absent mean no filter', () => {
    expect(parseFilter(null, limits)).toBeUndefined();
    expect(parseFilter(undefined, limits)).toBeUndefined();
  });

  it('reads every condition kind', () => {
    const filter = parseFilter(
      {
        must: [
          { key: 'k', match: { value: 'x' } },
          { key: 'k', match: { any: ['x', 'y'] } },
          { key: 'k', match: { except: [1, 2] } },
          { key: 'k', match: { text: 'hello' } },
          { key: 'k', match: { text_any: 'hello world' } },
          { key: 'k', match: { phrase: 'hello world' } },
          { key: 'k', match: { prefix: 'he' } },
          { key: 'n', range: { gte: 1, lt: 5.5 } },
          { key: 'd', range: { gt: '2024-01-01T00:00:00Z' } },
          { key: 'g', geo_bounding_box: { top_left: { lon: 0, lat: 10 }, bottom_right: { lon: 10, lat: 0 } } },
          { key: 'g', geo_radius: { center: { lon: 0, lat: 0 }, radius: 1000 } },
          { key: 'g', geo_polygon: { exterior: { points: [{ lon: 0, lat: 0 }, { lon: 1, lat: 0 }, { lon: 1, lat: 1 }, { lon: 0, lat: 0 }] } } },
          { key: 'k', values_count: { gt: 1 } },
          { key: 'k', is_empty: false },
          { is_empty: { key: 'k' } },
          { is_null: { key: 'k' } },
          { has_id: [1, '550e8400-e29b-41d4-a716-446655440000'] },
          { has_vector: 'image' },
          { slice: { total: 4, index: 1 } },
          { nested: { key: 'items', filter: { must: { key: 'a', match: { value: true } } } } },
          { should: [{ key: 'a', match: { value: 1 } }] },
        ],
        min_should: { conditions: [{ key: 'x', match: { value: 1 } }], min_count: 1 },
      },
      { maxDepth: 4, maxConditions: 100 },
    )!;
    expect(filter.must.map((condition) => condition.kind)).toEqual([
      'match_value', 'match_any', 'match_except', 'match_text', 'match_text', 'match_text', 'match_prefix', 'range', 'datetime_range',
      'geo_bounding_box', 'geo_radius', 'geo_polygon', 'values_count', 'is_empty', 'is_empty', 'is_null', 'has_id', 'has_vector', 'slice', 'nested', 'group',
    ]);
    expect(filter.minShould?.minCount).toBe(1);
  });

  it('several predicates on one key become a group that needs all of them', () => {
    const filter = parseFilter({ must: [{ key: 'n', range: { gt: 1 }, values_count: { lt: 3 } }] }, limits)!;
    expect(filter.must[0]).toMatchObject({ kind: 'group', filter: { must: [{ kind: 'range' }, { kind: 'values_count' }] } });
  });

  it('has_id ids are canonical: big integers exact, UUIDs lowercase hyphenated', () => {
    const filter = parseFilter({ must: [{ has_id: [424242424242424242n, '{550E8400E29B41D4A716446655440000}'] }] }, limits)!;
    expect(filter.must[0]).toEqual({ kind: 'has_id', ids: new Set(['424242424242424242', '550e8400-e29b-41d4-a716-446655440000']) });
  });
});

describe('filter parsing — refusals name the offending part', () => {
  it.each([
    [{ must: [{ key: 'a', match: { value: 1 } }, { key: 'a', match: { value: 1 } }, { key: 'a', range: { gt: 'soon' } }] }, 'filter.must[2].range.gt: expected an RFC 3339 datetime'],
    [{ must: [], bogus: 1 }, 'filter.bogus: unknown field'],
    [{ should: { key: 'a', match: { value: 1.5 } } }, 'filter.should.match.value: expected a string, an integer or a boolean'],
    [{ must: { key: 'a', match: { any: ['x', 1] } } }, 'filter.must.match.any: expected an array of strings or of integers'],
    [{ must: { key: 'a', match: { value: 1, any: [1] } } }, 'filter.must.match: expected exactly one of'],
    [{ must: { key: 'a', match: { keyword: 'x' } } }, 'filter.must.match.keyword: unknown field'],
    [{ must: { key: 'a' } }, 'filter.must: a field condition needs one of'],
    [{ must: { key: 'a[', match: { value: 1 } } }, 'filter.must.key: unclosed "["'],
    [{ must: { key: 'a', range: { gt: 1, lt: '2024-01-01' } } }, 'filter.must.range: bounds must be all numbers or all RFC 3339 datetimes'],
    [{ must: { key: 'a', geo_radius: { center: { lon: 0, lat: 95 }, radius: 1 } } }, 'filter.must.geo_radius.center: longitude must be within'],
    [{ must: { key: 'a', geo_radius: { center: { lon: 0, lat: 0 }, radius: -1 } } }, 'filter.must.geo_radius.radius: expected a non-negative number'],
    [{ must: { key: 'a', geo_polygon: { exterior: { points: [{ lon: 0, lat: 0 }, { lon: 1, lat: 0 }, { lon: 1, lat: 1 }, { lon: 0, lat: 1 }] } } } }, 'filter.must.geo_polygon.exterior.points: a polygon ring must be closed'],
    [{ must: { key: 'a', values_count: { gt: -1 } } }, 'filter.must.values_count.gt: expected a non-negative integer'],
    [{ must: { has_id: [1, -5] } }, 'filter.must.has_id[1]: value -5 is not a valid point ID'],
    [{ must: { has_vector: 3 } }, 'filter.must.has_vector: expected a vector name'],
    [{ must: { slice: { total: 0, index: 0 } } }, 'filter.must.slice.total: expected an integer from 1 to 4294967295'],
    [{ must: { slice: { total: 3, index: 3 } } }, 'filter.must.slice.index: expected an integer from 0 to 2 (below total)'],
    [{ must: { slice: { total: 3 } } }, 'filter.must.slice.index: expected an integer'],
    [{ must: { slice: { total: 3, index: 0, seed: 1 } } }, 'filter.must.slice.seed: unknown field'],
    [{ must: { nested: { key: 'a' } } }, 'filter.must.nested.filter: missing required field'],
    [{ min_should: { conditions: [], min_count: -1 } }, 'filter.min_should.min_count: expected a non-negative integer'],
    [{ must: 'a' }, 'filter.must: expected an object'],
    ['text', 'filter: expected an object'],
  ])('%j', (filter, message) => {
    expect(refusal(filter)).toContain(message);
  });

  it('refuses a filter nested deeper than the limit', () => {
    let filter: unknown = { must: [] };
    for (let level = 0; level < 4; level += 1) filter = { must: [filter] };
    expect(refusal(filter)).toContain('nested deeper than 4 levels');
  });

  it('refuses a filter with more conditions than the limit', () => {
    const must = Array.from({ length: 21 }, () => ({ key: 'a', match: { value: 1 } }));
    expect(refusal({ must })).toContain('filter.must[20]: the filter holds more than 20 conditions');
  });
});
