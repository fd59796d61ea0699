// The IDF modifier of a sparse vector (docs/api.md §5.6): with `modifier: "idf"` the query's
// values are multiplied by each dimension's inverse document frequency, computed from the
// collection's current statistics, as Qdrant computes it:
//
//   idf(n) = ln(((N - n + 0.5) / (n + 0.5)) + 1)
//
// with N the live points holding the vector and n those among them holding the dimension. The
// statistics are the kernel's live counts, so deletes and updates are reflected at once.
import type { SparseIndex, SparseVector } from '../native/sparse-index-contract.js';

/** Qdrant's IDF of a dimension held by `documentFrequency` of `documentCount` vectors. */
export function inverseDocumentFrequency(documentCount: number, documentFrequency: number): number {
  return Math.log((documentCount - documentFrequency + 0.5) / (documentFrequency + 0.5) + 1);
}

/**
 * The statistics of a whole sharded collection, summed over its shards by a cluster coordinator
 * (docs/architecture.md §13): a shard weighs the query with these instead of its own counts, so
 * every shard scores as one node holding all the points would. An index missing here counts 0.
 */
export interface IdfStatistics {
  documentCount: number;
  documentFrequencies: ReadonlyMap<number, number>;
}

/** The query with every value multiplied by its dimension's IDF in `index` (or in `statistics`, when given). */
export function withIdfWeights(index: Pick<SparseIndex, 'documentFrequencies' | 'stats'>, query: SparseVector, statistics?: IdfStatistics): SparseVector {
  const documentCount = statistics ? statistics.documentCount : index.stats().count;
  const frequencies = statistics ? Uint32Array.from(query.indices, (dimension) => statistics.documentFrequencies.get(dimension) ?? 0) : index.documentFrequencies(query.indices);
  const values = new Float32Array(query.values.length);
  for (let position = 0; position < values.length; position += 1) {
    values[position] = query.values[position]! * inverseDocumentFrequency(documentCount, frequencies[position]!);
  }
  return { indices: query.indices, values };
}
