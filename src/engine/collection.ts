// One collection: its points in memory (id -> entry, slot -> entry), one kernel VectorIndex per
// vector name, and every write applied in order through a per-collection queue as ONE atomic
// classic-level batch (point records, stored vectors, operation log entry, collection state),
// written before it is acknowledged. The kernel is derived state: checkpoints plus the log
// rebuild it (collection-recovery.ts).
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { errors } from '../errors.js';
import { serializeJson } from '../json/serialize.js';
import { createVectorIndex } from '../native/index.js';
import type { SearchOptions, SearchResult, VectorIndex, VectorIndexOptions } from '../native/vector-index.js';
import { formatPointId, pointIdKey, type PointId } from '../points/ids.js';
import { selectPayload, type Payload, type PayloadSelection, type VectorSelection } from '../points/selectors.js';
import { float32RowToNumbers, type VectorLayout } from '../points/vectors.js';
import { CollectionStore, type CollectionBatch } from '../storage/collection-store.js';
import type { Database } from '../storage/database.js';
import type { OperationKind } from '../storage/operation-log.js';
import { describeCollectionConfig, effectiveHnswConfig, unnamedVector, type CollectionConfig } from './collection-config.js';
import { selectByFilter, type PointSelector } from './point-selection.js';
import { WriteQueue } from './write-queue.js';

/** A live point as held in memory. Entries are replaced, never mutated, on every write. */
export interface PointEntry {
  readonly id: PointId;
  /** pointIdKey(id): the map key. */
  readonly key: string;
  readonly slot: number;
  /** The operation id that last wrote this point. */
  readonly version: number;
  readonly payload: Payload;
}

/** A point as a write request gives it, already checked (see points/prepare.ts). */
export interface PreparedPoint {
  id: PointId;
  key: string;
  vectors: Map<string, Float32Array>;
  payload: Payload;
  payloadJson: string;
}

export type UpdateMode = 'upsert' | 'insert_only' | 'update_only';

export interface WriteResult {
  operation_id: number;
  status: 'acknowledged' | 'completed';
}

/** Told of every payload change: `before` undefined = new point, `after` undefined = deleted. */
export type PayloadListener = (change: { slot: number; id: PointId; before: Payload | undefined; after: Payload | undefined }) => void;

export interface CollectionSettings {
  fsync: boolean;
  checkpointOperations: number;
  maxPayloadBytes: number;
}

export interface CollectionOptions {
  number: number;
  name: string;
  config: CollectionConfig;
  database: Database;
  /** This collection's own directory (kernel checkpoints). */
  directory: string;
  settings: CollectionSettings;
  logger: Logger;
}

/** A record as reads return it (API.md §3): keys not asked for are left out. */
export interface PointRecord {
  id: PointId;
  payload?: Payload;
  vector?: number[] | Record<string, number[]>;
}

export interface NearestResult {
  /** Live points, best first, with their scores (wire convention, see vector-index.ts). */
  points: PointEntry[];
  scores: number[];
}

/** The checkpoint file of one vector index. Names are hex-encoded: any string is a valid name. */
export function checkpointPath(directory: string, vectorName: string): string {
  return join(directory, `vector-${Buffer.from(vectorName, 'utf8').toString('hex')}.qvi`);
}

/** The kernel options for one vector of `config`. full_scan_threshold is in KB (Qdrant's unit). */
export function vectorIndexOptions(config: CollectionConfig, vectorName: string): VectorIndexOptions {
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
  };
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
  private currentConfig: CollectionConfig;
  /** Every read and write of this collection's stored data goes through here. */
  readonly store: CollectionStore;
  private readonly settings: CollectionSettings;
  private readonly logger: Logger;
  private readonly queue = new WriteQueue();

  private readonly pointsByKey = new Map<string, PointEntry>();
  private readonly pointsBySlot: (PointEntry | undefined)[] = [];
  /** Slots free for new points. */
  private readonly freeSlots: number[] = [];
  /** Slots freed while reads were running; reused only once no read could still return them. */
  private pendingFreeSlots: number[] = [];
  private nextSlot = 0;
  private readsInFlight = 0;

  readonly indexes = new Map<string, VectorIndex>();
  /**
   * The vectors of the write between its commit and the end of its kernel update, by slot then
   * name (null: removed). An acknowledged (wait=false) write is visible from its commit, so a
   * record read in that window must show its new vectors with its new payload, not none or the
   * old ones. The queue runs one write at a time, so this holds at most one write's vectors.
   */
  private readonly vectorsInFlight = new Map<number, Map<string, Float32Array | null>>();
  private lastOperation = 0;
  private checkpointedOperation = 0;
  private operationsSinceCheckpoint = 0;
  /** A kernel call failed after its batch was written: checkpoints would lie, so none is taken. */
  private kernelFault: Error | undefined;
  private deleting = false;
  private readonly payloadListeners = new Set<PayloadListener>();
  private payloadSchemaProvider: () => Record<string, unknown> = () => ({});

  constructor(options: CollectionOptions) {
    this.number = options.number;
    this.name = options.name;
    this.currentConfig = options.config;
    this.store = new CollectionStore(options.database, options.number, { fsync: options.settings.fsync });
    this.directory = options.directory;
    this.settings = options.settings;
    this.logger = options.logger;
  }

  // ---- configuration -------------------------------------------------------------------

  get config(): CollectionConfig {
    return this.currentConfig;
  }

  /** Replaces the stored configuration (PATCH); the registry persists it. */
  setConfig(config: CollectionConfig): void {
    this.currentConfig = config;
  }

  get vectorLayout(): VectorLayout {
    const dimensions = new Map<string, number>();
    for (const [name, params] of Object.entries(this.currentConfig.vectors)) dimensions.set(name, params.size);
    return {
      shape: this.currentConfig.vectors_shape,
      dimensions,
      sparseNames: new Set(Object.keys(this.currentConfig.sparse_vectors ?? {})),
    };
  }

  get lastOperationId(): number {
    return this.lastOperation;
  }

  get checkpointedOperationId(): number {
    return this.checkpointedOperation;
  }

  get pointCount(): number {
    return this.pointsByKey.size;
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
      this.indexes.set(name, createVectorIndex(vectorIndexOptions(this.currentConfig, name)));
    }
  }

  /** Adds a point read from storage at start-up. */
  restorePoint(entry: PointEntry): void {
    this.pointsByKey.set(entry.key, entry);
    this.pointsBySlot[entry.slot] = entry;
    if (entry.slot >= this.nextSlot) this.nextSlot = entry.slot + 1;
  }

  /** Finishes start-up: free slots are the holes below the highest used slot. */
  restoreState(
    lastOperationId: number,
    checkpointedOperationId: number,
    indexes: Map<string, VectorIndex>,
    /** For indexes loaded from a checkpoint: the linked count it held (rebuilt ones have none). */
    checkpointIndexedCounts: Map<string, number> = new Map(),
  ): void {
    this.lastOperation = lastOperationId;
    this.checkpointedOperation = checkpointedOperationId;
    this.operationsSinceCheckpoint = lastOperationId - checkpointedOperationId;
    for (const [name, index] of indexes) this.indexes.set(name, index);
    for (const [name, count] of checkpointIndexedCounts) this.checkpointIndexedCounts.set(name, count);
    this.freeSlots.length = 0;
    for (let slot = this.nextSlot - 1; slot >= 0; slot -= 1) {
      if (this.pointsBySlot[slot] === undefined) this.freeSlots.push(slot);
    }
  }

  // ---- reads ------------------------------------------------------------------------------

  /** Every live point, in no particular order. */
  livePoints(): IterableIterator<PointEntry> {
    return this.pointsByKey.values();
  }

  pointBySlot(slot: number): PointEntry | undefined {
    return this.pointsBySlot[slot];
  }

  pointById(id: PointId): PointEntry | undefined {
    return this.pointsByKey.get(pointIdKey(id));
  }

  /** One past the highest slot ever used: the size a slot bitset needs. */
  get slotCapacity(): number {
    return this.nextSlot;
  }

  /** Registers a listener told of every payload change (payload indexes). Returns an unsubscribe. */
  addPayloadListener(listener: PayloadListener): () => void {
    this.payloadListeners.add(listener);
    return () => this.payloadListeners.delete(listener);
  }

  /** The filter module supplies CollectionInfo's `payload_schema`. */
  setPayloadSchemaProvider(provider: () => Record<string, unknown>): void {
    this.payloadSchemaProvider = provider;
  }

  /** The index of `vectorName`, or 400 naming the unknown name. */
  vectorIndex(vectorName: string, field = 'vector'): VectorIndex {
    const index = this.indexes.get(vectorName);
    if (!index) {
      const known = Object.keys(this.currentConfig.vectors).map((name) => (name === '' ? '"" (unnamed)' : name));
      throw errors.invalidField(field, `Not existing vector name: ${JSON.stringify(vectorName)} (this collection has ${known.join(', ') || 'none'})`);
    }
    return index;
  }

  /**
   * The k nearest live points to `query` under vector `vectorName` ("" = the unnamed vector).
   * `allowed` is a slot bitset (see vector-index.ts); `exact` forces a brute-force scan.
   */
  async nearest(vectorName: string, query: Float32Array, k: number, options: SearchOptions = {}): Promise<NearestResult> {
    this.assertOperable();
    const index = this.vectorIndex(vectorName);
    if (query.length !== index.dimension) throw errors.dimensionMismatch('vector', index.dimension, query.length);
    this.readsInFlight += 1;
    try {
      return this.livePointsOf(await index.search(query, k, options));
    } finally {
      this.readsInFlight -= 1;
    }
  }

  /** A kernel result as points; a point deleted while the search ran is left out, never misreported. */
  private livePointsOf(found: SearchResult): NearestResult {
    const points: PointEntry[] = [];
    const scores: number[] = [];
    for (let position = 0; position < found.slots.length; position += 1) {
      const entry = this.pointsBySlot[found.slots[position]!];
      if (entry === undefined) continue;
      points.push(entry);
      scores.push(found.scores[position]!);
    }
    return { points, scores };
  }

  /** Several queries under one vector name, in one kernel call. */
  async nearestBatch(vectorName: string, queries: Float32Array[], k: number, options: SearchOptions = {}): Promise<NearestResult[]> {
    this.assertOperable();
    const index = this.vectorIndex(vectorName);
    for (const query of queries) {
      if (query.length !== index.dimension) throw errors.dimensionMismatch('vector', index.dimension, query.length);
    }
    if (queries.length === 0) return [];
    this.readsInFlight += 1;
    try {
      const found = await index.searchBatch(concatenate(queries, index.dimension), k, options);
      return found.map((result) => this.livePointsOf(result));
    } finally {
      this.readsInFlight -= 1;
    }
  }

  /** The stored (Cosine: normalised) vector of a point, or undefined when it has none. */
  storedVector(entry: PointEntry, vectorName: string): Float32Array | undefined {
    const index = this.indexes.get(vectorName);
    if (!index) return undefined;
    const inFlight = this.vectorInFlight(entry.slot, vectorName, index);
    if (inFlight !== undefined) return inFlight ?? undefined;
    if (!index.has(entry.slot)) return undefined;
    return index.vectors(Uint32Array.of(entry.slot));
  }

  /** The in-flight vector of a slot in stored form (Cosine: normalised, as the kernel stores it);
   * null when the write removes it, undefined when no write in flight touches it. */
  private vectorInFlight(slot: number, vectorName: string, index: VectorIndex): Float32Array | null | undefined {
    const vector = this.vectorsInFlight.get(slot)?.get(vectorName);
    if (vector === undefined || vector === null || index.distance !== 'Cosine') return vector;
    let squares = 0;
    for (const value of vector) squares += value * value;
    const norm = Math.sqrt(squares);
    return norm > 0 ? vector.map((value) => value / norm) : vector;
  }

  /** Marks one write's vectors as in flight until `apply` (its kernel update) settles. */
  private async applyingVectors(slots: number[], apply: () => Promise<void>): Promise<void> {
    try {
      await apply();
    } finally {
      for (const slot of slots) this.vectorsInFlight.delete(slot);
    }
  }

  /** Checks `with_vector` names against the collection (400 for an unknown one). */
  checkVectorSelection(selection: VectorSelection, field = 'with_vector'): void {
    if (selection.kind !== 'named') return;
    for (const name of selection.names) this.vectorIndex(name, field);
  }

  /** Records for `entries`, in order, with the payload and vectors the selections ask for. */
  toRecords(entries: readonly PointEntry[], payload: PayloadSelection, vector: VectorSelection): PointRecord[] {
    const records: PointRecord[] = entries.map((entry) => {
      const record: PointRecord = { id: entry.id };
      const selected = selectPayload(entry.payload, payload);
      if (selected !== undefined) record.payload = selected;
      return record;
    });
    if (vector.kind === 'none' || entries.length === 0) return records;
    const names = vector.kind === 'all' ? [...this.indexes.keys()] : vector.names;
    const slots = Uint32Array.from(entries, (entry) => entry.slot);
    const single = this.currentConfig.vectors_shape === 'single';
    const named: Record<string, number[]>[] = entries.map(() => ({}));
    for (const name of names) {
      const index = this.vectorIndex(name, 'with_vector');
      const rows = index.vectors(slots);
      const dimension = index.dimension;
      entries.forEach((entry, position) => {
        const inFlight = this.vectorInFlight(entry.slot, name, index);
        if (inFlight !== undefined) {
          if (inFlight !== null) named[position]![name] = float32RowToNumbers(inFlight, 0, dimension);
          return;
        }
        // A NaN first element marks a slot without this vector (vector-index.ts).
        if (Number.isNaN(rows[position * dimension])) return;
        named[position]![name] = float32RowToNumbers(rows, position * dimension, dimension);
      });
    }
    records.forEach((record, position) => {
      if (single && vector.kind === 'all') {
        const only = named[position]![unnamedVector];
        if (only !== undefined) record.vector = only;
      } else if (single && vector.kind === 'named' && names.length === 1 && names[0] === unnamedVector) {
        const only = named[position]![unnamedVector];
        if (only !== undefined) record.vector = only;
      } else {
        record.vector = named[position]!;
      }
    });
    return records;
  }

  /** Points by id, in request order; unknown ids left out. */
  retrieve(ids: readonly PointId[], payload: PayloadSelection, vector: VectorSelection): PointRecord[] {
    this.assertOperable();
    this.checkVectorSelection(vector);
    const entries: PointEntry[] = [];
    for (const id of ids) {
      const entry = this.pointsByKey.get(pointIdKey(id));
      if (entry) entries.push(entry);
    }
    return this.toRecords(entries, payload, vector);
  }

  /** CollectionInfo (API.md §4). */
  info(): Record<string, unknown> {
    let indexedVectors = 0;
    let yellow = false;
    for (const index of this.indexes.values()) {
      const stats = index.stats();
      indexedVectors += stats.indexedCount;
      if (stats.indexedCount < stats.count) yellow = true;
    }
    return {
      status: this.kernelFault ? 'red' : yellow ? 'yellow' : 'green',
      optimizer_status: this.kernelFault ? { error: this.kernelFault.message } : 'ok',
      indexed_vectors_count: indexedVectors,
      points_count: this.pointsByKey.size,
      segments_count: 1,
      config: describeCollectionConfig(this.currentConfig),
      payload_schema: this.payloadSchemaProvider(),
    };
  }

  // ---- writes -----------------------------------------------------------------------------

  private allocateSlot(): number {
    if (this.pendingFreeSlots.length > 0 && this.readsInFlight === 0) {
      // No read that began before these slots were freed is still running: safe to reuse.
      this.freeSlots.push(...this.pendingFreeSlots);
      this.pendingFreeSlots = [];
    }
    const reused = this.freeSlots.pop();
    if (reused !== undefined) return reused;
    if (this.nextSlot >= 0xffff_ffff) throw errors.invalidInput('Collection is full: no free point slot left');
    const slot = this.nextSlot;
    this.nextSlot += 1;
    return slot;
  }

  private notifyPayload(slot: number, id: PointId, before: Payload | undefined, after: Payload | undefined): void {
    for (const listener of this.payloadListeners) {
      try {
        listener({ slot, id, before, after });
      } catch (error) {
        this.logger.error({ err: error, collection: this.name }, 'payload listener failed');
      }
    }
  }

  /**
   * The common shape of every write: in queue order, `prepare` turns the current state into a
   * batch (and may throw a 4xx: nothing is written then), the batch is written atomically with
   * the log entry and the new last operation id, `commit` updates memory, `apply` updates the
   * kernel. `wait: false` answers once the batch is durable; `wait: true` after the kernel too.
   */
  private async write<Plan>(
    operation: FailedOperationName,
    wait: boolean,
    steps: {
      prepare(operationId: number, batch: CollectionBatch): { plan: Plan; kind: OperationKind; slots: number[]; rollback?: () => void };
      commit(plan: Plan, operationId: number): void;
      apply?(plan: Plan): Promise<void>;
    },
  ): Promise<WriteResult> {
    this.assertOperable();
    let acknowledge: (operationId: number) => void = () => undefined;
    const written = new Promise<number>((resolve) => {
      acknowledge = resolve;
    });
    const done = this.queue.run(async () => {
      this.assertOperable();
      const operationId = this.lastOperation + 1;
      const batch = this.store.newBatch();
      const prepared = steps.prepare(operationId, batch);
      try {
        await this.store.commit(batch, operationId, { kind: prepared.kind, slots: prepared.slots });
      } catch (error) {
        prepared.rollback?.();
        throw errors.internal(operation, error);
      }
      this.lastOperation = operationId;
      this.operationsSinceCheckpoint += 1;
      steps.commit(prepared.plan, operationId);
      acknowledge(operationId);
      if (steps.apply) {
        try {
          await steps.apply(prepared.plan);
        } catch (error) {
          // The batch is durable, so a restart replays it; until then the kernel is behind.
          this.kernelFault = error as Error;
          this.logger.error({ err: error, collection: this.name, operation_id: operationId }, 'kernel update failed after the write was stored');
          throw errors.internal(operation, error);
        }
      }
      if (this.operationsSinceCheckpoint >= this.settings.checkpointOperations) this.scheduleCheckpoint('operation count');
      return operationId;
    });
    if (wait) return { operation_id: await done, status: 'completed' };
    done.catch(() => undefined);
    const operationId = await Promise.race([written, done]);
    return { operation_id: operationId, status: 'acknowledged' };
  }

  /** Upsert (list or batch form, already checked): each point replaced whole. */
  upsert(requested: PreparedPoint[], mode: UpdateMode, wait: boolean): Promise<WriteResult> {
    // The same id twice in one request: the last one wins, as in Qdrant.
    const points = [...new Map(requested.map((point) => [point.key, point])).values()];
    interface Change {
      point: PreparedPoint;
      previous: PointEntry | undefined;
      entry: PointEntry;
    }
    return this.write<Change[]>('Upsert', wait, {
      prepare: (operationId, batch) => {
        const changes: Change[] = [];
        const allocated: number[] = [];
        try {
          for (const point of points) {
            const previous = this.pointsByKey.get(point.key);
            if (mode === 'insert_only' && previous) continue;
            if (mode === 'update_only' && !previous) continue;
            let slot = previous?.slot;
            if (slot === undefined) {
              slot = this.allocateSlot();
              allocated.push(slot);
            }
            const entry: PointEntry = { id: point.id, key: point.key, slot, version: operationId, payload: point.payload };
            batch.putPoint(point.id, { slot, version: operationId, payloadJson: point.payloadJson });
            for (const name of this.indexes.keys()) {
              const vector = point.vectors.get(name);
              if (vector) batch.putVector(slot, name, vector);
              else if (previous) batch.deleteVector(slot, name);
            }
            changes.push({ point, previous, entry });
          }
        } catch (error) {
          this.freeSlots.push(...allocated);
          throw error;
        }
        return {
          plan: changes,
          kind: 'upsert',
          slots: changes.map((change) => change.entry.slot),
          rollback: () => this.freeSlots.push(...allocated),
        };
      },
      commit: (changes) => {
        for (const { point, previous, entry } of changes) {
          const vectors = new Map<string, Float32Array | null>();
          for (const name of this.indexes.keys()) {
            const vector = point.vectors.get(name);
            if (vector) vectors.set(name, vector);
            else if (previous) vectors.set(name, null);
          }
          this.vectorsInFlight.set(entry.slot, vectors);
          this.pointsByKey.set(entry.key, entry);
          this.pointsBySlot[entry.slot] = entry;
          this.notifyPayload(entry.slot, entry.id, previous?.payload, entry.payload);
        }
      },
      apply: (changes) => this.applyingVectors(changes.map(({ entry }) => entry.slot), async () => {
        for (const [name, index] of this.indexes) {
          const slots: number[] = [];
          const rows: Float32Array[] = [];
          const removed: number[] = [];
          for (const { point, previous, entry } of changes) {
            const vector = point.vectors.get(name);
            if (vector) {
              slots.push(entry.slot);
              rows.push(vector);
            } else if (previous) removed.push(entry.slot);
          }
          if (slots.length > 0) await index.upsert(Uint32Array.from(slots), concatenate(rows, index.dimension));
          if (removed.length > 0) await index.delete(Uint32Array.from(removed));
        }
      }),
    });
  }

  /** The live points a selector names, in queue order. Unknown ids are skipped or a 404. */
  private resolveSelector(selector: PointSelector, missing: 'skip' | 'not_found', field: string): PointEntry[] {
    if (selector.kind === 'filter') return [...selectByFilter(this, selector.filter, field)];
    const entries: PointEntry[] = [];
    const seen = new Set<string>();
    for (const id of selector.ids) {
      const key = pointIdKey(id);
      if (seen.has(key)) continue;
      seen.add(key);
      const entry = this.pointsByKey.get(key);
      if (entry) entries.push(entry);
      else if (missing === 'not_found') throw errors.pointNotFound(formatPointId(id));
    }
    return entries;
  }

  /** Deletes the selected points; unknown ids are not an error. */
  deletePoints(selector: PointSelector, wait: boolean): Promise<WriteResult> {
    return this.write<PointEntry[]>('Delete', wait, {
      prepare: (_operationId, batch) => {
        const entries = this.resolveSelector(selector, 'skip', 'filter');
        for (const entry of entries) {
          batch.deletePoint(entry.id);
          for (const name of this.indexes.keys()) batch.deleteVector(entry.slot, name);
        }
        return { plan: entries, kind: 'delete', slots: entries.map((entry) => entry.slot) };
      },
      commit: (entries) => {
        for (const entry of entries) {
          this.pointsByKey.delete(entry.key);
          this.pointsBySlot[entry.slot] = undefined;
          this.notifyPayload(entry.slot, entry.id, entry.payload, undefined);
        }
      },
      apply: async (entries) => {
        if (entries.length === 0) return;
        const slots = Uint32Array.from(entries, (entry) => entry.slot);
        for (const index of this.indexes.values()) await index.delete(slots);
        // Only now can no new search return these slots; running ones still might.
        this.pendingFreeSlots.push(...slots);
      },
    });
  }

  /** Replaces only the named vectors given; every id must exist (404 otherwise). */
  updateVectors(points: { id: PointId; vectors: Map<string, Float32Array> }[], wait: boolean): Promise<WriteResult> {
    interface Change {
      entry: PointEntry;
      vectors: Map<string, Float32Array>;
    }
    return this.write<Change[]>('Upsert', wait, {
      prepare: (operationId, batch) => {
        const byKey = new Map<string, Change>();
        for (const point of points) {
          const key = pointIdKey(point.id);
          const previous = byKey.get(key)?.entry ?? this.pointsByKey.get(key);
          if (!previous) throw errors.pointNotFound(formatPointId(point.id));
          const merged = new Map(byKey.get(key)?.vectors ?? []);
          for (const [name, vector] of point.vectors) merged.set(name, vector);
          byKey.set(key, { entry: { ...previous, version: operationId }, vectors: merged });
        }
        const changes = [...byKey.values()];
        for (const { entry, vectors } of changes) {
          batch.putPoint(entry.id, { slot: entry.slot, version: operationId, payloadJson: serializeJson(entry.payload) });
          for (const [name, vector] of vectors) batch.putVector(entry.slot, name, vector);
        }
        return { plan: changes, kind: 'update_vectors', slots: changes.map((change) => change.entry.slot) };
      },
      commit: (changes) => {
        for (const { entry, vectors } of changes) {
          this.vectorsInFlight.set(entry.slot, new Map(vectors));
          this.pointsByKey.set(entry.key, entry);
          this.pointsBySlot[entry.slot] = entry;
        }
      },
      apply: (changes) => this.applyingVectors(changes.map(({ entry }) => entry.slot), async () => {
        for (const [name, index] of this.indexes) {
          const slots: number[] = [];
          const rows: Float32Array[] = [];
          for (const { entry, vectors } of changes) {
            const vector = vectors.get(name);
            if (!vector) continue;
            slots.push(entry.slot);
            rows.push(vector);
          }
          if (slots.length > 0) await index.upsert(Uint32Array.from(slots), concatenate(rows, index.dimension));
        }
      }),
    });
  }

  /**
   * Rewrites the payloads of the selected points with `transform` (set, overwrite, delete keys,
   * clear — src/payload decides). Every new payload is checked against the size limit before
   * anything is written. `missing: 'not_found'` makes an unknown id a 404.
   */
  updatePayloads(
    selector: PointSelector,
    transform: (payload: Payload, entry: PointEntry) => Payload,
    options: { wait: boolean; missing: 'skip' | 'not_found' },
  ): Promise<WriteResult> {
    interface Change {
      previous: PointEntry;
      entry: PointEntry;
    }
    return this.write<Change[]>('Payload operation', options.wait, {
      prepare: (operationId, batch) => {
        const entries = this.resolveSelector(selector, options.missing, 'filter');
        const changes: Change[] = [];
        for (const previous of entries) {
          const payload = transform(previous.payload, previous);
          const payloadJson = serializeJson(payload);
          this.checkPayloadSize(payloadJson, `payload of point ${formatPointId(previous.id)}`);
          const entry: PointEntry = { ...previous, payload, version: operationId };
          batch.putPoint(entry.id, { slot: entry.slot, version: operationId, payloadJson });
          changes.push({ previous, entry });
        }
        return { plan: changes, kind: 'payload', slots: [] };
      },
      commit: (changes) => {
        for (const { previous, entry } of changes) {
          this.pointsByKey.set(entry.key, entry);
          this.pointsBySlot[entry.slot] = entry;
          this.notifyPayload(entry.slot, entry.id, previous.payload, entry.payload);
        }
      },
    });
  }

  /** 400 when a payload's JSON is above config.limits.max_payload_bytes. */
  checkPayloadSize(payloadJson: string, field: string): void {
    if (payloadJson.length > this.settings.maxPayloadBytes || Buffer.byteLength(payloadJson, 'utf8') > this.settings.maxPayloadBytes) {
      throw errors.invalidField(field, `payload is larger than the limit of ${this.settings.maxPayloadBytes} bytes`);
    }
  }

  /**
   * A write of extension records (e.g. payload index definitions) as one logged operation, so
   * it gets an operation id and is atomic with nothing else. `apply` runs after it is durable.
   */
  writeExtension(
    namespace: string,
    changes: { put?: Record<string, unknown>; delete?: string[] },
    options: { wait: boolean; operation: FailedOperationName; apply?: () => Promise<void> | void },
  ): Promise<WriteResult> {
    return this.write<null>(options.operation, options.wait, {
      prepare: (_operationId, batch) => {
        for (const [key, value] of Object.entries(changes.put ?? {})) batch.putExtension(namespace, key, value);
        for (const key of changes.delete ?? []) batch.deleteExtension(namespace, key);
        return { plan: null, kind: 'payload', slots: [] };
      },
      commit: () => undefined,
      apply: options.apply ? async () => options.apply!() : undefined,
    });
  }

  /** Every extension record of `namespace`: key -> the JSON value written by writeExtension. */
  readExtension(namespace: string): Promise<Map<string, unknown>> {
    return this.store.extension(namespace);
  }

  // ---- checkpoints ------------------------------------------------------------------------

  private checkpointScheduled = false;

  private scheduleCheckpoint(reason: string): void {
    if (this.checkpointScheduled) return;
    this.checkpointScheduled = true;
    this.checkpoint(reason)
      .catch((error: unknown) => this.logger.error({ err: error, collection: this.name }, 'checkpoint failed'))
      .finally(() => {
        this.checkpointScheduled = false;
      });
  }

  /** Per vector name, how many vectors the graph had linked when the last checkpoint was saved. */
  private readonly checkpointIndexedCounts = new Map<string, number>();

  /** Whether the background graph build linked vectors since the last checkpoint. */
  private graphProgressed(): boolean {
    for (const [name, index] of this.indexes) {
      if (index.stats().indexedCount !== this.checkpointIndexedCounts.get(name)) return true;
    }
    return false;
  }

  private graphComplete(): boolean {
    for (const index of this.indexes.values()) {
      const stats = index.stats();
      if (stats.indexedCount < stats.count) return false;
    }
    return true;
  }

  /**
   * Background timer: checkpoint after writes, or once a graph build has finished since the
   * last checkpoint — otherwise a checkpoint taken mid-build would be the one loaded at the
   * next start, and the rest of the graph would be built again.
   */
  checkpointIfDue(): void {
    if (this.deleting) return;
    if (this.operationsSinceCheckpoint > 0 || (this.graphProgressed() && this.graphComplete())) this.scheduleCheckpoint('interval');
  }

  /**
   * Saves every vector index (atomically, by the kernel) tagged with the last operation, then
   * trims the log up to it. Runs in the write queue, so the kernel state is exactly the state
   * after that operation. Returns false when nothing was saved.
   */
  checkpoint(reason: string): Promise<boolean> {
    return this.queue.run(async () => {
      if (this.deleting) return false;
      if (this.kernelFault) {
        this.logger.warn({ collection: this.name, err: this.kernelFault }, 'checkpoint skipped: a kernel update failed; the next start replays the log');
        return false;
      }
      const covered = this.lastOperation;
      if (covered === this.checkpointedOperation && this.operationsSinceCheckpoint === 0 && !this.graphProgressed()) return false;
      const started = performance.now();
      await mkdir(this.directory, { recursive: true });
      const indexedCounts = new Map<string, number>();
      for (const [name, index] of this.indexes) {
        // Counted before saving: a save never holds less than this, so no progress is missed.
        indexedCounts.set(name, index.stats().indexedCount);
        await index.save(checkpointPath(this.directory, name), covered);
      }
      for (const [name, count] of indexedCounts) this.checkpointIndexedCounts.set(name, count);
      this.checkpointedOperation = covered;
      this.operationsSinceCheckpoint = 0;
      // Only after every index of the collection durably covers `covered` may the log shrink.
      await this.store.trimLog(covered);
      this.logger.info({ collection: this.name, operation_id: covered, reason, elapsed_ms: Math.round(performance.now() - started) }, 'checkpoint saved');
      return true;
    });
  }

  /** Resolves once no nearest call is running (bounded: a read never takes this long). */
  private async waitForReads(timeout_ms = 30_000): Promise<void> {
    const started = performance.now();
    while (this.readsInFlight > 0 && performance.now() - started < timeout_ms) {
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
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
    }
    await this.queue.drain();
    // Releasing native memory under a running search would fail it; let searches finish first.
    await this.waitForReads();
    for (const index of this.indexes.values()) index.close();
    this.indexes.clear();
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

type FailedOperationName = Parameters<typeof errors.internal>[0];
