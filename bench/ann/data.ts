// Seeded clustered data for the ANN benchmark: a Gaussian mixture (like embeddings, unlike
// uniform noise), reproducible from the seed alone, plus exact ground truth.

/** mulberry32: small, fast, good enough for benchmark data. */
export function seededUniform(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return (((value ^ (value >>> 14)) >>> 0) + 0.5) / 4294967296;
  };
}

export interface Dataset {
  name: string;
  distance: 'Euclid' | 'Cosine';
  dimension: number;
  count: number;
  vectors: Float32Array;
  queries: Float32Array;
  queryCount: number;
}

/**
 * `count` points around `clusters` centres (centre spread `spread`, unit noise), and
 * `queryCount` queries drawn from the same mixture with a different seed.
 */
export function clusteredDataset(
  name: string,
  distance: Dataset['distance'],
  count: number,
  dimension: number,
  queryCount: number,
  clusters: number,
  seed: number,
): Dataset {
  const uniform = seededUniform(seed);
  const gaussian = (): number => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
  const spread = 4;
  const centres = Float32Array.from({ length: clusters * dimension }, () => gaussian() * spread);
  const draw = (rows: number): Float32Array => {
    const output = new Float32Array(rows * dimension);
    for (let row = 0; row < rows; row += 1) {
      const centre = Math.floor(uniform() * clusters);
      for (let column = 0; column < dimension; column += 1) {
        output[row * dimension + column] = centres[centre * dimension + column]! + gaussian();
      }
    }
    return output;
  };
  const vectors = draw(count);
  const queries = draw(queryCount);
  return { name, distance, dimension, count, vectors, queries, queryCount };
}
