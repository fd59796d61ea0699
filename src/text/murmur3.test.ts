import { describe, expect, it } from 'vitest';
import { murmur3x86_32 } from './murmur3.js';

describe('murmur3 x86_32', () => {
  // Reference values of the published algorithm (seed 0 unless stated).
  it.each([
    ['', 0],
    ['a', 0x3c2569b2],
    ['abcd', 0x43ed676a],
    ['hello', 0x248bfa47],
    ['The quick brown fox jumps over the lazy dog', 0x2e4ff723],
  ])('murmur3 — %j hashes to the reference value', (text, expected) => {
    expect(murmur3x86_32(text)).toBe(expected);
  });
  it('murmur3 — hashes UTF-8 bytes, not UTF-16 code units', () => {
    expect(murmur3x86_32('café')).toBe(605818632);
    expect(murmur3x86_32('東京')).toBe(2529104194);
  });
  it('murmur3 — the seed changes the hash', () => {
    expect(murmur3x86_32('hello', 42)).toBe(3806057185);
  });
});
