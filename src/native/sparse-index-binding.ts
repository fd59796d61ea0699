// The raw shapes of crates/quiver-node/src/sparse_index.rs as the addon exports them (see
// native/index.d.cts): what addon.ts declares and sparse-index.ts wraps. Types only.
import type { CompletionChannelHandle } from './completions.js';
import type { SparseIndexStats, SparseVector } from './sparse-index-contract.js';

/** The addon's class as the wrapper uses it; see native/index.d.cts. */
export interface NativeSparseIndexHandle {
  readonly loadedOperationId: number;
  /** The checkpoint's binding ("" when created or read from an unbound version 1 file). */
  readonly loadedBinding: string;
  upsert(slots: Uint32Array, offsets: Uint32Array, indices: Uint32Array, values: Float32Array): Promise<void>;
  delete(slots: Uint32Array): Promise<number>;
  /** Starts a search; the completion channel delivers slots (u32 × n) then scores (f32 × n). */
  search(ticket: number, indices: Uint32Array, values: Float32Array, k: number, exact?: boolean | null, allowed?: Uint8Array | null): void;
  vector(slot: number): SparseVector | null;
  has(slot: number): boolean;
  documentFrequencies(dimensions: Uint32Array): Uint32Array;
  stats(): SparseIndexStats;
  save(path: string, lastOperationId: number, binding?: string): Promise<void>;
  close(): void;
}

export interface NativeSparseIndexClass {
  create(completions: CompletionChannelHandle): NativeSparseIndexHandle;
  load(path: string, completions: CompletionChannelHandle): Promise<NativeSparseIndexHandle>;
}
