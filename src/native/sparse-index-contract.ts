// The engine's contract with the kernel's sparse vector index: types only, implemented by
// sparse-index.ts over crates/quiver-node/src/sparse_index.rs. One instance per (collection,
// sparse vector name), over the same slots as the dense index.
import type { SearchResult } from './vector-index-contract.js';

/** One sparse vector: indices (any order on input, ascending on output) and a value each. */
export interface SparseVector {
  indices: Uint32Array;
  values: Float32Array;
}

export interface SparseSearchOptions {
  /** True: the exhaustive exact scorer instead of the pruned one (same answer, slower). */
  exact?: boolean;
  /** Allowed slots as a little-endian bitset (bit `slot % 8` of byte `slot >> 3`). */
  allowed?: Uint8Array;
}

export interface SparseIndexStats {
  /** Live vectors. */
  count: number;
  /** Stored non-zero entries across live vectors. */
  nonZeros: number;
  /** Dimensions held by at least one live vector. */
  dimensions: number;
  memoryBytes: number;
}

export interface SparseIndex {
  /**
   * Inserts or replaces the vectors of `slots`: vector i is `indices[offsets[i]..offsets[i+1]]`
   * with the same range of `values` (offsets has slots.length + 1 entries, from 0 to
   * indices.length). Rejects with INVALID_ARGUMENT (and changes nothing) for unequal lengths,
   * a repeated index within a vector or a non-finite value. A slot named twice keeps its last.
   */
  upsert(slots: Uint32Array, offsets: Uint32Array, indices: Uint32Array, values: Float32Array): Promise<void>;
  /** Removes the vectors of `slots`; unknown slots are ignored. Resolves to how many went. */
  delete(slots: Uint32Array): Promise<number>;
  /**
   * The k best live, allowed slots. The kernel applies no modifier: for IDF, multiply the
   * query's values by the weights computed from `documentFrequencies` and `stats().count`.
   */
  search(query: SparseVector, k: number, options?: SparseSearchOptions): Promise<SearchResult>;
  /** The stored vector of `slot` (indices ascending), or undefined if it holds none. */
  vector(slot: number): SparseVector | undefined;
  has(slot: number): boolean;
  /** For each dimension, how many live vectors hold it. */
  documentFrequencies(dimensions: Uint32Array): Uint32Array;
  stats(): SparseIndexStats;
  /** Writes a checkpoint atomically (temp file, fsync, rename, fsync directory), with its binding (as VectorIndex.save). */
  save(path: string, lastOperationId: number, binding?: string): Promise<void>;
  /** Releases native memory; the instance must not be used afterwards. */
  close(): void;
}

export interface LoadedSparseIndex {
  index: SparseIndex;
  lastOperationId: number;
  /** The binding it was saved with; "" for a file of the old, unbound format. */
  binding: string;
}
