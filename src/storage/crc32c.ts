// CRC-32C (Castagnoli), as LevelDB checksums its log records and table blocks, and LevelDB's
// masking of a stored CRC (leveldb-log.ts, leveldb-table-check.ts).
const table = (() => {
  const entries = new Uint32Array(256);
  for (let index = 0; index < 256; index += 1) {
    let value = index;
    for (let bit = 0; bit < 8; bit += 1) value = value & 1 ? (value >>> 1) ^ 0x82f63b78 : value >>> 1;
    entries[index] = value >>> 0;
  }
  return entries;
})();

export function crc32c(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (let position = 0; position < bytes.length; position += 1) crc = table[(crc ^ bytes[position]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** LevelDB stores CRCs masked (so a CRC over data that holds CRCs stays well distributed). */
export function masked(crc: number): number {
  return (((crc >>> 15) | (crc << 17)) + 0xa282ead8) >>> 0;
}
