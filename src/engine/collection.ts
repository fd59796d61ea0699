// One collection, as a thin facade over its parts: the point table (id <-> slot), one kernel
// VectorIndex per vector name, the write path (every write in order through a per-collection
// queue as ONE atomic batch of its store, written before it is acknowledged), the record view
// (reads), and the checkpointer. The kernel is derived state: checkpoints plus the log rebuild
// it (collection-recovery.ts).
import { mkdir, rm } from 'node:fs/promises';
import type { Logger } from 'pino';
import { errors } from '../errors.js';
import { createVectorIndex } from '../native/index.js';
import { multivectorMapPath } from './multi-vector-checkpoint.js';
import { isMultiVectorIndex, MultiVectorIndex } from './multi-vector-index.js';
import { quantizationFor } from './quantization.js';
import type { SparseIndex, SparseSearchOptions, SparseVector } from '../native/sparse-index-contract.js';
import type { SearchOptions, SearchResult, VectorIndex, VectorIndexOptions } from '../native/vector-index.js';
import type { Distance, VectorDatatype } from '../native/vector-index-contract.js';
import type { PointId } from '../points/ids.js';
import type { Payload, PayloadSelection, VectorSelection } from '../points/selectors.js';
import type { VectorLayout } from '../points/vectors.js';
import { CollectionStore } from '../storage/collection-store.js';
import type { Database } from '../storage/database.js';
import { Checkpointer, checkpointPath } from './checkpointer.js';
import { describeCollectionConfig, effectiveHnswConfig, type CollectionConfig } from './collection-config.js';
import { withoutFilterHooks, type CollectionHooks } from './collection-hooks.js';
import { InFlightVectors } from './in-flight-vectors.js';
import { fillFromStore } from './index-rebuild.js';
import type { PointSelector } from './point-selection.js';
import { writePointHandoff } from './point-handoff.js';
import { PointTable, type HandoffRun, type PointEntry } from './point-table.js';
import { RecordView, vectorIndexNamed, type PointRecord } from './record-view.js';
import { SparseVectors, sparseCheckpointPath } from './sparse-vectors.js';
import { StrictMode } from './strict-mode.js';
import { WritePath, type FailedOperationName, type PayloadChange, type PreparedPoint, type UpdateMode, type VectorUpdate, type WriteResult } from './write-path.js';
import type { DraftOperation } from './write-draft.js';
import { WriteQueue } from './write-queue.js';

export { checkpointPath } from './checkpointer.js';
export type { PointEntry } from './point-table.js';
export type { PointRecord } from './record-view.js';
export type { PreparedPoint, UpdateMode, VectorUpdate, WriteResult } from './write-path.js';
export type { DraftOperation } from './write-draft.js';

/**
 * Builds the hooks of one collection (collection-hooks.ts). The registry is given one at
 * construction and calls it for every collection it builds, before the collection is used.
 */
export type CollectionHooksFactory = (collection: Collection) => CollectionHooks;

export interface CollectionSettings {
  fsync: boolean;
  checkpointOperations: number;
  maxPayloadBytes: number;
  /** Client writes queued or running before new ones get a 503 (write-queue.ts); default unbounded. */
  maxQueuedWrites?: number;
  /** Rows a multivector may have (limits.max_multivector_rows, docs/api.md §20). */
  maxMultivectorRows?: number;
}

export interface CollectionOptions {
  number: number;
  name: string;
  config: CollectionConfig;
  database: Database;
  /** This collection's own directory (kernel checkpoints). */
  directory: string;
  /**
   * Written into every checkpoint and required of every checkpoint loaded: the database id and
   * this collection's incarnation id (docs/durability.md). "" only in tests without a registry.
   */
  checkpointBinding?: string;
  settings: CollectionSettings;
  logger: Logger;
  /** Default: no filter module (a filter selector is a 400, payload_schema is empty). */
  hooks?: CollectionHooksFactory;
}

/** Collection.statistics(): the figures of docs/api.md §13's metrics. */
export interface CollectionStatistics {
  points: number;
  updateQueueLength: number;
  /** Sparse vectors have no graph: all their live vectors count as indexed. */
  vectors: { name: string; kind: 'dense' | 'sparse'; count: number; indexed: number; graphInUse: boolean; memoryBytes: number }[];
  /** Kernel memory split as `GET C` shows it (docs/api.md §18). */
  kernelMemory: { resident_bytes: number; mapped_bytes: number; mapped_resident_bytes: number };
  lastCheckpoint: { atMs: number; durationMs: number } | undefined;
  checkpointsSaved: number;
  kernelFault: boolean;
}

export interface NearestResult {
  /** Live points, best first, with their scores (wire convention, see vector-index.ts). */
  points: PointEntry[];
  scores: number[];
}

/**
 * The kernel options for one vector of `config`. full_scan_threshold is in KB (Qdrant's unit).
 * `directory` (the collection's) is where an `on_disk` vector maps its working files
 * (docs/architecture.md §15); without it the vectors stay on the heap.
 */
export function vectorIndexOptions(config: CollectionConfig, vectorName: string, directory?: string): VectorIndexOptions {
  const vector = config.vectors[vectorName]!;
  const hnsw = effectiveHnswConfig(config, vectorName);
  const bytesPerVector = vector.size * 4;
  return {
    dimension: vector.size,
    distance: vector.distance,
    m: hnsw.m,
    efConstruct: hnsw.ef_construct,
    fullScanThreshold: Math.max(1, Math.floor((hnsw.full_scan_threshold * 1024) / bytesPerVector)),
    indexingThreads: hnsw.max_indexing_threads,
    ...(vector.on_disk === true && directory !== undefined ? { onDiskDirectory: directory } : {}),
    ...(datatypeOf(vector) !== 'float32' ? { datatype: datatypeOf(vector) } : {}),
  };
}

/** A dense vector's stored datatype (docs/api.md §21); absent means float32. */
export function datatypeOf(vector: Record<string, unknown>): VectorDatatype {
  const datatype = vector.datatype;
  return datatype === 'float16' || datatype === 'uint8' ? datatype : 'float32';
}

/** Whether `vectorName` is a multivector (docs/api.md §20): its points hold matrices scored by MaxSim. */
export function isMultivector(config: CollectionConfig, vectorName: string): boolean {
  return config.vectors[vectorName]?.multivector_config != null;
}

/** A new, empty index for one vector of `config`: a MultiVectorIndex for a multivector, else the kernel's. */
export function createIndexFor(config: CollectionConfig, vectorName: string, directory?: string): VectorIndex {
  const options = vectorIndexOptions(config, vectorName, directory);
  return isMultivector(config, vectorName) ? new MultiVectorIndex(options) : createVectorIndex(options);
}

/**
 * Whether searches of `vectorName` walk the graph: Qdrant's optimizers_config.indexing_threshold
 * (KB of vectors; 0 = never) decides (docs/api.md §4.3). Below it, or at 0, every search is an
 * exact scan and the vector counts as not indexed. The kernel links vectors in the background
 * whatever this says (it has no switch for it); the graph is simply not used.
 */
export function graphInUse(config: CollectionConfig, vectorName: string, liveVectors: number): boolean {
  const threshold = config.optimizer_config.indexing_threshold;
  const thresholdKb = typeof threshold === 'number' ? threshold : 10_000;
  if (thresholdKb === 0) return false;
  const size = config.vectors[vectorName]?.size ?? 0;
  return liveVectors * size * 4 > thresholdKb * 1024;
}

function concatenate(rows: Float32Array[], dimension: number): Float32Array {
  const joined = new Float32Array(rows.length * dimension);
  rows.forEach((row, position) => joined.set(row, position * dimension));
  return joined;
}

export class Collection {
  readonly number: number;
  readonly name: string;
  readonly directory: string;
  /** See CollectionOptions.checkpointBinding. */
  readonly checkpointBinding: string;
  /** Every read and write of this collection's stored data goes through here. */
  readonly store: CollectionStore;
  readonly indexes = new Map<string, VectorIndex>();
  /** The sparse vectors: one kernel sparse index per sparse name (sparse-vectors.ts). */
  readonly sparse: SparseVectors;
  private currentConfig: CollectionConfig;
  private readonly logger: Logger;
  private readonly queue: WriteQueue;
  private readonly table: PointTable;
  private readonly checkpointer: Checkpointer;
  private readonly records: RecordView;
  private readonly writes: WritePath;
  private deleting = false;
  /** See `stateVersion`. */
  private stateChanges = 0;
  /** What the modules above the engine add to this collection (filters, payload indexes). */
  readonly hooks: CollectionHooks;
  /** The strict-mode checks (docs/api.md §4.5); they read the current configuration. */
  readonly strictMode = new StrictMode(() => this.currentConfig.strict_mode_config);

  private readonly maxMultivectorRows: number;

  constructor(options: CollectionOptions) {
    this.number = options.number;
    this.name = options.name;
    this.currentConfig = options.config;
    this.directory = options.directory;
    this.checkpointBinding = options.checkpointBinding ?? '';
    this.logger = options.logger;
    this.maxMultivectorRows = options.settings.maxMultivectorRows ?? defaultMaxMultivectorRows;
    this.queue = new WriteQueue(options.settings.maxQueuedWrites);
    // on_disk_payload is read once here: a PATCH of it takes effect at the next load (docs/api.md §19).
    this.table = new PointTable({ onDiskPayload: options.config.on_disk_payload, directory: this.directory });
    this.store = new CollectionStore(options.database, options.number, { fsync: options.settings.fsync });
    const inFlight = new InFlightVectors();
    this.sparse = new SparseVectors(() => this.currentConfig);
    this.checkpointer = new Checkpointer({
      name: this.name,
      directory: this.directory,
      binding: this.checkpointBinding,
      indexes: this.indexes,
      sparse: this.sparse,
      store: this.store,
      queue: this.queue,
      checkpointOperations: options.settings.checkpointOperations,
      isDeleting: () => this.deleting,
      logger: this.logger,
    });
    this.records = new RecordView({ table: this.table, indexes: this.indexes, sparse: this.sparse, inFlight, config: () => this.currentConfig });
    this.writes = new WritePath({
      name: this.name,
      store: this.store,
      queue: this.queue,
      table: this.table,
      indexes: this.indexes,
      inFlight,
      sparse: this.sparse,
      checkpointer: this.checkpointer,
      maxPayloadBytes: options.settings.maxPayloadBytes,
      assertOperable: () => this.assertOperable(),
      selectByFilter: (filter, field) => this.hooks.selectByFilter(filter, field),
      matchesPoint: (filter, point, field) =>
        this.hooks.matchesPoint ? this.hooks.matchesPoint(filter, point, field) : withoutFilterHooks.matchesPoint(filter, point, field),
      payloadChanged: (change) => this.notifyPayload(change),
      stateChanged: () => this.noteStateChange(),
      logger: this.logger,
    });
    // Last: the factory may read the collection it is given.
    this.hooks = options.hooks ? options.hooks(this) : withoutFilterHooks;
  }

  // ---- configuration -------------------------------------------------------------------

  get config(): CollectionConfig {
    return this.currentConfig;
  }

  /**
   * A number that changes whenever what a read could see changes: points, payloads, vectors,
   * vector names, configuration, indexes swapped in. Equal numbers mean equal answers, which is
   * what a cache of filter answers keys on (src/filter/filter-answers.ts).
   */
  get stateVersion(): number {
    return this.stateChanges;
  }

  private noteStateChange(): void {
    this.stateChanges += 1;
  }

  /** Replaces the stored configuration (PATCH); the registry persists it. */
  setConfig(config: CollectionConfig): void {
    this.currentConfig = config;
    this.noteStateChange();
    this.applyQuantization();
  }

  /**
   * After a PATCH (docs/api.md §4.2): each vector whose `m` or `ef_construct` changed gets a new
   * graph, as Qdrant's optimizer rebuilds one. The PATCH answers at once; the rebuild runs in the
   * write queue, so writes wait for it while searches go on with the old index.
   */
  rebuildGraphsChangedBy(previous: CollectionConfig): void {
    for (const name of this.indexes.keys()) {
      const before = effectiveHnswConfig(previous, name);
      const after = effectiveHnswConfig(this.currentConfig, name);
      if (before.m === after.m && before.ef_construct === after.ef_construct) continue;
      this.queue
        .run(() => this.replaceGraph(name))
        .catch((error: unknown) => this.logger.error({ err: error, collection: this.name, vector: name }, 'could not rebuild the graph for the new hnsw_config; the old one goes on serving'));
    }
  }

  /**
   * Builds vector `name`'s index again from its stored vectors with the current parameters and
   * swaps it in; it links in the background (the collection is yellow, then green). The old
   * checkpoint is removed first, so a crash before the next checkpoint rebuilds with the new
   * parameters too; the old index is closed once no read uses it.
   */
  private async replaceGraph(name: string): Promise<void> {
    const old = this.indexes.get(name);
    // Deleted, or the vector removed, while this waited in the queue.
    if (this.deleting || old === undefined) return;
    const started = performance.now();
    const fresh = await fillFromStore(createIndexFor(this.currentConfig, name, this.directory), this.store, name);
    fresh.setQuantization(quantizationFor(this.currentConfig, name));
    try {
      await rm(checkpointPath(this.directory, name), { force: true });
      await rm(multivectorMapPath(checkpointPath(this.directory, name)), { force: true });
    } catch (error) {
      fresh.close();
      throw error;
    }
    this.indexes.set(name, fresh);
    this.noteStateChange();
    // Releasing native memory under a running search would fail it; let searches finish first.
    await this.table.waitForReads();
    old.close();
    this.logger.info({ collection: this.name, vector: name, vectors: fresh.stats().count, elapsed_ms: Math.round(performance.now() - started) }, 'graph rebuilt for the new hnsw_config; linking in the background');
  }

  /**
   * Hands each dense index the quantization that applies to it (docs/api.md §15). Codes are not
   * in the checkpoint: they are rebuilt from the stored vectors in the background after a load,
   * and on a switch; the kernel ignores a setting it already has.
   */
  private applyQuantization(): void {
    for (const [name, index] of this.indexes) index.setQuantization(quantizationFor(this.currentConfig, name));
  }

  get vectorLayout(): VectorLayout {
    return vectorLayoutOf(this.currentConfig, this.maxMultivectorRows);
  }

  get lastOperationId(): number {
    return this.checkpointer.lastOperationId;
  }

  get checkpointedOperationId(): number {
    return this.checkpointer.checkpointedOperationId;
  }

  get pointCount(): number {
    return this.table.size;
  }

  /** 412 once the collection is marked for deletion. */
  assertOperable(): void {
    if (this.deleting) throw errors.collectionMarkedForDeletion(this.name);
  }

  markForDeletion(): void {
    this.deleting = true;
  }

  get isMarkedForDeletion(): boolean {
    return this.deleting;
  }

  // ---- creation and recovery hooks (collection-recovery.ts) ------------------------------

  /** Creates the directory and an empty index per vector name (new collection). */
  async initializeEmpty(): Promise<void> {
    await mkdir(this.directory, { recursive: true });
    for (const name of Object.keys(this.currentConfig.vectors)) {
      this.indexes.set(name, createIndexFor(this.currentConfig, name, this.directory));
    }
    this.applyQuantization();
    this.sparse.initializeEmpty();
  }

  /** Adds a point read from storage at start-up: the store's id key bytes and point record, as read. */
  restoreStoredPoint(idBytes: Buffer, record: Buffer): void {
    this.table.restoreStoredRecord(idBytes, record);
  }

  /** Room for `count` points about to be restored (the hand-off file says how many). */
  reservePoints(count: number): void {
    this.table.reserve(count);
  }

  /** A run of slots from a checked block of the clean stop's hand-off file (point-handoff.ts). */
  restorePointRun(block: Buffer, run: HandoffRun): void {
    this.table.restoreRun(block, run);
  }

  /** Finishes start-up: free slots are the holes below the highest used slot. */
  restoreState(
    lastOperationId: number,
    checkpointedOperationId: number,
    indexes: Map<string, VectorIndex>,
    /** For indexes loaded from a checkpoint: the linked count it held (rebuilt ones have none). */
    checkpointIndexedCounts: Map<string, number> = new Map(),
    sparseIndexes: ReadonlyMap<string, SparseIndex> = new Map(),
  ): void {
    for (const [name, index] of indexes) this.indexes.set(name, index);
    this.noteStateChange();
    this.applyQuantization();
    this.sparse.restore(sparseIndexes);
    this.checkpointer.restore(lastOperationId, checkpointedOperationId, checkpointIndexedCounts);
    this.table.finishRestore();
  }

  // ---- reads ------------------------------------------------------------------------------

  /** Every live point, in no particular order. */
  livePoints(): IterableIterator<PointEntry> {
    return this.table.values();
  }

  /** Every live slot, in order (cheaper than livePoints when only slots are read). */
  liveSlots(): IterableIterator<number> {
    return this.table.liveSlots();
  }

  /** Every live point id, in slot order (cheaper than livePoints when only ids are read). */
  liveIds(): IterableIterator<PointId> {
    return this.table.liveIds();
  }

  pointBySlot(slot: number): PointEntry | undefined {
    return this.table.bySlot(slot);
  }

  /** pointBySlot of each slot, the payloads' bytes read together (PointTable.viewsReadTogether). */
  pointsBySlots(slots: readonly number[]): (PointEntry | undefined)[] {
    return this.table.viewsReadTogether(slots);
  }

  /** Whether a view is still the point's current state (no write or delete since it was made). */
  isCurrent(entry: PointEntry): boolean {
    return this.table.isCurrent(entry);
  }

  /** What the point table holds outside the JS heap (docs/architecture.md §16). */
  get pointTableFootprint(): PointTable['footprint'] {
    return this.table.footprint;
  }

  pointById(id: PointId): PointEntry | undefined {
    return this.table.byId(id);
  }

  /** The slot of a live point, or -1 (no view made: for tests over many ids). */
  slotOfId(id: PointId): number {
    return this.table.slotOfId(id);
  }

  /** One past the highest slot ever used: the size a slot bitset needs. */
  get slotCapacity(): number {
    return this.table.slotCapacity;
  }

  /** Passes a committed payload change to the hooks; their failure must not fail the write. */
  private notifyPayload(change: PayloadChange): void {
    try {
      this.hooks.payloadChanged(change);
    } catch (error) {
      this.logger.error({ err: error, collection: this.name }, 'payload listener failed');
    }
  }

  /** The index of `vectorName`, or 400 naming the unknown name. */
  vectorIndex(vectorName: string, field = 'vector'): VectorIndex {
    return vectorIndexNamed(this.indexes, this.currentConfig, vectorName, field);
  }

  /**
   * The k nearest live points to `query` under vector `vectorName` ("" = the unnamed vector).
   * `allowed` is a slot bitset (see vector-index.ts); `exact` forces a brute-force scan.
   */
  async nearest(vectorName: string, query: Float32Array, k: number, options: SearchOptions = {}): Promise<NearestResult> {
    this.assertOperable();
    const index = this.vectorIndex(vectorName);
    // A multivector query is a matrix: rows of the dimension back to back (docs/api.md §20).
    const fits = isMultiVectorIndex(index) ? query.length > 0 && query.length % index.dimension === 0 : query.length === index.dimension;
    if (!fits) throw errors.dimensionMismatch('vector', index.dimension, query.length);
    const searchOptions = this.withThreshold(vectorName, index, options);
    this.table.beginRead();
    try {
      return this.livePointsOf(await index.search(query, k, searchOptions));
    } finally {
      this.table.endRead();
    }
  }

  /** Several queries under one vector name, in one kernel call. */
  async nearestBatch(vectorName: string, queries: Float32Array[], k: number, options: SearchOptions = {}): Promise<NearestResult[]> {
    this.assertOperable();
    const index = this.vectorIndex(vectorName);
    if (isMultiVectorIndex(index)) return Promise.all(queries.map((query) => this.nearest(vectorName, query, k, options)));
    for (const query of queries) {
      if (query.length !== index.dimension) throw errors.dimensionMismatch('vector', index.dimension, query.length);
    }
    if (queries.length === 0) return [];
    const searchOptions = this.withThreshold(vectorName, index, options);
    return this.table.reading(async () => {
      const found = await index.searchBatch(concatenate(queries, index.dimension), k, searchOptions);
      return found.map((result) => this.livePointsOf(result));
    });
  }

  /** `options`, made exact while the indexing threshold keeps the graph out of use. */
  private withThreshold(vectorName: string, index: VectorIndex, options: SearchOptions): SearchOptions {
    // A multivector's size is that of its rows (docs/api.md §20).
    const vectors = isMultiVectorIndex(index) ? index.liveRowCount() : index.liveCount();
    if (options.exact === true || graphInUse(this.currentConfig, vectorName, vectors)) return options;
    return { ...options, exact: true };
  }

  /**
   * The k best live points for a sparse `query` under sparse vector `vectorName` (dot product
   * over shared indices; the caller applies any IDF weights to the query). `allowed` as above.
   */
  async nearestSparse(vectorName: string, query: SparseVector, k: number, options: SparseSearchOptions = {}): Promise<NearestResult> {
    this.assertOperable();
    const index = this.sparse.index(vectorName);
    return this.table.reading(async () => this.livePointsOf(await index.search(query, k, options)));
  }

  /** The stored sparse vector of a point, or undefined when it has none. */
  storedSparseVector(entry: PointEntry, vectorName: string): SparseVector | undefined {
    return this.sparse.stored(entry.slot, vectorName);
  }

  /** A kernel result as points; a point deleted while the search ran is left out, never misreported. */
  private livePointsOf(found: SearchResult): NearestResult {
    const points: PointEntry[] = [];
    const scores: number[] = [];
    for (let position = 0; position < found.slots.length; position += 1) {
      const entry = this.table.bySlot(found.slots[position]!);
      if (entry === undefined) continue;
      points.push(entry);
      scores.push(found.scores[position]!);
    }
    return { points, scores };
  }

  /** The stored (Cosine: normalised) vector of a point, or undefined when it has none. */
  storedVector(entry: PointEntry, vectorName: string): Float32Array | undefined {
    return this.records.storedVector(entry, vectorName);
  }

  /**
   * Whether a point holds the named vector ("" is the unnamed one). The one question the
   * `has_vector` filter condition asks (docs/api.md §6); other vector kinds answer it here too.
   */
  hasVector(entry: PointEntry, vectorName: string): boolean {
    if (this.sparse.isSparse(vectorName)) return this.sparse.has(entry.slot, vectorName);
    return this.records.hasVector(entry, vectorName);
  }

  /** Checks `with_vector` names against the collection (400 for an unknown one). */
  checkVectorSelection(selection: VectorSelection, field = 'with_vector'): void {
    this.records.checkVectorSelection(selection, field);
  }

  /** Records for `entries`, in order, with the payload and vectors the selections ask for. */
  toRecords(entries: readonly PointEntry[], payload: PayloadSelection, vector: VectorSelection): PointRecord[] {
    return this.records.toRecords(entries, payload, vector);
  }

  /** Points by id, in request order; unknown ids left out. */
  retrieve(ids: readonly PointId[], payload: PayloadSelection, vector: VectorSelection): PointRecord[] {
    this.assertOperable();
    return this.records.retrieve(ids, payload, vector);
  }

  /** CollectionInfo (docs/api.md §4.3). */
  info(): Record<string, unknown> {
    let indexedVectors = 0;
    let yellow = false;
    for (const [name, index] of this.indexes) {
      const stats = index.stats();
      // A vector whose graph is not in use (indexing threshold) is searched exactly: not indexed.
      if (!graphInUse(this.currentConfig, name, stats.count)) continue;
      indexedVectors += stats.indexedCount;
      if (stats.indexedCount < stats.count) yellow = true;
      // Quantization codes being built in the background (docs/api.md §15): searches use floats meanwhile.
      if (index.quantizationStatus().building) yellow = true;
    }
    const kernelFault = this.checkpointer.kernelFault;
    return {
      status: kernelFault ? 'red' : yellow ? 'yellow' : 'green',
      optimizer_status: kernelFault ? { error: kernelFault.message } : 'ok',
      // Nothing QuiverDB checks yields a warning yet; Qdrant lists configuration problems here.
      warnings: [],
      indexed_vectors_count: indexedVectors,
      points_count: this.table.size,
      segments_count: 1,
      config: describeCollectionConfig(this.currentConfig),
      payload_schema: this.hooks.payloadSchema(),
      update_queue: { length: this.queue.length },
      kernel_memory: this.kernelMemory(),
    };
  }

  /**
   * QuiverDB's addition to CollectionInfo (docs/api.md §18): the kernel's heap bytes, the bytes
   * of `on_disk` vector files it maps, and how much of those is in RAM now (the part the
   * process's RSS counts). Sums over every dense index; sparse indexes are heap only.
   */
  kernelMemory(): { resident_bytes: number; mapped_bytes: number; mapped_resident_bytes: number } {
    let resident = 0;
    let mapped = 0;
    let mappedResident = 0;
    for (const index of this.indexes.values()) {
      const report = index.memoryReport();
      resident += report.residentBytes;
      mapped += report.mappedBytes;
      mappedResident += report.mappedResidentBytes;
    }
    for (const index of this.sparse.indexes.values()) resident += index.stats().memoryBytes;
    return { resident_bytes: resident, mapped_bytes: mapped, mapped_resident_bytes: mappedResident };
  }

  /** Background index work (docs/api.md §4.6): vectors still to link per name, and a checkpoint being saved. */
  indexingProgress(): { vectors: { name: string; linked: number; total: number; graphInUse: boolean }[]; checkpointing: boolean } {
    const vectors = [...this.indexes].map(([name, index]) => {
      const stats = index.stats();
      return { name, linked: stats.indexedCount, total: stats.count, graphInUse: graphInUse(this.currentConfig, name, stats.count) };
    });
    return { vectors, checkpointing: this.checkpointer.isSaving };
  }

  /**
   * What monitoring reads (docs/api.md §13), computed when asked (a scrape), never on a request's
   * path: per vector name its live and linked counts and kernel memory, the write queue, and the
   * last checkpoint this process saved.
   */
  statistics(): CollectionStatistics {
    const vectors: CollectionStatistics['vectors'] = [];
    for (const [name, index] of this.indexes) {
      const stats = index.stats();
      vectors.push({ name, kind: 'dense', count: stats.count, indexed: stats.indexedCount, graphInUse: graphInUse(this.currentConfig, name, stats.count), memoryBytes: stats.memoryBytes });
    }
    for (const [name, index] of this.sparse.indexes) {
      const stats = index.stats();
      vectors.push({ name, kind: 'sparse', count: stats.count, indexed: stats.count, graphInUse: false, memoryBytes: stats.memoryBytes });
    }
    return {
      points: this.table.size,
      updateQueueLength: this.queue.length,
      vectors,
      lastCheckpoint: this.checkpointer.lastCheckpoint,
      checkpointsSaved: this.checkpointer.checkpointsSaved,
      kernelMemory: this.kernelMemory(),
      kernelFault: this.checkpointer.kernelFault !== undefined,
    };
  }

  // ---- writes (write-path.ts) ----------------------------------------------------------------

  /** Upsert (list or batch form, already checked): each point replaced whole. */
  upsert(requested: PreparedPoint[], mode: UpdateMode, wait: boolean): Promise<WriteResult> {
    this.checkWriteLimits(requested.map((point) => ({ key: point.key, vectors: point.vectors })));
    return this.writes.upsert(requested, mode, wait);
  }

  /** Strict mode's write limits (docs/api.md §4.5) for points about to be written, before anything is. */
  private checkWriteLimits(points: { key: string; vectors: ReadonlyMap<string, Float32Array> }[]): void {
    let vectorBytes = 0;
    // A multivector's bytes are those of its rows (docs/api.md §20).
    for (const index of this.indexes.values()) vectorBytes += (isMultiVectorIndex(index) ? index.rowStats().count : index.stats().count) * index.dimension * 4;
    const added = new Set<string>();
    for (const point of points) {
      if (this.table.byKey(point.key) !== undefined || added.has(point.key)) continue;
      added.add(point.key);
      for (const vector of point.vectors.values()) vectorBytes += vector.length * 4;
    }
    this.strictMode.checkWrite({ batchSize: points.length, pointsAfter: this.table.size + added.size, vectorBytesAfter: vectorBytes });
  }

  /** Deletes the selected points; unknown ids are not an error. */
  deletePoints(selector: PointSelector, wait: boolean): Promise<WriteResult> {
    return this.writes.deletePoints(selector, wait);
  }

  /** Replaces only the named vectors given; every id must exist (404 otherwise). */
  updateVectors(points: VectorUpdate[], wait: boolean): Promise<WriteResult> {
    this.strictMode.checkWrite({ batchSize: points.length, pointsAfter: this.table.size, vectorBytesAfter: 0 });
    return this.writes.updateVectors(points, wait);
  }

  /** Several operations as one atomic write (docs/api.md §10); `labelled` names `operations[i]` in refusals. */
  applyOperations(operations: readonly DraftOperation[], wait: boolean, labelled: boolean): Promise<WriteResult> {
    return this.writes.applyOperations(operations, wait, labelled);
  }

  /** Rewrites the payloads of the selected points with `transform` (see WritePath.updatePayloads). */
  updatePayloads(
    selector: PointSelector,
    transform: (payload: Payload, entry: PointEntry) => Payload,
    options: { wait: boolean; missing: 'skip' | 'not_found' },
  ): Promise<WriteResult> {
    return this.writes.updatePayloads(selector, transform, options);
  }

  /** 400 when a payload's JSON is above config.limits.max_payload_bytes. */
  checkPayloadSize(payloadJson: string, field: string): void {
    this.writes.checkPayloadSize(payloadJson, field);
  }

  /** Extension records (e.g. payload index definitions) as one logged write; `apply` runs once it is durable. */
  writeExtension(
    namespace: string,
    changes: { put?: Record<string, unknown>; delete?: string[] },
    options: { wait: boolean; operation: FailedOperationName; apply?: () => Promise<void> | void },
  ): Promise<WriteResult> {
    return this.writes.writeExtension(namespace, changes, options);
  }

  /** Every extension record of `namespace`: key -> the JSON value written by writeExtension. */
  readExtension(namespace: string): Promise<Map<string, unknown>> {
    return this.store.extension(namespace);
  }

  // ---- vector names (docs/api.md §4.7) --------------------------------------------------------

  /**
   * Adds vector `name` with configuration `next`, in the write queue: `persist` stores the
   * collection record first, then a dense vector gets an empty index (points have none of it
   * until written). A checkpoint file left by an earlier vector of that name is removed first,
   * so it can never be loaded for the new one.
   */
  async addVector(name: string, next: CollectionConfig, kind: 'dense' | 'sparse', persist: (config: CollectionConfig) => Promise<void>): Promise<WriteResult> {
    this.assertOperable();
    return this.queue.run(async () => {
      this.assertOperable();
      await rm(checkpointPath(this.directory, name), { force: true });
      await rm(sparseCheckpointPath(this.directory, name), { force: true });
      await rm(multivectorMapPath(checkpointPath(this.directory, name)), { force: true });
      const index = kind === 'dense' ? createIndexFor(next, name, this.directory) : undefined;
      try {
        await persist(next);
      } catch (error) {
        index?.close();
        throw errors.internal('Collection operation', error);
      }
      this.currentConfig = next;
      if (index) this.indexes.set(name, index);
      else this.sparse.add(name);
      this.noteStateChange();
      this.applyQuantization();
      return { operation_id: this.lastOperationId, status: 'completed' } satisfies WriteResult;
    });
  }

  /**
   * Removes vector `name`: its stored vectors in one logged batch, then the collection record
   * (`persist`), then its index and checkpoint file. A crash between the steps leaves either the
   * vector configured with fewer vectors, or gone with a stray file that a later add removes.
   */
  removeVector(name: string, next: CollectionConfig, persist: (config: CollectionConfig) => Promise<void>): Promise<WriteResult> {
    return this.writes.removeVectorData(name, async () => {
      await persist(next);
      this.currentConfig = next;
      const index = this.indexes.get(name);
      this.indexes.delete(name);
      const sparseIndex = this.sparse.remove(name);
      this.noteStateChange();
      if (index || sparseIndex) {
        // Releasing native memory under a running search would fail it; let searches finish first.
        await this.table.waitForReads();
        index?.close();
        sparseIndex?.close();
      }
      await rm(checkpointPath(this.directory, name), { force: true });
      await rm(sparseCheckpointPath(this.directory, name), { force: true });
      await rm(multivectorMapPath(checkpointPath(this.directory, name)), { force: true });
    });
  }

  // ---- checkpoints (checkpointer.ts) and life cycle -------------------------------------------

  /** Background timer: checkpoint when writes or a finished graph build are not yet saved. */
  checkpointIfDue(): void {
    this.checkpointer.checkpointIfDue();
  }

  /** Saves every vector index, then trims the log; false when nothing was saved. */
  checkpoint(reason: string): Promise<boolean> {
    return this.checkpointer.checkpoint(reason);
  }

  /** Waits for queued writes and running reads, takes a final checkpoint, releases the kernel memory. */
  async close(options: { checkpoint: boolean }): Promise<void> {
    await this.queue.drain();
    if (options.checkpoint) {
      try {
        await this.checkpoint('shutdown');
      } catch (error) {
        this.logger.error({ err: error, collection: this.name }, 'shutdown checkpoint failed');
      }
      await this.queue.run(() => this.writePointHandoff());
    }
    await this.queue.drain();
    // Releasing native memory under a running search would fail it; let searches finish first.
    await this.table.waitForReads();
    for (const index of this.indexes.values()) index.close();
    this.indexes.clear();
    this.sparse.close();
    this.table.close();
  }

  /**
   * The clean stop's hand-off of the point table to the next start (point-handoff.ts). Runs in
   * the write queue, so the table is exactly the store's state at the last operation. Skipped
   * when a kernel update failed (the next start replays the log anyway) or the collection is
   * being deleted; a failure costs the next start time, never data.
   */
  private async writePointHandoff(): Promise<void> {
    if (this.deleting || this.checkpointer.kernelFault !== undefined) return;
    const started = performance.now();
    try {
      await writePointHandoff(this.directory, this.table, this.checkpointBinding, this.lastOperationId);
      this.logger.info({ collection: this.name, points: this.table.size, elapsed_ms: Math.round(performance.now() - started) }, 'point hand-off file written');
    } catch (error) {
      this.logger.warn({ err: error, collection: this.name }, 'point hand-off file not written: the next start reads the points from the store');
    }
  }

  /** Resolves once every queued write has finished. */
  drain(): Promise<void> {
    return this.queue.drain();
  }

  /** Resolves once every vector index has linked all its points into the graph. */
  async waitIndexed(): Promise<void> {
    for (const index of this.indexes.values()) await index.waitIndexed();
  }
}

/** The vector names, sizes and distances a request is checked against (cluster mode checks a
 * write against the config alone, before any shard has it: docs/cluster.md §3). */
export function vectorLayoutOf(config: CollectionConfig, maxMultivectorRows = defaultMaxMultivectorRows): VectorLayout {
  const dimensions = new Map<string, number>();
  const distances = new Map<string, Distance>();
  const datatypes = new Map<string, VectorDatatype>();
  const multivectors = new Map<string, number>();
  for (const [name, params] of Object.entries(config.vectors)) {
    dimensions.set(name, params.size);
    distances.set(name, params.distance);
    const datatype = datatypeOf(params);
    if (datatype !== 'float32') datatypes.set(name, datatype);
    if (isMultivector(config, name)) multivectors.set(name, multivectorRowLimit(config, name, maxMultivectorRows));
  }
  return {
    shape: config.vectors_shape,
    dimensions,
    distances,
    ...(datatypes.size > 0 ? { datatypes } : {}),
    sparseNames: new Set(Object.keys(config.sparse_vectors ?? {})),
    multivectors,
  };
}

/** The default of limits.max_multivector_rows (src/config.ts). */
export const defaultMaxMultivectorRows = 1024;

/** Rows a point's multivector `vectorName` may have: the server's limit, or strict mode's max_vectors when lower. */
export function multivectorRowLimit(config: CollectionConfig, vectorName: string, maxMultivectorRows = defaultMaxMultivectorRows): number {
  const strict = config.strict_mode_config;
  const strictRows = strict?.enabled === true ? strict.multivector_config?.[vectorName]?.max_vectors : undefined;
  return typeof strictRows === 'number' ? Math.min(strictRows, maxMultivectorRows) : maxMultivectorRows;
}
