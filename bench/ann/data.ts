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

/**
 * Points shaped like text embeddings rather than tight clusters: a shared offset (embeddings are
 * anisotropic), a low-rank signal whose variance falls off like 1/i along `rank` random directions
 * (a decaying spectrum), soft topics in that signal (topic spread equal to the within-topic noise,
 * so neighbourhoods overlap), and a little isotropic noise in every dimension. Unlike
 * `clusteredDataset`, the values that tell a point's true neighbours apart are not drowned by a
 * cluster centre, which is the situation bit codes are made for (bench/README.md, "Quantized").
 */
export function embeddingLikeDataset(name: string, count: number, dimension: number, queryCount: number, seed: number): Dataset {
  const uniform = seededUniform(seed);
  const gaussian = (): number => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
  const rank = 64;
  const topics = 200;
  const isotropicNoise = 0.15;
  const offset = Float32Array.from({ length: dimension }, () => gaussian() * 0.5);
  // Directions: rank rows of `dimension` Gaussian values scaled to unit length on average.
  const directions = Float32Array.from({ length: rank * dimension }, () => gaussian() / Math.sqrt(dimension));
  const scale = Float32Array.from({ length: rank }, (_, index) => 1 / Math.sqrt(index + 1));
  const topicCentres = Float32Array.from({ length: topics * rank }, () => gaussian());
  const latent = new Float32Array(rank);
  const draw = (rows: number): Float32Array => {
    const output = new Float32Array(rows * dimension);
    for (let row = 0; row < rows; row += 1) {
      const topic = Math.floor(uniform() * topics) * rank;
      for (let index = 0; index < rank; index += 1) latent[index] = (topicCentres[topic + index]! + gaussian()) * scale[index]! * 4;
      const base = row * dimension;
      for (let column = 0; column < dimension; column += 1) output[base + column] = offset[column]! + gaussian() * isotropicNoise;
      for (let index = 0; index < rank; index += 1) {
        const weight = latent[index]!;
        const direction = index * dimension;
        for (let column = 0; column < dimension; column += 1) output[base + column] = output[base + column]! + weight * directions[direction + column]!;
      }
    }
    return output;
  };
  const vectors = draw(count);
  const queries = draw(queryCount);
  return { name, distance: 'Cosine', dimension, count, vectors, queries, queryCount };
}
