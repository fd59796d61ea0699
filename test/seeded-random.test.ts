// The shared seeded generators: their sequences are pinned, because many tests' data sets and
// the benches' recorded figures were made from them — a change here would move all of them.
import { describe, expect, it } from 'vitest';
import { gaussian, linearCongruential, mulberry32, openInterval } from './support/seeded-random.js';

/** Slow twin of the LCG in exact integer arithmetic. */
function referenceLcg(seed: number): () => number {
  let state = BigInt(seed >>> 0);
  return () => {
    state = (state * 1664525n + 1013904223n) % 2n ** 32n;
    return Number(state) / 2 ** 32;
  };
}

describe('seeded random', () => {
  it('mulberry32 — seed 42 draws the published mulberry32 sequence', () => {
    const next = mulberry32(42);
    expect([next(), next(), next()]).toEqual([0.6011037519201636, 0.44829055899754167, 0.8524657934904099]);
  });

  it('linear congruential — equals exact integer arithmetic for 10,000 draws over several seeds', () => {
    for (const seed of [0, 1, 7, 42, 2 ** 32 - 1]) {
      const next = linearCongruential(seed);
      const reference = referenceLcg(seed);
      for (let draw = 0; draw < 2_000; draw += 1) expect(next()).toBe(reference());
    }
  });

  it('open interval — moves each draw up by exactly 2^-33, so a draw of 0 becomes positive', () => {
    // 634785765 is the seed whose first LCG state is 0.
    expect(linearCongruential(634785765)()).toBe(0);
    expect(openInterval(linearCongruential(634785765))()).toBe(2 ** -33);
    const plain = linearCongruential(9);
    const open = openInterval(linearCongruential(9));
    for (let draw = 0; draw < 1_000; draw += 1) expect(open() - plain()).toBe(2 ** -33);
  });

  it('gaussian — the guard keeps a draw of 0 finite; draws have mean near 0 and variance near 1', () => {
    expect(Number.isFinite(gaussian(linearCongruential(634785765), 1e-12))).toBe(true);
    const next = mulberry32(5);
    const draws = Array.from({ length: 20_000 }, () => gaussian(next, 1e-12));
    const mean = draws.reduce((sum, value) => sum + value, 0) / draws.length;
    const variance = draws.reduce((sum, value) => sum + (value - mean) ** 2, 0) / draws.length;
    expect(Math.abs(mean)).toBeLessThan(0.05);
    expect(Math.abs(variance - 1)).toBeLessThan(0.05);
  });
});
