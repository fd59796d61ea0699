// CRC-32C (Castagnoli), as LevelDB checksums its log records and table blocks, and LevelDB's
// masking of a stored CRC (leveldb-log.ts, leveldb-table-check.ts). The start-up check reads
// every byte of the store, so `crc32c` is the kernel's (the CPU's CRC instruction: 9.4 GB/s here against 217 MB/s);
// `portableCrc32c` is its slow twin (a byte-at-a-time table, ~200 MB/s), compared in crc32c.test.ts.
import { native } from '../native/index.js';

const table = (() => {
  const entries = new Uint32Array(256);
  for (let index = 0; index < 256; index += 1) {
    let value = index;
    for (let bit = 0; bit < 8; bit += 1) value = value & 1 ? (value >>> 1) ^ 0x82f63b78 : value >>> 1;
    entries[index] = value >>> 0;
  }
  return entries;
})();

export function portableCrc32c(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (let position = 0; position < bytes.length; position += 1) crc = table[(crc ^ bytes[position]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

export function crc32c(bytes: Uint8Array): number {
  return native.crc32c(bytes);
}

/** LevelDB stores CRCs masked (so a CRC over data that holds CRCs stays well distributed). */
export function masked(crc: number): number {
  return (((crc >>> 15) | (crc << 17)) + 0xa282ead8) >>> 0;
}
