import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../test/support/seeded-random.js';
import { parsePath, type PathSegment } from '../payload/path.js';
import { payloadSelection, selectPayload, vectorSelection, type Payload } from './selectors.js';

const payload = { a: 1, b: { c: 2, d: { e: 3 } }, f: [1, 2] };

// The slow reference: the definition taken literally (docs/api.md §3.5). Every node of the
// payload gets a path (array element i: the array's path plus `[i]`); the node is visited only
// if its parent was kept, and kept if `keep(path)` holds. A pattern's `[]` agrees with any index.
function agrees(pattern: PathSegment, segment: PathSegment): boolean {
  if (pattern.kind === 'key') return segment.kind === 'key' && segment.name === pattern.name;
  if (segment.kind !== 'index') return false;
  return pattern.kind === 'every' || pattern.index === segment.index;
}

function samePath(pattern: readonly PathSegment[], path: readonly PathSegment[], length: number): boolean {
  for (let position = 0; position < length; position += 1) if (!agrees(pattern[position]!, path[position]!)) return false;
  return true;
}

function referenceWalk(value: unknown, path: PathSegment[], keep: (path: PathSegment[]) => boolean): unknown {
  if (Array.isArray(value)) {
    const elementPaths = value.map((_, index): PathSegment[] => [...path, { kind: 'index', index }]);
    return value.flatMap((element, index) => (keep(elementPaths[index]!) ? [referenceWalk(element, elementPaths[index]!, keep)] : []));
  }
  if (typeof value !== 'object' || value === null) return value;
  const result: Payload = {};
  for (const [key, child] of Object.entries(value)) {
    const childPath: PathSegment[] = [...path, { kind: 'key', name: key }];
    if (keep(childPath)) result[key] = referenceWalk(child, childPath, keep);
  }
  return result;
}

function referenceSelect(source: Payload, mode: 'include' | 'exclude', patterns: string[]): Payload {
  const parsed = patterns.map((text) => parsePath(text).segments);
  const keep =
    mode === 'include'
      ? (path: PathSegment[]) => parsed.some((pattern) => samePath(pattern, path, Math.min(pattern.length, path.length)))
      : (path: PathSegment[]) => !parsed.some((pattern) => pattern.length <= path.length && samePath(pattern, path, pattern.length));
  return referenceWalk(source, [], keep) as Payload;
}

function randomValue(random: () => number, depth: number): unknown {
  const roll = random();
  if (depth >= 3 || roll < 0.35) return [1, 'x', null, true, 2.5][Math.floor(random() * 5)];
  if (roll < 0.65) return Array.from({ length: Math.floor(random() * 3) }, () => randomValue(random, depth + 1));
  const object: Payload = {};
  for (const key of ['a', 'b', 'c']) if (random() < 0.6) object[key] = randomValue(random, depth + 1);
  return object;
}

function randomPattern(random: () => number): string {
  const parts = [['a', 'b', 'c'][Math.floor(random() * 3)]!];
  const length = Math.floor(random() * 4);
  for (let step = 0; step < length; step += 1) {
    const roll = random();
    parts.push(roll < 0.35 ? '[]' : roll < 0.45 ? '[0]' : roll < 0.55 ? '[1]' : `.${['a', 'b', 'c'][Math.floor(random() * 3)]}`);
  }
  return parts.join('');
}

describe('selectors', () => {
  it('with_payload — defaults, include paths, exclude paths; the payload is never mutated', () => {
    expect(selectPayload(payload, payloadSelection(undefined, true))).toBe(payload);
    expect(selectPayload(payload, payloadSelection(undefined, false))).toBeUndefined();
    expect(selectPayload(payload, payloadSelection(['a', 'b.d.e', 'missing'], true))).toEqual({ a: 1, b: { d: { e: 3 } } });
    expect(selectPayload(payload, payloadSelection({ include: 'f' }, true))).toEqual({ f: [1, 2] });
    expect(selectPayload(payload, payloadSelection({ exclude: ['b.c', 'f'] }, true))).toEqual({ a: 1, b: { d: { e: 3 } } });
    expect(payload).toEqual({ a: 1, b: { c: 2, d: { e: 3 } }, f: [1, 2] });
  });

  it('with_payload — array paths select inside every element; an index selects that element only', () => {
    const country = { country: { name: 'DE', cities: [{ name: 'Berlin', population: 3.6 }, { name: 'Bonn', population: 0.3 }, { sights: ['x'] }] } };
    expect(selectPayload(country, payloadSelection({ include: ['country.cities[].name'] }, true))).toEqual({
      country: { cities: [{ name: 'Berlin' }, { name: 'Bonn' }, {}] },
    });
    expect(selectPayload(country, payloadSelection({ exclude: ['country.cities[].population'] }, true))).toEqual({
      country: { name: 'DE', cities: [{ name: 'Berlin' }, { name: 'Bonn' }, { sights: ['x'] }] },
    });
    expect(selectPayload(country, payloadSelection({ exclude: ['country.cities[]'] }, true))).toEqual({ country: { name: 'DE', cities: [] } });
    // An index selects its element: include keeps only the selected elements, in order; exclude
    // acts on that element alone (Qdrant differs, docs/api.md §10).
    expect(selectPayload(country, payloadSelection({ include: ['country.cities[0].name'] }, true))).toEqual({ country: { cities: [{ name: 'Berlin' }] } });
    expect(selectPayload(country, payloadSelection({ include: ['country.cities[2]', 'country.cities[0].population'] }, true))).toEqual({
      country: { cities: [{ population: 3.6 }, { sights: ['x'] }] },
    });
    expect(selectPayload(country, payloadSelection({ include: ['country.cities[0].name', 'country.cities[].population'] }, true))).toEqual({
      country: { cities: [{ name: 'Berlin', population: 3.6 }, { population: 0.3 }, {}] },
    });
    expect(selectPayload(country, payloadSelection({ include: ['country.cities[7].name'] }, true))).toEqual({ country: { cities: [] } });
    expect(selectPayload(country, payloadSelection({ exclude: ['country.cities[0].name'] }, true))).toEqual({
      country: { name: 'DE', cities: [{ population: 3.6 }, { name: 'Bonn', population: 0.3 }, { sights: ['x'] }] },
    });
    expect(selectPayload(country, payloadSelection({ exclude: ['country.cities[1]'] }, true))).toEqual({
      country: { name: 'DE', cities: [{ name: 'Berlin', population: 3.6 }, { sights: ['x'] }] },
    });
    expect(selectPayload({ grid: [[1, 2], [3, 4]] }, payloadSelection({ include: ['grid[][1]'] }, true))).toEqual({ grid: [[2], [4]] });
    // A prefix of a pattern is kept even when it holds no more of the path.
    expect(selectPayload({ a: 5, b: { c: 1 } }, payloadSelection(['a.x', 'b.x'], true))).toEqual({ a: 5, b: {} });
    expect(selectPayload({ 'a.b': 1, a: { b: 2 } }, payloadSelection(['"a.b"'], true))).toEqual({ 'a.b': 1 });
  });

  it('with_payload — the fast selection equals the slow reference on random payloads and patterns', () => {
    const random = mulberry32(7);
    for (let round = 0; round < 2000; round += 1) {
      const source = randomValue(random, 0);
      const document: Payload = typeof source === 'object' && source !== null && !Array.isArray(source) ? (source as Payload) : { a: source };
      const patterns = Array.from({ length: 1 + Math.floor(random() * 3) }, () => randomPattern(random));
      for (const mode of ['include', 'exclude'] as const) {
        const selection = payloadSelection(mode === 'include' ? { include: patterns } : { exclude: patterns }, true);
        expect(selectPayload(document, selection), `${mode} ${JSON.stringify(patterns)} of ${JSON.stringify(document)}`).toEqual(referenceSelect(document, mode, patterns));
      }
    }
  });

  it('with_payload — a malformed path is a 400 naming it', () => {
    expect(() => payloadSelection({ include: ['a', 'b['] }, true)).toThrow(/with_payload\.include\[1\]: unclosed "\["/);
    expect(() => payloadSelection(['a.'], true)).toThrow(/with_payload\[0\]: path "a\." ends with "\."/);
  });

  it('with_vector — defaults, true, false and names', () => {
    expect(vectorSelection(undefined, false)).toEqual({ kind: 'none' });
    expect(vectorSelection(true, false)).toEqual({ kind: 'all' });
    expect(vectorSelection(['image'], false)).toEqual({ kind: 'named', names: ['image'] });
  });
});
