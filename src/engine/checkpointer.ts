// Checkpoints of one collection's kernel state: every vector index (dense and sparse) saved (atomically, by the
// kernel; a multivector adds its sub-slot map, multi-vector-checkpoint.ts) tagged with the last operation it covers, and only then the operation log trimmed up
// to that operation. It also counts the operations since the last checkpoint, which decide
// when the next one is due, and remembers a kernel failure, after which no checkpoint is taken.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { VectorIndex } from '../native/vector-index.js';
import type { CollectionStore } from '../storage/collection-store.js';
import type { SparseVectors } from './sparse-vectors.js';
import type { WriteQueue } from './write-queue.js';

/** The checkpoint file of one vector index. Names are hex-encoded: any string is a valid name. */
export function checkpointPath(directory: string, vectorName: string): string {
  return join(directory, `vector-${Buffer.from(vectorName, 'utf8').toString('hex')}.qvi`);
}

export interface CheckpointerOptions {
  /** The collection's name, for logs. */
  name: string;
  /** Where the checkpoint files live. */
  directory: string;
  /** Who the checkpoints belong to, written into each (docs/durability.md). */
  binding: string;
  /** The collection's vector indexes (shared, not copied: indexes come and go with it). */
  indexes: ReadonlyMap<string, VectorIndex>;
  /** The collection's sparse indexes, saved beside the dense ones with the same operation id. */
  sparse?: SparseVectors;
  store: CollectionStore;
  /** The collection's write queue: a checkpoint runs between writes, never during one. */
  queue: WriteQueue;
  /** A checkpoint is scheduled once this many operations were written since the last one. */
  checkpointOperations: number;
  /** True once the collection is marked for deletion: no checkpoint is taken any more. */
  isDeleting: () => boolean;
  logger: Logger;
}

export class Checkpointer {
  private lastOperation = 0;
  private checkpointedOperation = 0;
  private operationsSinceCheckpoint = 0;
  /** A kernel call failed after its batch was written: checkpoints would lie, so none is taken. */
  private fault: Error | undefined;
  private scheduled = false;
  /** A checkpoint is being written (GET C/optimizations reports it). */
  private saving = false;
  /** Per vector name, how many vectors the graph had linked when the last checkpoint was saved. */
  private readonly indexedCounts = new Map<string, number>();
  /** The last checkpoint this process saved, for the metrics (docs/api.md §13); undefined before one. */
  private lastSaved: { atMs: number; durationMs: number } | undefined;
  private savedCount = 0;

  constructor(private readonly options: CheckpointerOptions) {}

  get lastOperationId(): number {
    return this.lastOperation;
  }

  get checkpointedOperationId(): number {
    return this.checkpointedOperation;
  }

  get kernelFault(): Error | undefined {
    return this.fault;
  }

  get isSaving(): boolean {
    return this.saving;
  }

  /** When the last checkpoint was saved (epoch ms) and how long it took; undefined before the first. */
  get lastCheckpoint(): { atMs: number; durationMs: number } | undefined {
    return this.lastSaved;
  }

  /** Checkpoints saved by this process. */
  get checkpointsSaved(): number {
    return this.savedCount;
  }

  /** Start-up: the state recovery found. `indexedCounts` only for indexes loaded from a checkpoint. */
  restore(lastOperationId: number, checkpointedOperationId: number, indexedCounts: ReadonlyMap<string, number>): void {
    this.lastOperation = lastOperationId;
    this.checkpointedOperation = checkpointedOperationId;
    this.operationsSinceCheckpoint = lastOperationId - checkpointedOperationId;
    for (const [name, count] of indexedCounts) this.indexedCounts.set(name, count);
  }

  /** A write's batch is durable: it is the last operation now. */
  recordWrite(operationId: number): void {
    this.lastOperation = operationId;
    this.operationsSinceCheckpoint += 1;
  }

  /** A write's kernel update failed after its batch was stored; the next start replays it. */
  recordKernelFault(error: Error): void {
    this.fault = error;
  }

  /** After a write: schedules a checkpoint once enough operations have accumulated. */
  afterWrite(): void {
    if (this.operationsSinceCheckpoint >= this.options.checkpointOperations) this.schedule('operation count');
  }

  /**
   * Background timer: checkpoint after writes, or once a graph build has finished since the
   * last checkpoint — otherwise a checkpoint taken mid-build would be the one loaded at the
   * next start, and the rest of the graph would be built again.
   */
  checkpointIfDue(): void {
    if (this.options.isDeleting()) return;
    if (this.operationsSinceCheckpoint > 0 || (this.graphProgressed() && this.graphComplete())) this.schedule('interval');
  }

  private schedule(reason: string): void {
    if (this.scheduled) return;
    this.scheduled = true;
    this.checkpoint(reason)
      .catch((error: unknown) => this.options.logger.error({ err: error, collection: this.options.name }, 'checkpoint failed'))
      .finally(() => {
        this.scheduled = false;
      });
  }

  /** Whether the background graph build linked vectors since the last checkpoint. */
  private graphProgressed(): boolean {
    for (const [name, index] of this.options.indexes) {
      if (index.stats().indexedCount !== this.indexedCounts.get(name)) return true;
    }
    return false;
  }

  private graphComplete(): boolean {
    for (const index of this.options.indexes.values()) {
      const stats = index.stats();
      if (stats.indexedCount < stats.count) return false;
    }
    return true;
  }

  /**
   * Saves every vector index tagged with the last operation, then trims the log up to it. Runs
   * in the write queue, so the kernel state is exactly the state after that operation. Returns
   * false when nothing was saved.
   */
  checkpoint(reason: string): Promise<boolean> {
    const { name, directory, binding, indexes, store, queue, logger } = this.options;
    return queue.run(async () => {
      if (this.options.isDeleting()) return false;
      if (this.fault) {
        logger.warn({ collection: name, err: this.fault }, 'checkpoint skipped: a kernel update failed; the next start replays the log');
        return false;
      }
      const covered = this.lastOperation;
      if (covered === this.checkpointedOperation && this.operationsSinceCheckpoint === 0 && !this.graphProgressed()) return false;
      const started = performance.now();
      await mkdir(directory, { recursive: true });
      const indexedCounts = new Map<string, number>();
      this.saving = true;
      try {
        for (const [vectorName, index] of indexes) {
          // Counted before saving: a save never holds less than this, so no progress is missed.
          indexedCounts.set(vectorName, index.stats().indexedCount);
          await index.save(checkpointPath(directory, vectorName), covered, binding);
        }
      } finally {
        this.saving = false;
      }
      await this.options.sparse?.save(directory, covered, binding);
      for (const [vectorName, count] of indexedCounts) this.indexedCounts.set(vectorName, count);
      this.checkpointedOperation = covered;
      this.operationsSinceCheckpoint = 0;
      // Only after every index of the collection durably covers `covered` may the log shrink.
      await store.trimLog(covered);
      const durationMs = performance.now() - started;
      this.lastSaved = { atMs: Date.now(), durationMs };
      this.savedCount += 1;
      logger.info({ collection: name, operation_id: covered, reason, elapsed_ms: Math.round(durationMs) }, 'checkpoint saved');
      return true;
    });
  }
}
