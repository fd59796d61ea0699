// The raw shapes of crates/quiver-node/src/vector_index.rs as the addon exports them (see
// native/index.d.cts): what addon.ts declares and vector-index.ts wraps. Types only, in a file of
// their own so that the loader and the wrapper do not import each other.
import type { CompletionChannelHandle } from './completions.js';
import type { KernelMemoryReport, VectorIndexStats } from './vector-index-contract.js';

/** The options every search entry point of the addon takes after its query and k, in its order. */
export type NativeSearchOptions = [
  ef?: number | null,
  exact?: boolean | null,
  allowed?: Uint8Array | null,
  ignoreQuantization?: boolean | null,
  rescore?: boolean | null,
  oversampling?: number | null,
];

/** An instance of the addon's NativeVectorIndex as the wrapper uses it; see native/index.d.cts. */
export interface NativeVectorIndexHandle {
  readonly loadedOperationId: number;
  /** The checkpoint's binding ("" when created or read from an unbound version 1 file). */
  readonly loadedBinding: string;
  /** float32, float16 or uint8 (docs/architecture.md §18). */
  readonly datatype: string;
  upsert(slots: Uint32Array, vectors: Float32Array): Promise<void>;
  delete(slots: Uint32Array): Promise<void>;
  /** Starts a search; the completion channel delivers slots (u32 × n) then scores (f32 × n). */
  search(ticket: number, query: Float32Array, k: number, ...options: NativeSearchOptions): void;
  searchSync(query: Float32Array, k: number, ...options: NativeSearchOptions): ArrayBuffer;
  /** Starts a batch; delivers counts (u32 × queries), slots (u32 × total), scores (f32 × total). */
  searchBatch(ticket: number, queries: Float32Array, k: number, ...options: NativeSearchOptions): void;
  setQuantization(kind: string | null, quantile: number | null, encoding: string | null, queryEncoding: string | null, mapped: boolean | null): void;
  quantizationStatus(): { enabled: boolean; active: boolean; building: boolean; memoryBytes: number; mappedBytes: number };
  waitQuantized(): Promise<void>;
  /** Starts scoring `slots` against `query`; delivers scores (f32 × slots, NaN: no live vector). */
  scoreSlots(ticket: number, query: Float32Array, slots: Uint32Array): void;
  /** Starts an MMR pick among `slots`; delivers positions into `slots` (u32 × picked). */
  mmrSelect(ticket: number, query: Float32Array, slots: Uint32Array, lambda: number, limit: number): void;
  vectors(slots: Uint32Array): Float32Array;
  has(slot: number): boolean;
  stats(): VectorIndexStats;
  liveCount(): number;
  memoryReport(): KernelMemoryReport;
  waitIndexed(): Promise<void>;
  save(path: string, lastOperationId: number, binding?: string): Promise<void>;
  close(): void;
}

/** The addon's NativeVectorIndex class: its two factories. */
export interface NativeVectorIndexClass {
  create(
    dimension: number,
    distance: string,
    m: number,
    efConstruct: number,
    fullScanThreshold: number,
    indexingThreads: number,
    completions: CompletionChannelHandle,
    onDiskDirectory?: string | null,
    datatype?: string | null,
  ): NativeVectorIndexHandle & { readonly dimension: number; readonly distance: string };
  load(path: string, completions: CompletionChannelHandle, onDiskDirectory?: string | null): Promise<NativeVectorIndexHandle & { readonly dimension: number; readonly distance: string }>;
}
