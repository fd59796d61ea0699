// The TypeScript face of the kernel's sparse vector index (crates/quiver-core/src/sparse), one
// instance per (collection, sparse vector name), over the same slots as the dense index, and
// the wrapper over the addon's NativeSparseIndex class. Score = dot product over the
// dimensions a point shares with the query; a point sharing none never appears, one sharing
// any does even at score 0. Results: score descending, then slot ascending.
import { type CompletionChannelHandle, Completions } from './completions.js';
import { native } from './index.js';
import type { SearchResult } from './vector-index.js';
import { invalidArgument } from './wrapped-vector-index.js';

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
  /** Writes a checkpoint atomically (temp file, fsync, rename, fsync directory). */
  save(path: string, lastOperationId: number): Promise<void>;
  /** Releases native memory; the instance must not be used afterwards. */
  close(): void;
}

export interface LoadedSparseIndex {
  index: SparseIndex;
  lastOperationId: number;
}

/** The addon's class as the wrapper uses it; see native/index.d.cts. */
export interface NativeSparseIndexHandle {
  readonly loadedOperationId: number;
  upsert(slots: Uint32Array, offsets: Uint32Array, indices: Uint32Array, values: Float32Array): Promise<void>;
  delete(slots: Uint32Array): Promise<number>;
  /** Starts a search; the completion channel delivers slots (u32 × n) then scores (f32 × n). */
  search(ticket: number, indices: Uint32Array, values: Float32Array, k: number, exact?: boolean | null, allowed?: Uint8Array | null): void;
  vector(slot: number): SparseVector | null;
  has(slot: number): boolean;
  documentFrequencies(dimensions: Uint32Array): Uint32Array;
  stats(): SparseIndexStats;
  save(path: string, lastOperationId: number): Promise<void>;
  close(): void;
}

export interface NativeSparseIndexClass {
  create(completions: CompletionChannelHandle): NativeSparseIndexHandle;
  load(path: string, completions: CompletionChannelHandle): Promise<NativeSparseIndexHandle>;
}

// The addon exports the class (crates/quiver-node/src/sparse_index.rs); declared here so the
// sparse face stays in one file while index.ts remains the only place that loads the addon.
const binding = native as typeof native & { NativeSparseIndex: NativeSparseIndexClass };

const MAX_U32 = 0xffff_ffff;

// Opened on first use: a server without sparse vectors never creates this channel.
let completions: Completions | undefined;
function channel(): Completions {
  completions ??= new Completions((deliver) => new binding.CompletionChannel(deliver));
  return completions;
}

export class WrappedSparseIndex implements SparseIndex {
  constructor(
    private readonly handle: NativeSparseIndexHandle,
    private readonly completions: Completions,
  ) {}

  // `async` so that argument and INDEX_CLOSED errors reject the promise instead of throwing.
  async upsert(slots: Uint32Array, offsets: Uint32Array, indices: Uint32Array, values: Float32Array): Promise<void> {
    return this.handle.upsert(slots, offsets, indices, values);
  }

  async delete(slots: Uint32Array): Promise<number> {
    return this.handle.delete(slots);
  }

  async search(query: SparseVector, k: number, options?: SparseSearchOptions): Promise<SearchResult> {
    if (!Number.isInteger(k) || k < 0 || k > MAX_U32) throw invalidArgument(`k must be an integer in 0..${MAX_U32}, got ${k}`);
    const buffer = await this.completions.submit((ticket) =>
      this.handle.search(ticket, query.indices, query.values, k, options?.exact ?? null, options?.allowed ?? null),
    );
    // Views over the one result buffer (crates/quiver-node/src/result_bytes.rs); no copy.
    const count = buffer.byteLength / 8;
    return { slots: new Uint32Array(buffer, 0, count), scores: new Float32Array(buffer, count * 4, count) };
  }

  vector(slot: number): SparseVector | undefined {
    if (!Number.isInteger(slot) || slot < 0 || slot >= MAX_U32) return undefined;
    return this.handle.vector(slot) ?? undefined;
  }

  has(slot: number): boolean {
    if (!Number.isInteger(slot) || slot < 0 || slot >= MAX_U32) return false;
    return this.handle.has(slot);
  }

  documentFrequencies(dimensions: Uint32Array): Uint32Array {
    return this.handle.documentFrequencies(dimensions);
  }

  stats(): SparseIndexStats {
    const stats = this.handle.stats();
    return { count: stats.count, nonZeros: stats.nonZeros, dimensions: stats.dimensions, memoryBytes: stats.memoryBytes };
  }

  async save(path: string, lastOperationId: number): Promise<void> {
    return this.handle.save(path, lastOperationId);
  }

  close(): void {
    this.handle.close();
  }
}

/** A new, empty sparse index. */
export function createSparseIndex(): SparseIndex {
  const shared = channel();
  return new WrappedSparseIndex(binding.NativeSparseIndex.create(shared.channel), shared);
}

/**
 * Loads a checkpoint written by `SparseIndex.save`. Rejects with CHECKPOINT_CORRUPT for a
 * damaged, truncated or foreign file and CHECKPOINT_VERSION for a format this build does not
 * read; such a file is never partly loaded.
 */
export async function loadSparseIndex(path: string): Promise<LoadedSparseIndex> {
  const shared = channel();
  const handle = await binding.NativeSparseIndex.load(path, shared.channel);
  return { index: new WrappedSparseIndex(handle, shared), lastOperationId: handle.loadedOperationId };
}
