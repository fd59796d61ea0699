// The engine's life cycle: initializing -> ready -> closed (or failed). The server listens
// before loading finishes, so health checks work; every other route asks `assertReady()`.
import type { Logger } from 'pino';
import { errors } from '../errors.js';
import { openDatabase, type Database } from '../storage/database.js';
import { storageHealthOf, type StorageStatus } from '../storage/storage-health.js';

export type EngineState = 'initializing' | 'ready' | 'failed' | 'closing' | 'closed';

export interface EngineOptions {
  dataDirectory: string;
  /** storage.free_space_reserve_bytes (src/storage/storage-health.ts). */
  freeSpaceReserveBytes?: number;
  logger: Logger;
}

/** A named start-up step, run in registration order once the database is open. */
export interface LifecycleStep {
  name: string;
  open(database: Database): Promise<void>;
  /** Called in reverse order at shutdown, before the database closes (flush, checkpoint). */
  close?(): Promise<void>;
}

export class Engine {
  private currentState: EngineState = 'initializing';
  private openedDatabase: Database | undefined;
  private readonly steps: LifecycleStep[] = [];
  private failure: Error | undefined;

  constructor(private readonly options: EngineOptions) {}

  get state(): EngineState {
    return this.currentState;
  }

  get isReady(): boolean {
    return this.currentState === 'ready';
  }

  /** The open database; only valid once ready (or inside a step's `open`). */
  get database(): Database {
    if (!this.openedDatabase) throw errors.engineNotInitialized();
    return this.openedDatabase;
  }

  /** Registers a step; must happen before `open()`. */
  addStep(step: LifecycleStep): void {
    if (this.currentState !== 'initializing' || this.openedDatabase) {
      throw new Error(`step ${step.name} registered after the engine started opening`);
    }
    this.steps.push(step);
  }

  /** Throws 412 `Engine not initialized` unless the engine is ready. */
  assertReady(): void {
    if (this.currentState !== 'ready') throw errors.engineNotInitialized();
  }

  async open(): Promise<void> {
    const started = performance.now();
    try {
      this.openedDatabase = await openDatabase({
        directory: this.options.dataDirectory,
        freeSpaceReserveBytes: this.options.freeSpaceReserveBytes,
        logger: this.options.logger,
      });
      for (const step of this.steps) {
        const stepStarted = performance.now();
        await step.open(this.openedDatabase);
        this.options.logger.info({ step: step.name, elapsed_ms: Math.round(performance.now() - stepStarted) }, 'start-up step done');
      }
      this.currentState = 'ready';
      this.options.logger.info({ elapsed_ms: Math.round(performance.now() - started) }, 'engine ready');
    } catch (error) {
      this.currentState = 'failed';
      this.failure = error as Error;
      this.options.logger.error({ err: error }, 'engine failed to start');
      throw error;
    }
  }

  /** Runs every step's close in reverse, then closes the database. Safe to call twice. */
  async close(): Promise<void> {
    if (this.currentState === 'closed' || this.currentState === 'closing') return;
    this.currentState = 'closing';
    for (const step of [...this.steps].reverse()) {
      try {
        await step.close?.();
      } catch (error) {
        this.options.logger.error({ err: error, step: step.name }, 'shutdown step failed');
      }
    }
    await this.openedDatabase?.close();
    this.currentState = 'closed';
  }

  /** The store's health (`GET /` `storage`), once it is open. */
  async storageStatus(): Promise<StorageStatus | undefined> {
    const health = this.openedDatabase ? storageHealthOf(this.openedDatabase) : undefined;
    if (!health) return undefined;
    await health.refreshFreeSpace();
    return health.status();
  }

  get startupFailure(): Error | undefined {
    return this.failure;
  }
}
