import { describe, expect, it } from 'vitest';
import { crc32c, masked, portableCrc32c } from './crc32c.js';

describe('crc32c', () => {
  it('crc32c — the standard check value: "123456789" gives 0xe3069283', () => {
    const bytes = Buffer.from('123456789');
    expect(crc32c(bytes)).toBe(0xe3069283);
    expect(portableCrc32c(bytes)).toBe(0xe3069283);
  });

  it('crc32c — the kernel agrees with the portable twin on every length and alignment', () => {
    let seed = 12345;
    const next = (): number => (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24;
    const backing = new Uint8Array(4096 + 16);
    for (let index = 0; index < backing.length; index += 1) backing[index] = next();
    for (const length of [0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 63, 64, 65, 255, 1000, 4096]) {
      for (const offset of [0, 1, 3, 8]) {
        const view = backing.subarray(offset, offset + length);
        expect(crc32c(view), `length ${length} offset ${offset}`).toBe(portableCrc32c(view));
      }
    }
  });

  it('crc32c — an empty buffer and a Node Buffer are read in place', () => {
    expect(crc32c(new Uint8Array(0))).toBe(0);
    const buffer = Buffer.alloc(1 << 20, 0xab);
    expect(crc32c(buffer)).toBe(portableCrc32c(buffer));
  });

  it('crc32c — masking is reversible rotation plus a constant, as LevelDB stores CRCs', () => {
    expect(masked(0)).toBe(0xa282ead8);
    expect(masked(0xe3069283)).not.toBe(0xe3069283);
  });
});
