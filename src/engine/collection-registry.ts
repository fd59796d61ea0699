// The collections registry: names -> Collection, persisted as collection records in
// classic-level. Registered as an engine start-up step: it loads every collection (finishing any
// deletion a crash interrupted), runs the background checkpoint timer, and checkpoints at close.
// It builds every collection with the hooks it was given (collection-hooks.ts), and tells them
// once the collection's points are in memory.
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { native } from '../native/index.js';
import { errors } from '../errors.js';
import type { Database } from '../storage/database.js';
import { databaseIdOf } from '../storage/store-identity.js';
import { removeLeftoverTemporaryFiles } from '../storage/leftover-files.js';
import { guardedWrite } from '../storage/storage-health.js';
import { decodeJsonRecord, encodeJsonRecord } from '../storage/codec.js';
import { collectionDataRange, collectionNumberFromRecordKey, collectionRecordKey, collectionRecordRange, registryCounterKey } from '../storage/keys.js';
import {
  applyCollectionUpdate,
  buildCollectionConfig,
  ConfigProblem,
  describeCollectionConfig,
  type CollectionConfig,
} from './collection-config.js';
import type { CreateCollectionRequest, UpdateCollectionRequest } from './collection-request-schemas.js';
import { validateCollectionName } from './collection-name.js';
import { recoverCollection } from './collection-recovery.js';
import { Collection, type CollectionHooksFactory } from './collection.js';
import type { LifecycleStep } from './engine.js';
import { withoutVectorName, withVectorName, type VectorNameConfig } from './vector-name-config.js';
import type { WriteResult } from './write-path.js';
import { WriteQueue } from './write-queue.js';

const collectionRecordFormat = 1;
const counterFormat = 1;
/** Collections recovered at once at start-up (see open). */
const collectionLoadConcurrency = 2;

interface CollectionRecord {
  name: string;
  state: 'active' | 'deleting';
  config: CollectionConfig;
  /**
   * Random, chosen at create: with the database id it binds this collection's checkpoints, so
   * a later collection given the same number never loads them (docs/durability.md). Records
   * written before it existed get one at their first load.
   */
  incarnation?: string;
}

export interface RegistryOptions {
  config: Config;
  logger: Logger;
  /** Builds each collection's hooks (app.ts passes the filter module's). */
  hooks: CollectionHooksFactory;
}

function configProblemToError(error: unknown): unknown {
  if (error instanceof ConfigProblem) return errors.invalidField(error.field, error.message);
  return error;
}

export class CollectionRegistry {
  private database: Database | undefined;
  private readonly collections = new Map<string, Collection>();
  /**
   * Collections that failed to load at start, with the reason: listed, reported `red` by
   * info(), refused (500) by every other operation, deletable; the others serve regardless.
   */
  private readonly unloadable = new Map<string, { number: number; config: CollectionConfig; reason: string }>();
  /** Serialises create / update / delete so the records and the map never disagree. */
  private readonly changes = new WriteQueue();
  private checkpointTimer: NodeJS.Timeout | undefined;
  private nextNumber = 1;
  /** The store's id (store-identity.ts), part of every checkpoint binding. */
  private databaseId = '';
  /** Per collection number, its incarnation id. */
  private readonly incarnations = new Map<number, string>();
  private markKernelBound: () => void = () => undefined;
  /**
   * Resolves once the start's first collections to load have restored their points and wait
   * only on the kernel's checkpoint loads (or failed, or there are none; also when the start
   * fails). From then on the start's work on this thread is small, so main.ts loads the gRPC
   * stack (a quarter of a second of this thread) then instead of holding up the steps before it
   * (docs/architecture.md §21).
   */
  readonly kernelBound = new Promise<void>((resolve) => {
    this.markKernelBound = resolve;
  });

  constructor(private readonly options: RegistryOptions) {}

  /** The engine step: open loads every collection, close checkpoints them. */
  lifecycleStep(): LifecycleStep {
    return {
      name: 'collections',
      open: (database) => this.open(database),
      close: () => this.close(),
    };
  }

  /** A store write under the free-space and reopen-after-I/O-error checks (storage-health.ts). */
  private guarded<T>(write: () => Promise<T>): Promise<T> {
    return guardedWrite(this.store, write);
  }

  private get store(): Database {
    if (!this.database) throw errors.engineNotInitialized();
    return this.database;
  }

  private collectionDirectory(collectionNumber: number): string {
    return join(this.options.config.storage.path, 'collections', String(collectionNumber));
  }

  private newCollection(collectionNumber: number, name: string, config: CollectionConfig): Collection {
    return new Collection({
      number: collectionNumber,
      name,
      config,
      database: this.store,
      directory: this.collectionDirectory(collectionNumber),
      checkpointBinding: `${this.databaseId}/${this.incarnations.get(collectionNumber) ?? ''}`,
      settings: {
        fsync: this.options.config.storage.fsync,
        checkpointOperations: this.options.config.storage.checkpoint_operations,
        maxPayloadBytes: this.options.config.limits.max_payload_bytes,
        maxQueuedWrites: this.options.config.limits.max_queued_writes,
        maxMultivectorRows: this.options.config.limits.max_multivector_rows,
      },
      logger: this.options.logger,
      hooks: this.options.hooks,
    });
  }

  private async open(database: Database): Promise<void> {
    try {
      await this.openCollections(database);
    } finally {
      this.markKernelBound();
    }
  }

  private async openCollections(database: Database): Promise<void> {
    this.database = database;
    // Before any index exists: each reads the setting when it is made.
    native.setHugePages(this.options.config.storage.huge_pages);
    this.databaseId = await databaseIdOf(database);
    // The store's lock is held now: no other server can be writing these.
    const leftovers = await removeLeftoverTemporaryFiles(this.options.config.storage.path);
    if (leftovers.files > 0) this.options.logger.info(leftovers, 'removed temporary files left by an interrupted run');
    const counter = await database.get(registryCounterKey);
    if (counter !== undefined) this.nextNumber = decodeJsonRecord(counter, [counterFormat], 'collection counter').value as number;
    const records: { number: number; record: CollectionRecord }[] = [];
    for await (const [key, value] of database.iterator(collectionRecordRange)) {
      const record = decodeJsonRecord(value, [collectionRecordFormat], 'collection record').value as CollectionRecord;
      records.push({ number: collectionNumberFromRecordKey(key), record });
    }
    const loads: { number: number; record: CollectionRecord }[] = [];
    for (const { number, record } of records) {
      if (record.state === 'deleting') {
        // A crash interrupted this deletion: finish it before anything can see the collection.
        this.options.logger.info({ collection: record.name }, 'finishing an interrupted collection deletion');
        await this.removeCollectionData(number);
        continue;
      }
      loads.push({ number, record });
    }
    // Two collections load at a time: one's kernel checkpoint reads run on the addon's threads
    // while another's point records stream on this one (docs/architecture.md §21). `load` never
    // rejects (a failure leaves that collection unloadable), so one failure stops no other load.
    let next = 0;
    // `kernelBound` once the first collection of every loader waits only on the kernel.
    const firstLoadsWaiting: Promise<void>[] = [];
    const loader = async () => {
      let waiting: (() => void) | undefined;
      firstLoadsWaiting.push(new Promise<void>((resolve) => (waiting = resolve)));
      while (next < loads.length) {
        const { number, record } = loads[next++]!;
        await this.load(number, record, waiting);
        waiting = undefined;
      }
    };
    const loading = Array.from({ length: Math.min(collectionLoadConcurrency, loads.length) }, loader);
    void Promise.all(firstLoadsWaiting).then(() => this.markKernelBound());
    await Promise.all(loading);
    const interval_ms = this.options.config.storage.checkpoint_interval_seconds * 1000;
    this.checkpointTimer = setInterval(() => {
      for (const collection of this.collections.values()) collection.checkpointIfDue();
    }, interval_ms);
    this.checkpointTimer.unref();
  }

  /**
   * Loads one collection; a failure leaves it unloadable (logged), never stops the start.
   * `kernelBound` is called when only its checkpoint loads are left, and again when it is done
   * (a promise's resolve: the first call counts).
   */
  private async load(number: number, record: CollectionRecord, kernelBound?: () => void): Promise<void> {
    let collection: Collection | undefined;
    try {
      if (record.incarnation === undefined) {
        // A record from before incarnations: its checkpoints are unbound and get rebuilt once.
        record = { ...record, incarnation: randomUUID() };
        await this.guarded(() => this.store.put(collectionRecordKey(number), encodeJsonRecord(collectionRecordFormat, record), { sync: true }));
      }
      this.incarnations.set(number, record.incarnation!);
      collection = this.newCollection(number, record.name, record.config);
      const report = await recoverCollection(collection, this.options.logger, this.options.config.log.progress_interval_seconds * 1000, kernelBound);
      await collection.hooks.loaded();
      this.collections.set(record.name, collection);
      this.options.logger.info({ collection: record.name, ...report }, 'collection loaded');
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      this.options.logger.error({ err: error, collection: record.name }, `collection ${record.name} could not be loaded; the others serve`);
      await collection?.close({ checkpoint: false }).catch(() => undefined);
      this.unloadable.set(record.name, { number, config: record.config, reason });
    } finally {
      kernelBound?.();
    }
  }

  private async close(): Promise<void> {
    if (this.checkpointTimer) clearInterval(this.checkpointTimer);
    await this.changes.drain();
    for (const collection of this.collections.values()) {
      await collection.close({ checkpoint: !collection.isMarkedForDeletion });
    }
    this.collections.clear();
  }

  /** Names of the operable collections, sorted. */
  names(): string[] {
    return [...this.collections.values()]
      .filter((collection) => !collection.isMarkedForDeletion)
      .map((collection) => collection.name)
      .concat([...this.unloadable.keys()])
      .sort((left, right) => (left < right ? -1 : left > right ? 1 : 0));
  }

  /** The collection, 404 when it does not exist, 412 when it is marked for deletion. */
  get(name: string): Collection {
    this.assertLoaded(name);
    const collection = this.collections.get(name);
    if (!collection) throw errors.collectionNotFound(name);
    collection.assertOperable();
    return collection;
  }

  /** The collection or undefined (no 404); still 412 when marked for deletion. */
  find(name: string): Collection | undefined {
    this.assertLoaded(name);
    const collection = this.collections.get(name);
    collection?.assertOperable();
    return collection;
  }

  exists(name: string): boolean {
    if (this.unloadable.has(name)) return true;
    const collection = this.collections.get(name);
    return collection !== undefined && !collection.isMarkedForDeletion;
  }

  private assertLoaded(name: string): void {
    const failed = this.unloadable.get(name);
    if (failed) throw errors.collectionUnavailable(name, failed.reason);
  }

  /** CollectionInfo (docs/api.md §4.3); an unloadable collection is `red` with the reason. */
  info(name: string): Record<string, unknown> {
    const failed = this.unloadable.get(name);
    if (!failed) return this.get(name).info();
    let config: unknown;
    try {
      config = describeCollectionConfig(failed.config);
    } catch {
      config = failed.config;
    }
    return {
      status: 'red',
      optimizer_status: { error: `could not be loaded at start: ${failed.reason}` },
      warnings: [],
      indexed_vectors_count: 0,
      points_count: 0,
      segments_count: 0,
      config,
      payload_schema: {},
      update_queue: { length: 0 },
    };
  }

  /** Every operable collection. */
  all(): Collection[] {
    return [...this.collections.values()].filter((collection) => !collection.isMarkedForDeletion);
  }

  async create(name: string, request: CreateCollectionRequest): Promise<void> {
    validateCollectionName(name, this.options.config.limits.max_collection_name_length);
    let config: CollectionConfig | 'vectors_config_required';
    try {
      config = buildCollectionConfig(request, this.options.config.limits);
    } catch (error) {
      throw configProblemToError(error);
    }
    if (config === 'vectors_config_required') throw errors.vectorsConfigRequired();
    const checked = config;
    await this.changes.run(async () => {
      const existing = this.collections.get(name);
      if (existing?.isMarkedForDeletion) throw errors.collectionMarkedForDeletion(name);
      if (existing || this.unloadable.has(name)) throw errors.collectionExists(name);
      const number = this.nextNumber;
      const incarnation = randomUUID();
      this.incarnations.set(number, incarnation);
      const collection = this.newCollection(number, name, checked);
      // Under the storage checks too: its directory is the first thing a create writes.
      await this.guarded(() => collection.initializeEmpty());
      try {
        await this.guarded(() => this.store.batch(
          [
            { type: 'put', key: registryCounterKey, value: encodeJsonRecord(counterFormat, number + 1) },
            { type: 'put', key: collectionRecordKey(number), value: encodeJsonRecord(collectionRecordFormat, { name, state: 'active', config: checked, incarnation } satisfies CollectionRecord) },
          ],
          { sync: this.options.config.storage.fsync },
        ));
      } catch (error) {
        await collection.close({ checkpoint: false });
        throw errors.internal('Collection operation', error);
      }
      this.nextNumber = number + 1;
      this.collections.set(name, collection);
      try {
        await collection.hooks.loaded();
      } catch (error) {
        // The collection exists durably now; a hook's failure must not report otherwise.
        this.options.logger.error({ err: error, collection: name }, 'collection-created listener failed');
      }
    });
  }

  async update(name: string, request: UpdateCollectionRequest): Promise<void> {
    await this.changes.run(async () => {
      const collection = this.get(name);
      let next: CollectionConfig;
      try {
        next = applyCollectionUpdate(collection.config, request);
      } catch (error) {
        throw configProblemToError(error);
      }
      await this.guarded(() => this.store.put(collectionRecordKey(collection.number), encodeJsonRecord(collectionRecordFormat, { name, state: 'active', config: next, incarnation: this.incarnations.get(collection.number) } satisfies CollectionRecord), {
        sync: this.options.config.storage.fsync,
      }));
      const previous = collection.config;
      collection.setConfig(next);
      collection.rebuildGraphsChangedBy(previous);
    });
  }

  /** `PUT C/vectors/{vector_name}` (docs/api.md §4.7): the record and the collection change together. */
  async createVector(name: string, vectorName: string, request: VectorNameConfig): Promise<WriteResult> {
    return this.changes.run(async () => {
      const collection = this.get(name);
      let change: ReturnType<typeof withVectorName>;
      try {
        change = withVectorName(collection.config, vectorName, request, this.options.config.limits);
      } catch (error) {
        throw configProblemToError(error);
      }
      return collection.addVector(vectorName, change.config, change.kind, (config) => this.persistConfig(collection, config));
    });
  }

  /** `DELETE C/vectors/{vector_name}` (docs/api.md §4.7). */
  async deleteVector(name: string, vectorName: string): Promise<WriteResult> {
    return this.changes.run(async () => {
      const collection = this.get(name);
      let change: ReturnType<typeof withoutVectorName>;
      try {
        change = withoutVectorName(collection.config, vectorName);
      } catch (error) {
        throw configProblemToError(error);
      }
      return collection.removeVector(vectorName, change.config, (config) => this.persistConfig(collection, config));
    });
  }

  private async persistConfig(collection: Collection, config: CollectionConfig): Promise<void> {
    await this.guarded(() => this.store.put(collectionRecordKey(collection.number), encodeJsonRecord(collectionRecordFormat, { name: collection.name, state: 'active', config, incarnation: this.incarnations.get(collection.number) } satisfies CollectionRecord), {
      sync: this.options.config.storage.fsync,
    }));
  }

  /** True when it existed. Marks it (412 from then on), removes its data and files, drops it. */
  async delete(name: string): Promise<boolean> {
    return this.changes.run(async () => {
      const failed = this.unloadable.get(name);
      if (failed) {
        await this.removeCollectionData(failed.number);
        this.unloadable.delete(name);
        return true;
      }
      const collection = this.collections.get(name);
      if (!collection) return false;
      if (collection.isMarkedForDeletion) throw errors.collectionMarkedForDeletion(name);
      collection.markForDeletion();
      await this.guarded(() => this.store.put(
        collectionRecordKey(collection.number),
        encodeJsonRecord(collectionRecordFormat, { name, state: 'deleting', config: collection.config, incarnation: this.incarnations.get(collection.number) } satisfies CollectionRecord),
        { sync: this.options.config.storage.fsync },
      ));
      await collection.close({ checkpoint: false });
      await this.removeCollectionData(collection.number);
      this.collections.delete(name);
      return true;
    });
  }

  /** Keys, then files, then the record: a crash before the last step repeats the removal. */
  private async removeCollectionData(collectionNumber: number): Promise<void> {
    await this.guarded(() => this.store.clear(collectionDataRange(collectionNumber)));
    await rm(this.collectionDirectory(collectionNumber), { recursive: true, force: true });
    await this.guarded(() => this.store.del(collectionRecordKey(collectionNumber), { sync: this.options.config.storage.fsync }));
  }
}
