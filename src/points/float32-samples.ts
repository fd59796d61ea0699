// Test data for the kernel's float32 printing (vectors.test.ts, float32-row.test.ts): a seeded
// mix of every bit pattern's exponent, the unit range embeddings hold, large values with few
// fraction bits (where a value can lie exactly between two candidates) and subnormals, led by
// the edge cases.

/** `count` float32 values (some not finite, from the random bit patterns); the same each call. */
export function mixedFloat32Samples(count: number): Float32Array {
  let state = 0x9e3779b9;
  const next = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return state >>> 0;
  };
  const values = new Float32Array(count);
  const bits = new Uint32Array(values.buffer);
  for (let position = 0; position < count; position += 1) {
    const kind = position % 5;
    if (kind === 0) bits[position] = next();
    else if (kind === 1) values[position] = (next() / 2 ** 32) * 2 - 1;
    else if (kind === 2) values[position] = ((next() % 2 ** 24) / 4) * (next() % 2 ? 1 : -1);
    else if (kind === 3) bits[position] = next() % 2 ** 23;
    else values[position] = (next() / 2 ** 32 - 0.5) * 2000;
  }
  values.set([2258173.25, -2258173.25, 0.1, 1e-45, 16777218, 1e10, 0.375, -0].slice(0, count), 0);
  return values;
}
