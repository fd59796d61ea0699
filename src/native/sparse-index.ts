// The TypeScript face of the kernel's sparse vector index (crates/quiver-core/src/sparse), one
// instance per (collection, sparse vector name), over the same slots as the dense index, and
// the wrapper over the addon's NativeSparseIndex class. Score = dot product over the
// dimensions a point shares with the query; a point sharing none never appears, one sharing
// any does even at score 0. Results: score descending, then slot ascending.
import { native } from './addon.js';
import { Completions } from './completions.js';
import { NativeError } from './errors.js';
import type { NativeSparseIndexHandle } from './sparse-index-binding.js';
import type { LoadedSparseIndex, SparseIndex, SparseIndexStats, SparseSearchOptions, SparseVector } from './sparse-index-contract.js';
import type { SearchResult } from './vector-index-contract.js';

export type { LoadedSparseIndex, SparseIndex, SparseIndexStats, SparseSearchOptions, SparseVector } from './sparse-index-contract.js';

const MAX_U32 = 0xffff_ffff;

// Opened on first use: a server without sparse vectors never creates this channel.
let completions: Completions | undefined;
function channel(): Completions {
  completions ??= new Completions((deliver) => new native.CompletionChannel(deliver));
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
    if (!Number.isInteger(k) || k < 0 || k > MAX_U32) throw new NativeError('INVALID_ARGUMENT', `k must be an integer in 0..${MAX_U32}, got ${k}`);
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

  async save(path: string, lastOperationId: number, binding = ''): Promise<void> {
    return this.handle.save(path, lastOperationId, binding);
  }

  close(): void {
    this.handle.close();
  }
}

/** A new, empty sparse index. */
export function createSparseIndex(): SparseIndex {
  const shared = channel();
  return new WrappedSparseIndex(native.NativeSparseIndex.create(shared.channel), shared);
}

/**
 * Loads a checkpoint written by `SparseIndex.save`. Rejects with CHECKPOINT_CORRUPT for a
 * damaged, truncated or foreign file and CHECKPOINT_VERSION for a format this build does not
 * read; such a file is never partly loaded.
 */
export async function loadSparseIndex(path: string): Promise<LoadedSparseIndex> {
  const shared = channel();
  const handle = await native.NativeSparseIndex.load(path, shared.channel);
  return { index: new WrappedSparseIndex(handle, shared), lastOperationId: handle.loadedOperationId, binding: handle.loadedBinding };
}
