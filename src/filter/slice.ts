// The `slice` condition (docs/api.md §6): every point belongs to exactly one of `total` slices,
// chosen by a hash of its canonical id key, so slices 0..total-1 are disjoint, cover the
// collection, and stay the same across requests and restarts (the hash depends on the id only).
// The hash is this server's own (FNV-1a, then a 32-bit avalanche): the same partition laws as
// Qdrant's, not necessarily the same point in the same slice.

import { finalMix32 } from '../text/murmur3.js';

/** Qdrant takes `total` as a u32. */
export const maxSliceTotal = 2 ** 32 - 1;

/** A 32-bit hash of an id key (decimal integer or canonical UUID text). */
export function idHash(idKey: string): number {
  let hash = 0x811c9dc5;
  for (let position = 0; position < idKey.length; position += 1) {
    hash ^= idKey.charCodeAt(position);
    hash = Math.imul(hash, 0x01000193);
  }
  // FNV alone spreads consecutive decimal ids poorly in the low bits; mix them (murmur3's finaliser).
  return finalMix32(hash);
}

/** The slice of `total` that the point with this id key falls in. */
export function sliceOf(idKey: string, total: number): number {
  return idHash(idKey) % total;
}
