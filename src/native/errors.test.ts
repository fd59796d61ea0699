// Rules for errors.ts (crates/quiver-node/src/errors.rs): the code crosses as the error's `code`,
// the message as a sentence.
import { describe, expect, it } from 'vitest';
import { NativeError, nativeErrorCode } from './errors.js';
import { createVectorIndex } from './vector-index.js';
import { rejection } from '../../test/support/rejection.js';

describe('native error codes', () => {
  it('nativeErrorCode — reads a known code from the error, never from its message', () => {
    expect(nativeErrorCode(Object.assign(new Error('gone'), { code: 'INDEX_CLOSED' }))).toBe('INDEX_CLOSED');
    expect(nativeErrorCode(new Error('INDEX_CLOSED: the vector index was closed'))).toBeUndefined();
  });

  it('nativeErrorCode — anything else is not a kernel error', () => {
    expect(nativeErrorCode(Object.assign(new Error('bad'), { code: 'InvalidArg' }))).toBeUndefined();
    expect(nativeErrorCode(Object.assign(new Error('missing'), { code: 'ENOENT' }))).toBeUndefined();
    expect(nativeErrorCode({ code: 'INTERNAL' })).toBeUndefined();
    expect(nativeErrorCode(undefined)).toBeUndefined();
  });

  it('NativeError — carries its code and a plain message', () => {
    const error = new NativeError('INVALID_ARGUMENT', 'k must be an integer');
    expect(nativeErrorCode(error)).toBe('INVALID_ARGUMENT');
    expect(error.message).toBe('k must be an integer');
  });

  it('kernel errors — the code is a property and the message a sentence without it', async () => {
    const index = createVectorIndex({ dimension: 2, distance: 'Dot', m: 16, efConstruct: 100, fullScanThreshold: 10, indexingThreads: 1 });
    const mismatch = await rejection(index.search(new Float32Array(3), 1));
    expect(nativeErrorCode(mismatch)).toBe('DIMENSION_MISMATCH');
    expect((mismatch as Error).message).toBe('expected 2 values per vector, got 3');
    index.close();
    const closed = await rejection(index.upsert(Uint32Array.of(0), new Float32Array(2)));
    expect(nativeErrorCode(closed)).toBe('INDEX_CLOSED');
    expect((closed as Error).message).toBe('the vector index was closed');
  });
});
