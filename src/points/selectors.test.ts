import { describe, expect, it } from 'vitest';
import { payloadSelection, selectPayload, vectorSelection } from './selectors.js';

const payload = { a: 1, b: { c: 2, d: { e: 3 } }, f: [1, 2] };

describe('selectors', () => {
  it('with_payload — defaults, include paths, exclude paths; the payload is never mutated', () => {
    expect(selectPayload(payload, payloadSelection(undefined, true))).toBe(payload);
    expect(selectPayload(payload, payloadSelection(undefined, false))).toBeUndefined();
    expect(selectPayload(payload, payloadSelection(['a', 'b.d.e', 'missing'], true))).toEqual({ a: 1, b: { d: { e: 3 } } });
    expect(selectPayload(payload, payloadSelection({ include: 'f' }, true))).toEqual({ f: [1, 2] });
    expect(selectPayload(payload, payloadSelection({ exclude: ['b.c', 'f'] }, true))).toEqual({ a: 1, b: { d: { e: 3 } } });
    expect(payload).toEqual({ a: 1, b: { c: 2, d: { e: 3 } }, f: [1, 2] });
  });

  it('with_vector — defaults, true, false and names', () => {
    expect(vectorSelection(undefined, false)).toEqual({ kind: 'none' });
    expect(vectorSelection(true, false)).toEqual({ kind: 'all' });
    expect(vectorSelection(['image'], false)).toEqual({ kind: 'named', names: ['image'] });
  });
});
