import { describe, expect, it } from 'vitest';
import { clearPayload, deletePayloadKeys, overwritePayload, setPayload } from './operations.js';
import { parsePath } from './path.js';

describe('payload operations — set', () => {
  it('merges top-level keys and keeps the others', () => {
    expect(setPayload({ a: 1, b: 2 }, { b: 3, c: 4 })).toEqual({ a: 1, b: 3, c: 4 });
  });

  it('a null value deletes the key', () => {
    expect(setPayload({ a: 1, b: 2 }, { b: null })).toEqual({ a: 1 });
  });

  it('with key, merges into the object at the path, creating missing objects', () => {
    expect(setPayload({ a: { x: 1 } }, { y: 2 }, parsePath('a'))).toEqual({ a: { x: 1, y: 2 } });
    expect(setPayload({}, { y: 2 }, parsePath('a.b.c'))).toEqual({ a: { b: { c: { y: 2 } } } });
    expect(setPayload({ a: 5 }, { y: 2 }, parsePath('a.b'))).toEqual({ a: { b: { y: 2 } } });
  });

  it('with key, steps into array elements by [n] and [] but never invents elements', () => {
    const payload = { list: [{ a: 1 }, { a: 2 }] };
    expect(setPayload(payload, { b: 0 }, parsePath('list[1]'))).toEqual({ list: [{ a: 1 }, { a: 2, b: 0 }] });
    expect(setPayload(payload, { b: 0 }, parsePath('list[]'))).toEqual({ list: [{ a: 1, b: 0 }, { a: 2, b: 0 }] });
    expect(setPayload(payload, { b: 0 }, parsePath('list[5]'))).toEqual(payload);
  });

  it('never changes its input', () => {
    const payload = { a: { b: { c: 1 } }, keep: [1] };
    const snapshot = structuredClone(payload);
    const result = setPayload(payload, { d: 2, c: null }, parsePath('a.b'));
    expect(payload).toEqual(snapshot);
    expect(result).toEqual({ a: { b: { d: 2 } }, keep: [1] });
    expect(result.keep).toBe(payload.keep);
  });
});

describe('payload operations — overwrite, delete, clear', () => {
  it('overwrite replaces the whole payload', () => {
    expect(overwritePayload({ a: 1 }, { b: 2 })).toEqual({ b: 2 });
    expect(overwritePayload({ a: { x: 1, y: 2 }, b: 1 }, { z: 3 }, parsePath('a'))).toEqual({ a: { z: 3 }, b: 1 });
  });

  it('delete removes keys and nested paths; absent keys are ignored', () => {
    const payload = { a: 1, b: { c: 2, d: 3 }, list: [{ x: 1, y: 2 }, { x: 3 }], array: [1, 2, 3] };
    expect(deletePayloadKeys(payload, [parsePath('a'), parsePath('missing'), parsePath('b.c')])).toEqual({
      b: { d: 3 },
      list: [{ x: 1, y: 2 }, { x: 3 }],
      array: [1, 2, 3],
    });
    expect(deletePayloadKeys(payload, [parsePath('list[].x')]).list).toEqual([{ y: 2 }, {}]);
    expect(deletePayloadKeys(payload, [parsePath('array[1]')]).array).toEqual([1, 3]);
    expect(payload.b).toEqual({ c: 2, d: 3 });
  });

  it('clear empties the payload', () => {
    expect(clearPayload({ a: 1 })).toEqual({});
  });
});
