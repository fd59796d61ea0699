// The vector index over the addon: the TypeScript twin of crates/quiver-node/src/vector_index.rs
// (the NativeVectorIndex class), tested in vector-index.test.ts and vector-index-graph.test.ts.
// It implements the engine's contract (vector-index-contract.ts, re-exported here) and adds only
// what that contract needs: argument checks that a u32 conversion would silently wrap, and
// splitting batch results into per-query views. All work stays in Rust.
import { native } from './addon.js';
import { Completions } from './completions.js';
import { NativeError } from './errors.js';
import { InlineCost, InlineGate } from './inline-search.js';
import type { NativeSearchOptions, NativeVectorIndexHandle } from './vector-index-binding.js';
import type {
  Distance,
  KernelMemoryReport,
  LoadedVectorIndex,
  KernelQuantization,
  QuantizationStatus,
  SearchOptions,
  SearchResult,
  VectorDatatype,
  VectorIndex,
  VectorIndexOptions,
  VectorIndexStats,
} from './vector-index-contract.js';

export type {
  KernelMemoryReport,
  KernelBinaryEncoding,
  KernelQuantization,
  KernelQueryEncoding,
  QuantizationStatus,
  Distance,
  LoadedVectorIndex,
  SearchOptions,
  SearchResult,
  VectorDatatype,
  VectorIndex,
  VectorIndexOptions,
  VectorIndexStats,
} from './vector-index-contract.js';

const MAX_U32 = 0xffff_ffff;

/** One completion channel per loaded copy of this module (one per JS environment). */
const completions = new Completions((deliver) => new native.CompletionChannel(deliver));

/** Whether a search may run on the JS thread (inline-search.ts); one per JS thread. */
const inlineGate = new InlineGate();

/** Errors raised here carry a code like the kernel's, so callers cannot tell which side refused. */
function invalidArgument(detail: string): NativeError {
  return new NativeError('INVALID_ARGUMENT', detail);
}

function checkCount(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 0 || value > MAX_U32) {
    throw invalidArgument(`${name} must be an integer in 0..${MAX_U32}, got ${value}`);
  }
}

function checkSearchOptions(k: number, options: SearchOptions | undefined): void {
  checkCount('k', k);
  if (options?.ef !== undefined) checkCount('ef', options.ef);
}

/** The positional quantization arguments of the native search calls. */
/** A search's options in the addon's argument order (vector-index-binding.ts). */
function searchArguments(options: SearchOptions | undefined): NativeSearchOptions {
  const quantization = options?.quantization;
  // The kernel collects at most 1,000,000 candidates, so a larger factor changes nothing; capped
  // here because the kernel refuses one above that.
  const oversampling = quantization?.oversampling === undefined ? null : Math.min(quantization.oversampling, 1_000_000);
  return [options?.ef ?? null, options?.exact ?? null, options?.allowed ?? null, quantization?.ignore ?? null, quantization?.rescore ?? null, oversampling];
}

/** Views over one result buffer (see crates/quiver-node/src/result_bytes.rs); no copy. */
function decodeSingle(buffer: ArrayBuffer): SearchResult {
  const count = buffer.byteLength / 8;
  return { slots: new Uint32Array(buffer, 0, count), scores: new Float32Array(buffer, count * 4, count) };
}

function decodeBatch(buffer: ArrayBuffer, queryCount: number): SearchResult[] {
  const counts = new Uint32Array(buffer, 0, queryCount);
  const total = (buffer.byteLength - queryCount * 4) / 8;
  const slots = new Uint32Array(buffer, queryCount * 4, total);
  const scores = new Float32Array(buffer, queryCount * 4 + total * 4, total);
  const results: SearchResult[] = [];
  let start = 0;
  for (const count of counts) {
    results.push({ slots: slots.subarray(start, start + count), scores: scores.subarray(start, start + count) });
    start += count;
  }
  return results;
}

export class WrappedVectorIndex implements VectorIndex {
  private readonly inlineCost = new InlineCost();

  constructor(
    private readonly handle: NativeVectorIndexHandle,
    private readonly completions: Completions,
    readonly dimension: number,
    readonly distance: Distance,
  ) {}

  get datatype(): VectorDatatype {
    return this.handle.datatype as VectorDatatype;
  }

  // `async` so that argument and INDEX_CLOSED errors reject the promise instead of throwing.
  async upsert(slots: Uint32Array, vectors: Float32Array): Promise<void> {
    return this.handle.upsert(slots, vectors);
  }

  async delete(slots: Uint32Array): Promise<void> {
    return this.handle.delete(slots);
  }

  // Not `async`: an inline search then costs one settled promise, not an async function's
  // machinery as well (bench/README.md, "The inline hand-off"). Argument and INDEX_CLOSED errors
  // still reject the promise instead of throwing.
  search(query: Float32Array, k: number, options?: SearchOptions): Promise<SearchResult> {
    try {
      checkSearchOptions(k, options);
      // An exact search scans every point: always on the pool. A filtered one is bounded like an
      // unfiltered one (the kernel's planner scans at most the full-scan threshold's points, else
      // walks the graph), and the index's running cost average sends it to the pool if not.
      if (options?.exact !== true && this.inlineCost.cheap() && inlineGate.admit(this.completions.size)) {
        return Promise.resolve(this.searchInline(query, k, options));
      }
    } catch (error) {
      return Promise.reject(error);
    }
    return this.searchOnPool(query, k, options);
  }

  private searchInline(query: Float32Array, k: number, options: SearchOptions | undefined): SearchResult {
    const started = performance.now();
    try {
      return decodeSingle(this.handle.searchSync(query, k, ...searchArguments(options)));
    } finally {
      const elapsedMs = performance.now() - started;
      inlineGate.spend(elapsedMs);
      this.inlineCost.record(elapsedMs);
    }
  }

  private async searchOnPool(query: Float32Array, k: number, options: SearchOptions | undefined): Promise<SearchResult> {
    const buffer = await this.completions.submit((ticket) =>
      this.handle.search(ticket, query, k, ...searchArguments(options)),
    );
    return decodeSingle(buffer);
  }

  /**
   * Not part of the VectorIndex contract: the search run on the calling (JS) thread. The
   * server must use `search` (so searches run on kernel threads while the JS thread serves
   * HTTP); this exists for bench:ann, to compare like with like against synchronous peers.
   */
  searchOnThisThread(query: Float32Array, k: number, options?: SearchOptions): SearchResult {
    checkSearchOptions(k, options);
    return decodeSingle(
      this.handle.searchSync(query, k, ...searchArguments(options)),
    );
  }

  async searchBatch(queries: Float32Array, k: number, options?: SearchOptions): Promise<SearchResult[]> {
    checkSearchOptions(k, options);
    const buffer = await this.completions.submit((ticket) =>
      this.handle.searchBatch(ticket, queries, k, ...searchArguments(options)),
    );
    // The kernel refuses a batch whose length is not a whole number of queries.
    return decodeBatch(buffer, queries.length / this.dimension);
  }

  async scoreSlots(query: Float32Array, slots: Uint32Array): Promise<Float32Array> {
    const buffer = await this.completions.submit((ticket) => this.handle.scoreSlots(ticket, query, slots));
    return new Float32Array(buffer);
  }

  async mmrSelect(query: Float32Array, slots: Uint32Array, lambda: number, limit: number): Promise<Uint32Array> {
    checkCount('limit', limit);
    if (!(lambda >= 0 && lambda <= 1)) throw invalidArgument(`lambda must be between 0 and 1, got ${lambda}`);
    const buffer = await this.completions.submit((ticket) => this.handle.mmrSelect(ticket, query, slots, lambda, limit));
    return new Uint32Array(buffer);
  }

  vectors(slots: Uint32Array): Float32Array {
    return this.handle.vectors(slots);
  }

  has(slot: number): boolean {
    if (!Number.isInteger(slot) || slot < 0 || slot >= MAX_U32) return false;
    return this.handle.has(slot);
  }

  liveCount(): number {
    return this.handle.liveCount();
  }

  stats(): VectorIndexStats {
    const stats = this.handle.stats();
    return { count: stats.count, indexedCount: stats.indexedCount, deletedCount: stats.deletedCount, memoryBytes: stats.memoryBytes, mappedBytes: stats.mappedBytes };
  }

  memoryReport(): KernelMemoryReport {
    const report = this.handle.memoryReport();
    return { residentBytes: report.residentBytes, mappedBytes: report.mappedBytes, mappedResidentBytes: report.mappedResidentBytes };
  }

  setQuantization(quantization: KernelQuantization | null): void {
    this.handle.setQuantization(
      quantization?.kind ?? null,
      quantization?.kind === 'int8' ? (quantization.quantile ?? null) : null,
      quantization?.kind === 'binary' ? (quantization.encoding ?? null) : null,
      quantization?.kind === 'binary' ? (quantization.queryEncoding ?? null) : null,
      quantization?.mapped ?? null,
    );
  }

  quantizationStatus(): QuantizationStatus {
    const status = this.handle.quantizationStatus();
    return { enabled: status.enabled, active: status.active, building: status.building, memoryBytes: status.memoryBytes, mappedBytes: status.mappedBytes };
  }

  async waitQuantized(): Promise<void> {
    return this.handle.waitQuantized();
  }

  async waitIndexed(): Promise<void> {
    return this.handle.waitIndexed();
  }

  async save(path: string, lastOperationId: number, binding = ''): Promise<void> {
    return this.handle.save(path, lastOperationId, binding);
  }

  close(): void {
    this.handle.close();
  }
}

function checkOption(name: keyof VectorIndexOptions, value: number, minimum: number): void {
  if (!Number.isInteger(value) || value < minimum || value > MAX_U32) {
    throw invalidArgument(`${name} must be an integer >= ${minimum}, got ${value}`);
  }
}

/** A new, empty index. Throws INVALID_ARGUMENT for options the kernel cannot honour. */
export function createVectorIndex(options: VectorIndexOptions): VectorIndex {
  checkOption('dimension', options.dimension, 1);
  checkOption('m', options.m, 0);
  checkOption('efConstruct', options.efConstruct, 0);
  checkOption('fullScanThreshold', options.fullScanThreshold, 0);
  checkOption('indexingThreads', options.indexingThreads, 0);
  const handle = native.NativeVectorIndex.create(
    options.dimension,
    options.distance,
    options.m,
    options.efConstruct,
    options.fullScanThreshold,
    options.indexingThreads,
    completions.channel,
    options.onDiskDirectory ?? null,
    options.datatype ?? null,
  );
  return new WrappedVectorIndex(handle, completions, options.dimension, options.distance);
}

/**
 * Loads a checkpoint written by `VectorIndex.save`. Rejects with CHECKPOINT_MISSING when there
 * is no file, CHECKPOINT_CORRUPT for a damaged or truncated one and CHECKPOINT_VERSION for a
 * format this build does not read; such a file is never partly loaded.
 */
export async function loadVectorIndex(path: string, onDiskDirectory?: string): Promise<LoadedVectorIndex> {
  const handle = await native.NativeVectorIndex.load(path, completions.channel, onDiskDirectory ?? null);
  const index = new WrappedVectorIndex(handle, completions, handle.dimension, handle.distance as Distance);
  return { index, lastOperationId: handle.loadedOperationId, binding: handle.loadedBinding };
}
