// MurmurHash3, x86 32-bit variant, over the UTF-8 bytes of a string: the hash Qdrant (and
// fastembed) use for BM25 term ids, so the same token gets the same sparse index here.

const encoder = new TextEncoder();

/** MurmurHash3 x86_32 of `text`'s UTF-8 bytes with `seed`, as an unsigned 32-bit integer. */
export function murmur3x86_32(text: string, seed = 0): number {
  const bytes = encoder.encode(text);
  const blockMultiplier1 = 0xcc9e2d51;
  const blockMultiplier2 = 0x1b873593;
  let hash = seed >>> 0;
  const blockEnd = bytes.length - (bytes.length % 4);
  for (let offset = 0; offset < blockEnd; offset += 4) {
    let block = bytes[offset]! | (bytes[offset + 1]! << 8) | (bytes[offset + 2]! << 16) | (bytes[offset + 3]! << 24);
    block = Math.imul(block, blockMultiplier1);
    block = (block << 15) | (block >>> 17);
    block = Math.imul(block, blockMultiplier2);
    hash ^= block;
    hash = (hash << 13) | (hash >>> 19);
    hash = (Math.imul(hash, 5) + 0xe6546b64) | 0;
  }
  const remaining = bytes.length - blockEnd;
  if (remaining > 0) {
    let tail = 0;
    for (let position = remaining - 1; position >= 0; position -= 1) tail = (tail << 8) | bytes[blockEnd + position]!;
    tail = Math.imul(tail, blockMultiplier1);
    tail = (tail << 15) | (tail >>> 17);
    tail = Math.imul(tail, blockMultiplier2);
    hash ^= tail;
  }
  hash ^= bytes.length;
  return finalMix32(hash);
}

/** MurmurHash3's 32-bit finaliser: every input bit affects every output bit (an unsigned result). */
export function finalMix32(value: number): number {
  let hash = value;
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}
