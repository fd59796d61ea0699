// Seeded pseudo-random sources for tests and benchmarks, so that a failure reproduces from its
// seed. Two algorithms on purpose: the files that used mulberry32 and the files that used the
// LCG keep drawing exactly the numbers they drew before (the search tests' recall floors and
// bench:http's recall floor were set on that data, and recorded bench figures stay comparable).

/** mulberry32: uniform draws in [0, 1) from a 32-bit seed. */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

/** A linear congruential generator (Numerical Recipes constants): uniform draws in [0, 1). */
export function linearCongruential(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/**
 * The same draws moved up by half a step of 2^-32, into (0, 1): never 0, so safe under
 * Math.log. Exact: every draw is a multiple of 2^-32 below 1, so adding 2^-33 rounds nothing.
 */
export function openInterval(next: () => number): () => number {
  return () => next() + 2 ** -33;
}

/**
 * One standard normal draw (Box-Muller, cosine branch) from two uniform draws, the first under
 * the logarithm. `guard` is added to that first draw for sources that can return 0.
 */
export function gaussian(next: () => number, guard = 0): number {
  return Math.sqrt(-2 * Math.log(next() + guard)) * Math.cos(2 * Math.PI * next());
}

/** Deterministic pseudo-random vectors in [-1, 1] (xorshift32), packed count x dimension, so failures reproduce. */
export function xorshiftVectors(count: number, dimension: number, seed: number): Float32Array {
  let state = seed >>> 0 || 1;
  const values = new Float32Array(count * dimension);
  for (let index = 0; index < values.length; index += 1) {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    values[index] = (state / 0xffff_ffff) * 2 - 1;
  }
  return values;
}
