// For the engine's unit tests: one collection on a real classic-level store and the real
// kernel, in a fresh temporary directory, that can be closed and recovered like a restart.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino, type Logger } from 'pino';
import { loadConfig } from '../config.js';
import { openDatabase, type Database } from '../storage/database.js';
import { buildCollectionConfig, type CollectionConfig } from './collection-config.js';
import type { CreateCollectionRequest } from './collection-request-schemas.js';
import { recoverCollection, type RecoveryReport } from './collection-recovery.js';
import { Collection, type CollectionHooksFactory, type CollectionSettings } from './collection.js';

export interface TemporaryCollectionOptions {
  /** The create-collection body; default: one unnamed 2-dimensional Euclid vector. */
  request?: CreateCollectionRequest;
  settings?: Partial<CollectionSettings>;
  hooks?: CollectionHooksFactory;
}

export class TemporaryCollection {
  collection: Collection;
  readonly logger: Logger = pino({ level: 'silent' });

  private constructor(
    readonly directory: string,
    public database: Database,
    readonly config: CollectionConfig,
    private readonly settings: CollectionSettings,
    private readonly hooks: CollectionHooksFactory | undefined,
  ) {
    this.collection = this.build();
  }

  static async create(options: TemporaryCollectionOptions = {}): Promise<TemporaryCollection> {
    const directory = await mkdtemp(join(tmpdir(), 'quiver-engine-'));
    const database = await openDatabase({ directory });
    const built = buildCollectionConfig(options.request ?? { vectors: { size: 2, distance: 'Euclid' } }, loadConfig().limits);
    if (built === 'vectors_config_required') throw new Error('the test collection needs vectors');
    const settings: CollectionSettings = { fsync: false, checkpointOperations: 1_000_000, maxPayloadBytes: 1 << 20, ...options.settings };
    const temporary = new TemporaryCollection(directory, database, built, settings, options.hooks);
    await temporary.collection.initializeEmpty();
    return temporary;
  }

  /** This collection's directory (checkpoint files). */
  get collectionDirectory(): string {
    return join(this.directory, 'collections', '1');
  }

  private build(): Collection {
    return new Collection({
      number: 1,
      name: 'test',
      config: this.config,
      database: this.database,
      directory: this.collectionDirectory,
      settings: this.settings,
      logger: this.logger,
      ...(this.hooks ? { hooks: this.hooks } : {}),
    });
  }

  /**
   * A restart: the collection is closed (with a final checkpoint, or without one as after a
   * crash), the store reopened, and a new Collection recovered from it.
   */
  async restart(options: { checkpoint: boolean }): Promise<RecoveryReport> {
    await this.collection.close({ checkpoint: options.checkpoint });
    await this.database.close();
    this.database = await openDatabase({ directory: this.directory });
    this.collection = this.build();
    return recoverCollection(this.collection, this.logger);
  }

  async remove(): Promise<void> {
    await this.collection.close({ checkpoint: false });
    await this.database.close();
    await rm(this.directory, { recursive: true, force: true });
  }
}

/** A prepared point with an unnamed vector, as src/points/upsert-request.ts checks it. */
export function preparedPoint(id: number, vector: number[], payload: Record<string, unknown> = {}) {
  return { id, key: String(id), vectors: new Map([['', Float32Array.from(vector)]]), payload, payloadJson: JSON.stringify(payload) };
}
