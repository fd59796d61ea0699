import { describe, expect, it } from 'vitest';
import { canonicalUuid, comparePointIds, decodePointIdBytes, encodePointIdBytes, parsePointId, type PointId } from './ids.js';

describe('point ids', () => {
  it('parse — safe integers stay numbers, larger ones bigint, up to 2^64 - 1', () => {
    expect(parsePointId(0)).toBe(0);
    expect(parsePointId(9007199254740991)).toBe(9007199254740991);
    expect(parsePointId(9007199254740992n)).toBe(9007199254740992n);
    expect(parsePointId(18446744073709551615n)).toBe(18446744073709551615n);
    expect(parsePointId(5n)).toBe(5);
    expect(() => parsePointId(18446744073709551616n)).toThrow(/not a valid point ID/);
    expect(() => parsePointId(-1)).toThrow(/value -1 is not a valid point ID/);
    expect(() => parsePointId(2.5)).toThrow(/not a valid point ID/);
    expect(() => parsePointId(9007199254740993)).toThrow(/not a valid point ID/);
  });

  it('parse — every UUID form becomes lowercase hyphenated; other strings are refused', () => {
    const canonical = 'a0b1c2d3-e4f5-4a6b-8c7d-9e0f1a2b3c4d';
    for (const form of ['A0B1C2D3-E4F5-4A6B-8C7D-9E0F1A2B3C4D', 'a0b1c2d3e4f54a6b8c7d9e0f1a2b3c4d', '{a0b1c2d3-e4f5-4a6b-8c7d-9e0f1a2b3c4d}', 'urn:uuid:a0b1c2d3-e4f5-4a6b-8c7d-9e0f1a2b3c4d']) {
      expect(parsePointId(form)).toBe(canonical);
    }
    expect(canonicalUuid('a0b1c2d3-e4f5-4a6b-8c7d-9e0f1a2b3c4')).toBeUndefined();
    expect(() => parsePointId('42')).toThrow('value "42" is not a valid point ID, valid values are either an unsigned integer or a UUID');
  });

  it('order — integers ascending, then UUIDs by bytes; the storage key order is the same (slow twin)', () => {
    const ids: PointId[] = [
      'ffffffff-0000-4000-8000-000000000000',
      18446744073709551615n,
      3,
      '00000000-0000-4000-8000-000000000001',
      9007199254740992n,
      0,
      '0a000000-0000-4000-8000-000000000000',
      100,
    ];
    const sorted = [...ids].sort(comparePointIds);
    expect(sorted).toEqual([0, 3, 100, 9007199254740992n, 18446744073709551615n, '00000000-0000-4000-8000-000000000001', '0a000000-0000-4000-8000-000000000000', 'ffffffff-0000-4000-8000-000000000000']);
    const byKey = [...ids].sort((left, right) => Buffer.compare(encodePointIdBytes(left), encodePointIdBytes(right)));
    expect(byKey).toEqual(sorted);
  });

  it('storage keys — decode(encode(id)) is the id', () => {
    for (const id of [0, 77, 9007199254740991, 9007199254740992n, 18446744073709551615n, '123e4567-e89b-12d3-a456-426614174000']) {
      expect(decodePointIdBytes(encodePointIdBytes(id))).toBe(id);
    }
  });
});
