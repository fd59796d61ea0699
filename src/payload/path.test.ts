import { describe, expect, it } from 'vitest';
import { parsePath, PathSyntaxError, valuesAt } from './path.js';

describe('payload paths — parsing', () => {
  it('reads keys, indexes, [] and quoted keys, and spells them canonically', () => {
    expect(parsePath('a.b').segments).toEqual([{ kind: 'key', name: 'a' }, { kind: 'key', name: 'b' }]);
    expect(parsePath('a[0]').segments).toEqual([{ kind: 'key', name: 'a' }, { kind: 'index', index: 0 }]);
    expect(parsePath('country.cities[].population').segments).toEqual([
      { kind: 'key', name: 'country' },
      { kind: 'key', name: 'cities' },
      { kind: 'every' },
      { kind: 'key', name: 'population' },
    ]);
    expect(parsePath('"a.b c".d').segments).toEqual([{ kind: 'key', name: 'a.b c' }, { kind: 'key', name: 'd' }]);
    expect(parsePath('"plain".x').text).toBe('plain.x');
    expect(parsePath('"with space"[2]').text).toBe('"with space"[2]');
  });

  it.each(['', '.a', 'a.', 'a..b', 'a[', 'a[x]', 'a[-1]', '"open', 'a b', 'a"b"', '""'])('refuses the malformed path %j', (text) => {
    expect(() => parsePath(text)).toThrow(PathSyntaxError);
  });
});

describe('payload paths — reading values', () => {
  const payload = {
    a: { b: 1 },
    list: [1, 2, [3, 4]],
    country: { cities: [{ population: 10 }, { population: [20, 30] }, { name: 'no population' }] },
    'a.b c': { d: 'quoted' },
    nothing: null,
  };

  it('a final array is several values, flattened one level', () => {
    expect(valuesAt(payload, parsePath('list'))).toEqual([1, 2, [3, 4]]);
    expect(valuesAt(payload, parsePath('list[]'))).toEqual([1, 2, 3, 4]);
  });

  it('[] steps through every element; elements without the key add nothing', () => {
    expect(valuesAt(payload, parsePath('country.cities[].population'))).toEqual([10, 20, 30]);
  });

  it('[n] picks one element, out of range picks nothing', () => {
    expect(valuesAt(payload, parsePath('list[1]'))).toEqual([2]);
    expect(valuesAt(payload, parsePath('list[9]'))).toEqual([]);
    expect(valuesAt(payload, parsePath('country.cities[1].population'))).toEqual([20, 30]);
  });

  it('a key does not step into an array (that needs [])', () => {
    expect(valuesAt(payload, parsePath('country.cities.population'))).toEqual([]);
  });

  it('missing fields give no values; null is a value', () => {
    expect(valuesAt(payload, parsePath('a.missing'))).toEqual([]);
    expect(valuesAt(payload, parsePath('nothing'))).toEqual([null]);
    expect(valuesAt(payload, parsePath('nothing.deeper'))).toEqual([]);
  });

  it('quoted keys may hold dots and spaces', () => {
    expect(valuesAt(payload, parsePath('"a.b c".d'))).toEqual(['quoted']);
  });
});
