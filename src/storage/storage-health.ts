// The store's health (docs/durability.md): every write goes through `guardedWrite`, which
// refuses early when free space on storage.path is below storage.free_space_reserve_bytes
// (before LevelDB reaches its sticky error state), and after a write failed with an I/O error
// closes and reopens the store before the next write — LevelDB re-runs its recovery, every
// acknowledged write is kept, and the store's sticky background error is gone — so the server
// heals by itself once space is freed. The counters are read by `GET /` (`storage`) and by the
// metrics (src/monitoring/storage-metrics.ts), both through Engine.storageStatus.
import { randomBytes } from 'node:crypto';
import { rm, statfs, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ClassicLevel } from 'classic-level';
import type { Logger } from 'pino';
import { publicCause } from '../errors.js';

// Not database.ts's alias: that module imports this one.
type Database = ClassicLevel<Buffer, Buffer>;

/** How long one free-space reading is trusted: bounds the cost to one statfs per interval. */
const freeSpaceCacheMilliseconds = 1000;

/** A write refused before it reached the store; the write path prefixes the operation. */
export class InsufficientStorageError extends Error {
  override readonly name = 'InsufficientStorageError';
  readonly code = 'QUIVER_INSUFFICIENT_STORAGE';
}

/** Operations a torn log tail lost (leveldb-log.ts), per collection number. */
export interface LostOperations {
  collection: number;
  operationIds: number[];
}

/** The storage status of `GET /` (docs/api.md §3, docs/durability.md). */
export interface StorageStatus {
  /** `ok`, `degraded` (writes refused: low space or a failed reopen) or `recovered_with_loss` (a torn log tail at start). */
  state: 'ok' | 'degraded' | 'recovered_with_loss';
  free_bytes: number | null;
  free_space_reserve_bytes: number;
  writes_refused_low_space: number;
  write_io_errors: number;
  reopens: number;
  reopen_failures: number;
  last_error: string | null;
  torn_log_tail: { lost_operations: LostOperations[]; lost_bytes: number } | null;
}

export interface StorageHealthOptions {
  directory: string;
  freeSpaceReserveBytes: number;
  logger?: Logger;
}

function isStorageFailure(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return code === 'LEVEL_IO_ERROR' || code === 'ENOSPC' || code === 'EROFS' || code === 'EIO' || /^IO error|No space left|Read-only file system/i.test(message);
}

export class StorageHealth {
  private freeBytes: number | null = null;
  private freeBytesReadAt = -Infinity;
  private needsReopen = false;
  private reopening: Promise<void> | undefined;
  private lowSpace = false;
  private readonly counters = { writesRefusedLowSpace: 0, writeIoErrors: 0, reopens: 0, reopenFailures: 0 };
  private lastError: string | null = null;
  private tornLog: StorageStatus['torn_log_tail'] = null;

  constructor(
    private readonly database: Database,
    private readonly options: StorageHealthOptions,
  ) {}

  /** Start-up found a torn tail of the store's log (database.ts). */
  recordTornLog(lost: LostOperations[], lostBytes: number): void {
    this.tornLog = { lost_operations: lost, lost_bytes: lostBytes };
  }

  private async readFreeBytes(fresh: boolean): Promise<number | null> {
    const now = performance.now();
    if (!fresh && now - this.freeBytesReadAt < freeSpaceCacheMilliseconds) return this.freeBytes;
    try {
      const stats = await statfs(this.options.directory);
      this.freeBytes = stats.bavail * stats.bsize;
    } catch {
      this.freeBytes = null;
    }
    this.freeBytesReadAt = now;
    return this.freeBytes;
  }

  /** A free-space reading at most one cache interval old (for a status answer). */
  async refreshFreeSpace(): Promise<void> {
    await this.readFreeBytes(false);
  }

  private async assertSpace(): Promise<void> {
    const reserve = this.options.freeSpaceReserveBytes;
    if (reserve === 0 && !this.needsReopen) return;
    // After a failure every write reads afresh: space may just have been freed.
    const free = await this.readFreeBytes(this.needsReopen || this.lowSpace);
    if (free === null || free >= reserve) {
      this.lowSpace = false;
      return;
    }
    this.lowSpace = true;
    this.counters.writesRefusedLowSpace += 1;
    throw new InsufficientStorageError(
      `insufficient storage: ${free} bytes free on the data volume, below the reserve of ${reserve} bytes (storage.free_space_reserve_bytes); free space to resume writes`,
    );
  }

  /** Close and open again: LevelDB replays its log into a fresh state without the sticky error. */
  private async reopen(): Promise<void> {
    if (this.reopening) return this.reopening;
    this.reopening = (async () => {
      // A file system that refuses writes (read-only, still full) would make the open fail and
      // take the reads down with it: probe first, and keep the open store for reads.
      const probe = join(this.options.directory, `.quiver-tmp-write-probe-${randomBytes(4).toString('hex')}`);
      await writeFile(probe, Buffer.alloc(4096));
      await rm(probe, { force: true });
      try {
        await this.database.close();
        await this.database.open();
      } catch (error) {
        this.counters.reopenFailures += 1;
        this.options.logger?.error({ err: error }, 'the store could not be reopened after an I/O error; the next write tries again');
        throw error;
      }
      this.counters.reopens += 1;
      this.needsReopen = false;
      this.options.logger?.warn('the store was reopened after an I/O error: writes go on');
    })();
    try {
      await this.reopening;
    } finally {
      this.reopening = undefined;
    }
  }

  /** Runs one store write under the checks above. */
  async write<T>(write: () => Promise<T>): Promise<T> {
    await this.assertSpace();
    // Only after an I/O error (a failed reopen leaves it set): a store closed on purpose, as at
    // shutdown, is never opened again from here.
    if (this.needsReopen) await this.reopen();
    try {
      return await write();
    } catch (error) {
      if (isStorageFailure(error)) {
        this.counters.writeIoErrors += 1;
        this.needsReopen = true;
        // GET / is public: the class of the cause, never the path (the log has the whole error).
        this.lastError = publicCause(error);
        this.options.logger?.error({ err: error }, 'a store write failed with an I/O error: the store is reopened before the next write');
      }
      throw error;
    }
  }

  status(): StorageStatus {
    const degraded = this.needsReopen || this.lowSpace;
    return {
      state: degraded ? 'degraded' : this.tornLog ? 'recovered_with_loss' : 'ok',
      free_bytes: this.freeBytes,
      free_space_reserve_bytes: this.options.freeSpaceReserveBytes,
      writes_refused_low_space: this.counters.writesRefusedLowSpace,
      write_io_errors: this.counters.writeIoErrors,
      reopens: this.counters.reopens,
      reopen_failures: this.counters.reopenFailures,
      last_error: this.lastError,
      torn_log_tail: this.tornLog,
    };
  }
}

const healthByDatabase = new WeakMap<object, StorageHealth>();

/** Attaches health tracking to a newly opened store (database.ts). */
export function trackStorageHealth(database: Database, options: StorageHealthOptions): StorageHealth {
  const health = new StorageHealth(database, options);
  healthByDatabase.set(database, health);
  return health;
}

export function storageHealthOf(database: object): StorageHealth | undefined {
  return healthByDatabase.get(database);
}

/** Every store write goes through here (collection-store.ts, collection-registry.ts). */
export async function guardedWrite<T>(database: object, write: () => Promise<T>): Promise<T> {
  const health = healthByDatabase.get(database);
  return health ? health.write(write) : write();
}

