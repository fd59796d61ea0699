// Seeded, clustered benchmark data: the shape real embeddings have (points gather around
// topics), which is where graph recall is tested. Values are kept as integers of 1e-4 units:
// `n / 1e4` prints as a short decimal for the JSON, and the server's float32 of that decimal is
// exactly Math.fround(n / 1e4), which is what the kernel copy here holds.
import { gaussian, linearCongruential, openInterval } from '../../test/support/seeded-random.js';

export interface DataSet {
  name: string;
  distance: 'Euclid' | 'Cosine';
  dimension: number;
  count: number;
  /** count · dimension values in 1e-4 units, row by row. */
  vectors: Int32Array;
  /** queryCount · dimension values (1e-4 units): fresh points from the same clusters. */
  queries: Int32Array;
  queryCount: number;
  /** Keyword payload of point i: `c${i % categories}`. */
  categories: number;
}

function fill(target: Int32Array, rows: number, dimension: number, centres: Float32Array, clusters: number, next: () => number): void {
  for (let row = 0; row < rows; row++) {
    const centre = Math.floor(next() * clusters) * dimension;
    for (let position = 0; position < dimension; position++) {
      target[row * dimension + position] = Math.round((centres[centre + position]! + gaussian(next) * 0.35) * 1e4);
    }
  }
}

export function makeDataSet(options: { name: string; distance: 'Euclid' | 'Cosine'; dimension: number; count: number; queryCount: number; seed: number }): DataSet {
  // Draws in (0, 1): the Gaussian takes the log of one.
  const next = openInterval(linearCongruential(options.seed));
  const clusters = Math.max(8, Math.round(Math.sqrt(options.count) / 4));
  const centres = new Float32Array(clusters * options.dimension);
  for (let position = 0; position < centres.length; position++) centres[position] = next() * 2 - 1;
  const vectors = new Int32Array(options.count * options.dimension);
  fill(vectors, options.count, options.dimension, centres, clusters, next);
  const queries = new Int32Array(options.queryCount * options.dimension);
  fill(queries, options.queryCount, options.dimension, centres, clusters, next);
  return { ...options, vectors, queries, categories: 10 };
}

export function toFloats(values: Int32Array): Float32Array {
  const floats = new Float32Array(values.length);
  for (let position = 0; position < values.length; position++) floats[position] = values[position]! / 1e4;
  return floats;
}

/** One row as JSON array text: "[0.1234,-0.5,...]". */
export function rowJson(values: Int32Array, index: number, dimension: number): string {
  const parts = new Array<string>(dimension);
  for (let position = 0; position < dimension; position++) parts[position] = String(values[index * dimension + position]! / 1e4);
  return `[${parts.join(',')}]`;
}
