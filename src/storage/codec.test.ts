import { describe, expect, it } from 'vitest';
import { decodeJsonRecord, encodeJsonRecord, FormatVersionError } from './codec.js';

describe('versioned record codec', () => {
  it('round-trips a value with its format version, big integers included', () => {
    const record = encodeJsonRecord(3, { id: 424242424242424242n, name: 'x' });
    expect(record[0]).toBe(3);
    expect(decodeJsonRecord(record, [3], 'test')).toEqual({ version: 3, value: { id: 424242424242424242n, name: 'x' } });
  });

  it('refuses a format version it does not know', () => {
    const record = encodeJsonRecord(9, {});
    expect(() => decodeJsonRecord(record, [1, 2], 'point')).toThrow(FormatVersionError);
    expect(() => decodeJsonRecord(record, [1, 2], 'point')).toThrow(/point: unsupported format version 9/);
  });
});
