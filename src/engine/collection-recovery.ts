// Start-up of one collection (docs/architecture.md §4): points from classic-level into memory; each vector
// index from its kernel checkpoint plus the slots the log says changed after it; an index with
// no usable checkpoint is rebuilt from the stored vectors (slow, logged, never data loss).
import { mkdir, readFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import { loadVectorIndex, nativeErrorCode } from '../native/index.js';
import { createSparseIndex, loadSparseIndex } from '../native/sparse-index.js';
import type { SparseIndex } from '../native/sparse-index-contract.js';
import type { VectorIndex } from '../native/vector-index.js';
import { decodeVectorRecordInto } from '../storage/point-records.js';
import { checkpointPath, createIndexFor, isMultivector, vectorIndexOptions, type Collection } from './collection.js';
import { decodeMatrix, fillFromStore } from './index-rebuild.js';
import { decodeMultivectorMap, multivectorMapPath } from './multi-vector-checkpoint.js';
import { MultiVectorIndex } from './multi-vector-index.js';
import { loadPointHandoff } from './point-handoff.js';
import { ProgressLog } from './progress-log.js';
import { packVectors, sparseCheckpointPath } from './sparse-vectors.js';

const reapplyChunk = 1024;

export interface RecoveryReport {
  points: number;
  /** Where the points came from: the clean stop's hand-off file (point-handoff.ts) or the store. */
  pointsSource: 'handoff' | 'store';
  lastOperationId: number;
  /** Per vector name (dense and sparse): how the index was obtained. */
  indexes: Record<string, { source: 'checkpoint' | 'rebuilt'; checkpointOperationId: number; replayedSlots: number; reason?: string }>;
}

async function readPoints(collection: Collection): Promise<number> {
  let count = 0;
  for await (const chunk of collection.store.pointRecords()) {
    for (const { idBytes, record } of chunk) collection.restoreStoredPoint(idBytes, record);
    count += chunk.length;
  }
  return count;
}

/**
 * Re-applies the current stored state of `slots`, a chunk at a time: the slots whose record is
 * present go to `upsertPresent` with their records, the others are deleted from `index`.
 */
async function reapplyStored(
  collection: Collection,
  index: VectorIndex,
  vectorName: string,
  slots: number[],
  upsertPresent: (present: Uint32Array, records: Uint8Array[]) => Promise<void>,
): Promise<void> {
  for (let start = 0; start < slots.length; start += reapplyChunk) {
    const chunk = slots.slice(start, start + reapplyChunk);
    const values = await collection.store.vectorRecords(chunk, vectorName);
    const present: number[] = [];
    const records: Uint8Array[] = [];
    const absent: number[] = [];
    chunk.forEach((slot, position) => {
      const value = values[position];
      if (value === undefined) absent.push(slot);
      else {
        present.push(slot);
        records.push(value);
      }
    });
    if (present.length > 0) await upsertPresent(Uint32Array.from(present), records);
    if (absent.length > 0) await index.delete(Uint32Array.from(absent));
  }
}

/** Re-applies the current stored state of `slots` to a dense `index`: upsert present vectors, delete the rest. */
async function reapplySlots(collection: Collection, index: VectorIndex, vectorName: string, slots: number[]): Promise<void> {
  const dimension = index.dimension;
  await reapplyStored(collection, index, vectorName, slots, async (present, records) => {
    const rows = new Float32Array(present.length * dimension);
    records.forEach((record, position) => decodeVectorRecordInto(record, rows, position * dimension));
    await index.upsert(present, rows);
  });
}

/** Re-applies the current stored matrices of `slots` to a multivector index: upsert present ones, delete the rest. */
async function reapplyMatrices(collection: Collection, index: MultiVectorIndex, vectorName: string, slots: number[]): Promise<void> {
  await reapplyStored(collection, index, vectorName, slots, (present, records) => index.upsertMatrices(present, records.map(decodeMatrix)));
}

/**
 * Why a checkpoint bound to `found` must not be used by a collection bound to `expected`
 * (docs/durability.md): an unbound file (the old format) is not trusted either; undefined when
 * it belongs. Tests without a registry bind nothing and accept anything.
 */
function bindingProblem(found: string, expected: string): string | undefined {
  if (expected === '' || found === expected) return undefined;
  if (found === '') return 'checkpoint of the old format is not bound to this database and collection incarnation';
  const [foundDatabase] = found.split('/');
  const [expectedDatabase] = expected.split('/');
  return foundDatabase === expectedDatabase
    ? 'checkpoint belongs to an earlier collection that had the same internal number'
    : 'checkpoint belongs to another database (the store was replaced)';
}

type CheckpointLoad = { index: VectorIndex; covered: number; binding: string } | { reason: string; file: string };

async function loadCheckpoint(collection: Collection, vectorName: string, lastOperationId: number): Promise<CheckpointLoad> {
  const path = checkpointPath(collection.directory, vectorName);
  const expected = vectorIndexOptions(collection.config, vectorName, collection.directory);
  let loaded;
  try {
    loaded = await loadVectorIndex(path, expected.onDiskDirectory);
  } catch (error) {
    return { reason: nativeErrorCode(error) === 'CHECKPOINT_MISSING' ? 'no checkpoint file' : (error as Error).message, file: path };
  }
  let reason = bindingProblem(loaded.binding, collection.checkpointBinding);
  if (reason !== undefined) {
    // Another store's or an earlier collection's file: never loaded as this one's.
  } else if (loaded.index.dimension !== expected.dimension) reason = `checkpoint dimension ${loaded.index.dimension} != configured ${expected.dimension}`;
  else if (loaded.index.distance !== expected.distance) reason = `checkpoint distance ${loaded.index.distance} != configured ${expected.distance}`;
  else if (loaded.index.datatype !== (expected.datatype ?? 'float32')) reason = `checkpoint datatype ${loaded.index.datatype} != configured ${expected.datatype ?? 'float32'}`;
  else if (loaded.lastOperationId > lastOperationId) {
    // The store lost writes the checkpoint had seen (fsync off and a power loss): trust the store.
    reason = `checkpoint covers operation ${loaded.lastOperationId}, the store only reaches ${lastOperationId}`;
  }
  if (reason !== undefined) {
    loaded.index.close();
    return { reason, file: path };
  }
  return { index: loaded.index, covered: loaded.lastOperationId, binding: loaded.binding };
}

/**
 * A multivector index from its checkpoint pair (docs/architecture.md §17): the rows' kernel
 * checkpoint, checked as a dense one is, and the sub-slot map beside it, which must carry the
 * same operation id and binding and place exactly the rows the kernel holds. Never rejects.
 */
async function loadMultivectorCheckpoint(collection: Collection, vectorName: string, lastOperationId: number): Promise<CheckpointLoad> {
  const rows = await loadCheckpoint(collection, vectorName, lastOperationId);
  if (!('index' in rows)) return rows;
  const file = multivectorMapPath(checkpointPath(collection.directory, vectorName));
  let reason: string;
  try {
    const map = decodeMultivectorMap(await readFile(file));
    if (map.lastOperationId !== rows.covered) reason = `map covers operation ${map.lastOperationId}, its rows checkpoint ${rows.covered}: not one pair`;
    else if (map.binding !== rows.binding) reason = 'map and rows checkpoint have different bindings: not one pair';
    else {
      const index = new MultiVectorIndex(vectorIndexOptions(collection.config, vectorName, collection.directory), rows.index);
      index.restoreMap(map);
      return { index, covered: rows.covered, binding: rows.binding };
    }
  } catch (error) {
    // A refused file (MultivectorMapError) or rows the map does not place: its message says why.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') reason = 'no map file';
    else reason = error instanceof Error ? error.message : String(error);
  }
  rows.index.close();
  return { reason, file };
}

/** Rebuilds one sparse index from every stored sparse vector of `vectorName`. */
async function rebuildSparseIndex(collection: Collection, vectorName: string): Promise<SparseIndex> {
  const index = createSparseIndex();
  try {
    for await (const chunk of collection.store.sparseVectors(vectorName)) await index.upsert(...packVectors(chunk));
  } catch (error) {
    index.close();
    throw error;
  }
  return index;
}

/** Re-applies the current stored sparse vectors of `slots` to `index`: upsert present ones, delete the rest. */
async function reapplySparseSlots(collection: Collection, index: SparseIndex, vectorName: string, slots: number[]): Promise<void> {
  for (let start = 0; start < slots.length; start += reapplyChunk) {
    const chunk = slots.slice(start, start + reapplyChunk);
    const stored = await collection.store.sparseVectorRecords(chunk, vectorName);
    const present = chunk.flatMap((slot, position) => (stored[position] ? [{ slot, vector: stored[position] }] : []));
    const absent = chunk.filter((_, position) => stored[position] === undefined);
    if (present.length > 0) await index.upsert(...packVectors(present));
    if (absent.length > 0) await index.delete(Uint32Array.from(absent));
  }
}

/**
 * One sparse index: its checkpoint (`QUIVERSP`, docs/architecture.md §5.3) plus the slots the
 * log says changed after it, or a rebuild from the store. Returns the operation it covers.
 */
async function recoverSparseIndex(
  collection: Collection,
  vectorName: string,
  lastOperationId: number,
  points: number,
  logger: Logger,
): Promise<{ index: SparseIndex; covered: number; report: RecoveryReport['indexes'][string] }> {
  let reason: string;
  try {
    const loaded = await loadSparseIndex(sparseCheckpointPath(collection.directory, vectorName));
    const foreign = bindingProblem(loaded.binding, collection.checkpointBinding);
    if (foreign === undefined && loaded.lastOperationId <= lastOperationId) {
      const touched = await collection.store.slotsTouchedAfter(loaded.lastOperationId);
      try {
        await reapplySparseSlots(collection, loaded.index, vectorName, [...touched.keys()]);
      } catch (error) {
        loaded.index.close();
        throw error;
      }
      return { index: loaded.index, covered: loaded.lastOperationId, report: { source: 'checkpoint', checkpointOperationId: loaded.lastOperationId, replayedSlots: touched.size } };
    }
    // The store lost writes the checkpoint had seen (fsync off and a power loss): trust the store.
    reason = foreign ?? `checkpoint covers operation ${loaded.lastOperationId}, the store only reaches ${lastOperationId}`;
    loaded.index.close();
  } catch (error) {
    reason = nativeErrorCode(error) === 'CHECKPOINT_MISSING' ? 'no checkpoint file' : (error as Error).message;
  }
  if (points > 0) logger.warn({ collection: collection.name, vector: vectorName, reason }, 'no usable sparse checkpoint: rebuilding the sparse index from stored vectors');
  const index = await rebuildSparseIndex(collection, vectorName);
  return { index, covered: 0, report: { source: 'rebuilt', checkpointOperationId: 0, replayedSlots: 0, reason } };
}

/**
 * Loads `collection` from its store and its checkpoint files. A rebuild logs its progress at most
 * every `progressIntervalMs` (progress-log.ts). `kernelBound` is called once its points are
 * restored and only the kernel's checkpoint loads are left to wait for (docs/architecture.md §21).
 */
export async function recoverCollection(collection: Collection, logger: Logger, progressIntervalMs = 5_000, kernelBound?: () => void): Promise<RecoveryReport> {
  await mkdir(collection.directory, { recursive: true });
  const lastOperationId = await collection.store.lastOperationId();
  // The kernel reads and verifies every dense checkpoint on the addon's threads while this thread
  // streams the point records into the point table: the two are independent, so start-up takes
  // the longer of them, not their sum (docs/architecture.md §21).
  const checkpointLoads = new Map<string, Promise<CheckpointLoad>>();
  for (const vectorName of Object.keys(collection.config.vectors)) {
    const load = isMultivector(collection.config, vectorName) ? loadMultivectorCheckpoint : loadCheckpoint;
    checkpointLoads.set(vectorName, load(collection, vectorName, lastOperationId));
  }
  let points: number;
  let pointsSource: RecoveryReport['pointsSource'] = 'store';
  try {
    const handoff = await loadPointHandoff(collection.directory, { binding: collection.checkpointBinding, lastOperationId }, {
      reserve: (count) => collection.reservePoints(count),
      run: (block, run) => collection.restorePointRun(block, run),
    });
    if (handoff.loaded) {
      points = handoff.points;
      pointsSource = 'handoff';
    } else {
      // Not damage: the store holds every point; the file only saves reading them one by one.
      if (lastOperationId > 0) logger.info({ collection: collection.name, reason: handoff.reason }, 'points read from the store');
      points = await readPoints(collection);
    }
  } catch (error) {
    // loadCheckpoint never rejects: it answers an index or the reason there is none.
    for (const load of checkpointLoads.values()) {
      const loaded = await load;
      if ('index' in loaded) loaded.index.close();
    }
    throw error;
  }
  const report: RecoveryReport = { points, pointsSource, lastOperationId, indexes: {} };
  kernelBound?.();

  const indexes = new Map<string, VectorIndex>();
  const sparseIndexes = new Map<string, SparseIndex>();
  const loadedIndexedCounts = new Map<string, number>();
  let lowestCovered = lastOperationId;
  try {
    for (const vectorName of Object.keys(collection.config.vectors)) {
      const loaded = await checkpointLoads.get(vectorName)!;
      checkpointLoads.delete(vectorName);
      if (isMultivector(collection.config, vectorName) && !('index' in loaded)) {
        // No usable pair: rebuilt from the point records, so the log is not needed for it.
        if (points > 0) logger.warn({ collection: collection.name, vector: vectorName, file: loaded.file, reason: loaded.reason }, 'no usable multivector checkpoint: rebuilding the index from the point records');
        const progress = new ProgressLog({ logger, task: 'multivector rebuild', fields: { collection: collection.name, vector: vectorName }, intervalMs: progressIntervalMs });
        indexes.set(vectorName, await fillFromStore(createIndexFor(collection.config, vectorName, collection.directory), collection.store, vectorName, (read) => progress.update(read, points)));
        report.indexes[vectorName] = { source: 'rebuilt', checkpointOperationId: 0, replayedSlots: 0, reason: loaded.reason };
        continue;
      }
      if ('index' in loaded) {
        loadedIndexedCounts.set(vectorName, loaded.index.stats().indexedCount);
        const touched = await collection.store.slotsTouchedAfter(loaded.covered);
        if (loaded.index instanceof MultiVectorIndex) await reapplyMatrices(collection, loaded.index, vectorName, [...touched.keys()]);
        else await reapplySlots(collection, loaded.index, vectorName, [...touched.keys()]);
        indexes.set(vectorName, loaded.index);
        lowestCovered = Math.min(lowestCovered, loaded.covered);
        report.indexes[vectorName] = { source: 'checkpoint', checkpointOperationId: loaded.covered, replayedSlots: touched.size };
      } else {
        if (points > 0) logger.warn({ collection: collection.name, vector: vectorName, reason: loaded.reason }, 'no usable checkpoint: rebuilding the index from stored vectors');
        const started = performance.now();
        const progress = new ProgressLog({ logger, task: 'index rebuild', fields: { collection: collection.name, vector: vectorName }, intervalMs: progressIntervalMs });
        indexes.set(vectorName, await fillFromStore(createIndexFor(collection.config, vectorName, collection.directory), collection.store, vectorName, (read) => progress.update(read, points)));
        if (points > 0) logger.info({ collection: collection.name, vector: vectorName, elapsed_ms: Math.round(performance.now() - started) }, 'index rebuilt');
        // A rebuilt index is in memory only: the whole log still matters until the next checkpoint.
        lowestCovered = 0;
        report.indexes[vectorName] = { source: 'rebuilt', checkpointOperationId: 0, replayedSlots: 0, reason: loaded.reason };
      }
    }
    for (const vectorName of Object.keys(collection.config.sparse_vectors ?? {})) {
      const recovered = await recoverSparseIndex(collection, vectorName, lastOperationId, points, logger);
      sparseIndexes.set(vectorName, recovered.index);
      // A rebuilt index covers nothing on disk: the whole log matters until the next checkpoint.
      lowestCovered = Math.min(lowestCovered, recovered.covered);
      report.indexes[vectorName] = recovered.report;
    }
  } catch (error) {
    for (const index of indexes.values()) index.close();
    for (const index of sparseIndexes.values()) index.close();
    // Checkpoints loaded for vector names the failure came before.
    for (const load of checkpointLoads.values()) {
      const loaded = await load;
      if ('index' in loaded) loaded.index.close();
    }
    throw error;
  }
  collection.restoreState(lastOperationId, lowestCovered, indexes, loadedIndexedCounts, sparseIndexes);
  return report;
}
