// The contract between the engine (src/engine) and the kernel's vector index: one instance per
// (collection, vector name). Types only, so it has no Rust twin: vector-index.ts implements it
// over crates/quiver-node/src/vector_index.rs and re-exports it, and the engine codes against
// it. Typed arrays in, typed arrays out.

/** Distances as the wire names them (docs/api.md §4). */
export type Distance = 'Cosine' | 'Euclid' | 'Dot' | 'Manhattan';

/** Element type of stored dense vectors (docs/api.md §21): 4, 2 or 1 bytes per component. */
export type VectorDatatype = 'float32' | 'float16' | 'uint8';

export interface VectorIndexOptions {
  dimension: number;
  distance: Distance;
  /** HNSW links per node on upper levels; level 0 keeps 2·m. Default 16. */
  m: number;
  /** Candidate list size while building. Default 100. */
  efConstruct: number;
  /**
   * Below this many allowed points a filtered search scans them exactly instead of walking
   * the graph; also the size under which an unfiltered search is a plain scan.
   */
  fullScanThreshold: number;
  /** Threads building the graph in the background; 0 = one per core. */
  indexingThreads: number;
  /**
   * `on_disk` vectors (docs/architecture.md §15): the original vectors live in memory-mapped
   * working files created (and unlinked at once) in this directory instead of the heap arena.
   */
  onDiskDirectory?: string;
  /** Element type of the stored vectors (docs/architecture.md §18); float32 when absent. */
  datatype?: VectorDatatype;
}

export interface SearchOptions {
  /** Candidate list size for this search; the kernel uses max(k, ef). Default max(k, 64). */
  ef?: number;
  /** True: exact brute-force answer over the allowed points, never the graph. */
  exact?: boolean;
  /**
   * Allowed slots as a little-endian bitset (bit `slot % 8` of byte `slot >> 3`). Only these
   * slots may be returned. Absent: every live slot is allowed.
   */
  allowed?: Uint8Array;
  /** `params.quantization` (docs/api.md §15); no effect on an index without quantization. */
  quantization?: QuantizationSearchOptions;
}

/** Search-time quantization options; defaults as Qdrant's: ignore false, rescore true, oversampling 1. */
export interface QuantizationSearchOptions {
  ignore?: boolean;
  rescore?: boolean;
  oversampling?: number;
}

/** Binary code sizes and query encodings (docs/api.md §15); absent = one_bit / like the codes. */
export type KernelBinaryEncoding = 'one_bit' | 'two_bits' | 'one_and_half_bits';
export type KernelQueryEncoding = 'binary' | 'scalar8bits' | 'scalar4bits';

/**
 * What the kernel quantizes with: int8 scalar codes (quantile in 0.5..1) or binary codes.
 * `mapped`: the codes go to file-backed memory beside the vectors (docs/api.md §15: an `on_disk`
 * vector with `always_ram: false`); an index whose vectors are on the heap keeps them on the heap.
 */
export type KernelQuantization =
  | { kind: 'int8'; quantile?: number; mapped?: true }
  | { kind: 'binary'; encoding?: KernelBinaryEncoding; queryEncoding?: KernelQueryEncoding; mapped?: true };

export interface QuantizationStatus {
  enabled: boolean;
  /** Codes complete and used by searches. */
  active: boolean;
  /** Codes being built in the background (the collection reports yellow meanwhile). */
  building: boolean;
  /** Heap bytes of the codes. */
  memoryBytes: number;
  /** Bytes of mapped codes (`mapped`); counted in the index's mappedBytes, not its memoryBytes. */
  mappedBytes: number;
}

/** Best first. `scores` use the wire convention (docs/api.md §4): Cosine/Dot similarity, larger is
 * better; Euclid the L2 distance and Manhattan the L1 distance, smaller is better. */
export interface SearchResult {
  slots: Uint32Array;
  scores: Float32Array;
}

export interface VectorIndexStats {
  /** Live vectors (upserted, not deleted). */
  count: number;
  /** Live vectors already linked into the graph; count - indexed are still in the exact-scan tail. */
  indexedCount: number;
  deletedCount: number;
  /** Heap bytes held by the arena, graph and auxiliary structures (not the mapped files). */
  memoryBytes: number;
  /** Bytes of memory-mapped vector files (`on_disk`); 0 when the vectors are on the heap. */
  mappedBytes: number;
}

/** Kernel memory of one index (docs/api.md §18): heap, mapped files, and the mapped part in RAM. */
export interface KernelMemoryReport {
  residentBytes: number;
  mappedBytes: number;
  mappedResidentBytes: number;
}

export interface VectorIndex {
  readonly dimension: number;
  readonly distance: Distance;
  /** Element type of the stored vectors; `vectors()` returns them decoded to float32. */
  readonly datatype: VectorDatatype;
  /**
   * Inserts or replaces the vectors of `slots`; `vectors` holds slots.length · dimension
   * values, row by row. Cosine vectors are normalised inside. Searchable when the promise
   * resolves; linked into the graph in the background.
   */
  upsert(slots: Uint32Array, vectors: Float32Array): Promise<void>;
  /** Removes the vectors of `slots` (tombstones); unknown slots are ignored. */
  delete(slots: Uint32Array): Promise<void>;
  /** The k nearest live, allowed vectors to `query`. */
  search(query: Float32Array, k: number, options?: SearchOptions): Promise<SearchResult>;
  /** `queries` holds count · dimension values; one result per query, in order. */
  searchBatch(queries: Float32Array, k: number, options?: SearchOptions): Promise<SearchResult[]>;
  /**
   * The wire score of each of `slots` against `query`, in the order given, computed by the
   * routine `search` uses (so a point scores the same float either way); NaN for a slot that
   * holds no live vector.
   */
  scoreSlots(query: Float32Array, slots: Uint32Array): Promise<Float32Array>;
  /**
   * Maximal marginal relevance among `slots` (docs/api.md §5): positions into `slots` in pick
   * order, at most `limit`; `lambda` = 1 - diversity, in 0..1. Slots without a live vector are
   * never picked; at most 16 384 slots.
   */
  mmrSelect(query: Float32Array, slots: Uint32Array, lambda: number, limit: number): Promise<Uint32Array>;
  /** The stored (for Cosine, normalised) vectors of `slots`, row by row; NaN-filled rows for
   * slots that hold no vector. */
  vectors(slots: Uint32Array): Float32Array;
  /** Whether `slot` holds a live vector. */
  has(slot: number): boolean;
  stats(): VectorIndexStats;
  /** Live vectors (`stats().count`) from one atomic read: for per-search checks. */
  liveCount(): number;
  /** Heap, mapped and mapped-in-RAM bytes; O(pages) of the mapped files, so for monitoring only. */
  memoryReport(): KernelMemoryReport;
  /**
   * Switches quantization on (or to another kind) or off (null). Codes are (re)built from the
   * stored vectors in the background; searches stay correct meanwhile. Same kind again: no-op.
   */
  setQuantization(quantization: KernelQuantization | null): void;
  quantizationStatus(): QuantizationStatus;
  /** Resolves once no quantization codes are being built. */
  waitQuantized(): Promise<void>;
  /** Resolves once every upserted vector is linked into the graph. */
  waitIndexed(): Promise<void>;
  /**
   * Writes arena + graph to `path` atomically (temp file, fsync, rename, fsync directory),
   * tagged with the last operation id it covers and `binding` — who it belongs to (the
   * database id and collection incarnation, docs/durability.md; at most 256 bytes).
   */
  save(path: string, lastOperationId: number, binding?: string): Promise<void>;
  /** Releases native memory; the instance must not be used afterwards. */
  close(): void;
}

export interface LoadedVectorIndex {
  index: VectorIndex;
  lastOperationId: number;
  /** The binding it was saved with; "" for a file of the old, unbound format. */
  binding: string;
}
