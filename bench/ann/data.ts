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
 *
 * The model's parameters come from `seed`; rows continue the same random stream unless
 * `sampleSeed` gives them one of their own (bench:memory streams millions of rows batch by
 * batch, and draws its queries from a second stream around the same model).
 */
export class EmbeddingLikeSource {
  private static readonly rank = 64;
  private static readonly topics = 200;
  private static readonly isotropicNoise = 0.15;
  private uniform: () => number;
  private readonly offset: Float32Array;
  private readonly directions: Float32Array;
  private readonly scale: Float32Array;
  private readonly topicCentres: Float32Array;
  private readonly latent = new Float32Array(EmbeddingLikeSource.rank);

  constructor(
    readonly dimension: number,
    seed: number,
    sampleSeed?: number,
  ) {
    const { rank, topics } = EmbeddingLikeSource;
    this.uniform = seededUniform(seed);
    this.offset = Float32Array.from({ length: dimension }, () => this.gaussian() * 0.5);
    // Directions: rank rows of `dimension` Gaussian values scaled to unit length on average.
    this.directions = Float32Array.from({ length: rank * dimension }, () => this.gaussian() / Math.sqrt(dimension));
    this.scale = Float32Array.from({ length: rank }, (_, index) => 1 / Math.sqrt(index + 1));
    this.topicCentres = Float32Array.from({ length: topics * rank }, () => this.gaussian());
    if (sampleSeed !== undefined) this.uniform = seededUniform(sampleSeed);
  }

  private gaussian(): number {
    return Math.sqrt(-2 * Math.log(this.uniform())) * Math.cos(2 * Math.PI * this.uniform());
  }

  /** The next `rows` rows, one after another. */
  draw(rows: number): Float32Array {
    const { rank, topics, isotropicNoise } = EmbeddingLikeSource;
    const { dimension, latent } = this;
    const output = new Float32Array(rows * dimension);
    for (let row = 0; row < rows; row += 1) {
      const topic = Math.floor(this.uniform() * topics) * rank;
      for (let index = 0; index < rank; index += 1) latent[index] = (this.topicCentres[topic + index]! + this.gaussian()) * this.scale[index]! * 4;
      const base = row * dimension;
      for (let column = 0; column < dimension; column += 1) output[base + column] = this.offset[column]! + this.gaussian() * isotropicNoise;
      for (let index = 0; index < rank; index += 1) {
        const weight = latent[index]!;
        const direction = index * dimension;
        for (let column = 0; column < dimension; column += 1) output[base + column] = output[base + column]! + weight * this.directions[direction + column]!;
      }
    }
    return output;
  }
}

/** `count` embedding-like points and `queryCount` queries continuing the same stream (EmbeddingLikeSource). */
export function embeddingLikeDataset(name: string, count: number, dimension: number, queryCount: number, seed: number): Dataset {
  const source = new EmbeddingLikeSource(dimension, seed);
  const vectors = source.draw(count);
  const queries = source.draw(queryCount);
  return { name, distance: 'Cosine', dimension, count, vectors, queries, queryCount };
}
