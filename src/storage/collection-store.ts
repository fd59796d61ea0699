// One collection's slice of classic-level: the only way the engine reads or writes its points,
// stored vectors, operation log, state and extension records. A write is gathered in a
// CollectionBatch and committed as ONE atomic batch together with its log entry and the new
// last operation id, so a write is either wholly in the store or not at all.
import type { AbstractBatchOperation } from 'abstract-level';
import { parseJsonBytes } from '../json/parse.js';
import { serializeJson } from '../json/serialize.js';
import { decodePointIdBytes, encodePointIdBytes, type PointId } from '../points/ids.js';
import type { Database } from './database.js';
import { guardedWrite } from './storage-health.js';
import {
  collectionPart,
  collectionPartRange,
  collectionStateKey,
  extensionKey,
  extensionPrefix,
  operationIdOfKey,
  operationKey,
  parseVectorKey,
  pointIdBytesOfKey,
  pointKey,
  prefixEnd,
  sparseVectorKey,
  vectorKey,
} from './keys.js';
import { decodeOperation, encodeOperation, type OperationEntry } from './operation-log.js';
import { checkedPointRecord, decodeCollectionState, decodePointRecord, encodeCollectionState, encodePointRecord, encodeVectorRecord, type StoredPoint } from './point-records.js';
import { decodeSparseRecord, encodeSparseRecord, type StoredSparseVector } from './sparse-records.js';

type BatchOperation = AbstractBatchOperation<Database, Buffer, Buffer>;

/** Extension records carry their own format byte, like every stored value. */
const extensionFormat = 1;

/** How many records one iterator step reads: bounded memory however large the collection. */
const readChunk = 1024;

/** The changes of one write, gathered before anything touches the store. */
export class CollectionBatch {
  readonly operations: BatchOperation[] = [];

  constructor(private readonly collectionNumber: number) {}

  putPoint(id: PointId, point: StoredPoint): void {
    this.operations.push({ type: 'put', key: pointKey(this.collectionNumber, encodePointIdBytes(id)), value: encodePointRecord(point) });
  }

  deletePoint(id: PointId): void {
    this.operations.push({ type: 'del', key: pointKey(this.collectionNumber, encodePointIdBytes(id)) });
  }

  putVector(slot: number, vectorName: string, vector: Float32Array): void {
    this.operations.push({ type: 'put', key: vectorKey(this.collectionNumber, slot, vectorName), value: encodeVectorRecord(vector) });
  }

  deleteVector(slot: number, vectorName: string): void {
    this.operations.push({ type: 'del', key: vectorKey(this.collectionNumber, slot, vectorName) });
  }

  putSparseVector(slot: number, vectorName: string, vector: StoredSparseVector): void {
    this.operations.push({ type: 'put', key: sparseVectorKey(this.collectionNumber, slot, vectorName), value: encodeSparseRecord(vector) });
  }

  deleteSparseVector(slot: number, vectorName: string): void {
    this.operations.push({ type: 'del', key: sparseVectorKey(this.collectionNumber, slot, vectorName) });
  }

  /** `value` is stored as JSON (bigints allowed) behind the extension format byte. */
  putExtension(namespace: string, key: string, value: unknown): void {
    const body = Buffer.from(serializeJson(value), 'utf8');
    this.operations.push({ type: 'put', key: extensionKey(this.collectionNumber, namespace, key), value: Buffer.concat([Buffer.from([extensionFormat]), body]) });
  }

  deleteExtension(namespace: string, key: string): void {
    this.operations.push({ type: 'del', key: extensionKey(this.collectionNumber, namespace, key) });
  }
}

/** A point record as read back, with its id decoded. */
export interface StoredPointWithId extends StoredPoint {
  id: PointId;
}

export class CollectionStore {
  constructor(
    private readonly database: Database,
    readonly collectionNumber: number,
    private readonly options: { fsync: boolean },
  ) {}

  newBatch(): CollectionBatch {
    return new CollectionBatch(this.collectionNumber);
  }

  /**
   * Writes `batch`, the log entry of `operationId` and the new last operation id as one atomic
   * classic-level batch (synced when configured). Resolves once it is durable; on failure
   * nothing of it is in the store.
   */
  async commit(batch: CollectionBatch, operationId: number, entry: OperationEntry): Promise<void> {
    await guardedWrite(this.database, async () => {
      // An array batch waits for a store being reopened (storage-health.ts); a chained one must be asked to.
      if (this.database.status === 'opening') await this.database.open();
      // A chained batch, not `database.batch(array)`: abstract-level clones and re-validates
      // every operation of an array batch, which cost ~10x more JS time per record than the
      // chained form (bench/README.md, "Profile"); both commit one atomic LevelDB WriteBatch.
      const chained = this.database.batch();
      for (const operation of batch.operations) {
        if (operation.type === 'put') chained.put(operation.key, operation.value);
        else chained.del(operation.key);
      }
      chained.put(operationKey(this.collectionNumber, operationId), encodeOperation(entry));
      chained.put(collectionStateKey(this.collectionNumber), encodeCollectionState(operationId));
      return chained.write({ sync: this.options.fsync });
    });
  }

  /** The last operation id committed; 0 for a collection never written. */
  async lastOperationId(): Promise<number> {
    const value = await this.database.get(collectionStateKey(this.collectionNumber));
    return value === undefined ? 0 : decodeCollectionState(value).lastOperationId;
  }

  /** Every stored point, in key order, a chunk at a time. */
  async *points(): AsyncGenerator<StoredPointWithId[]> {
    const iterator = this.database.iterator(collectionPartRange(this.collectionNumber, collectionPart.point));
    try {
      for (;;) {
        const entries = await iterator.nextv(readChunk);
        if (entries.length === 0) return;
        yield entries.map(([key, value]) => ({ id: decodePointIdBytes(pointIdBytesOfKey(key)), ...decodePointRecord(value) }));
      }
    } finally {
      await iterator.close();
    }
  }

  /**
   * Every stored point as raw bytes, a chunk at a time: the id key bytes and the checked point
   * record (point-records.ts). Start-up's path: nothing is decoded here, so loading a point makes
   * no object beyond the store's own key and value buffers (docs/architecture.md §21).
   */
  async *pointRecords(): AsyncGenerator<{ idBytes: Buffer; record: Buffer }[]> {
    const iterator = this.database.iterator(collectionPartRange(this.collectionNumber, collectionPart.point));
    try {
      for (;;) {
        const entries = await iterator.nextv(readChunk);
        if (entries.length === 0) return;
        yield entries.map(([key, value]) => ({ idBytes: pointIdBytesOfKey(key) as Buffer, record: checkedPointRecord(value) }));
      }
    } finally {
      await iterator.close();
    }
  }

  /** The stored point of `id`, or undefined. */
  async point(id: PointId): Promise<StoredPoint | undefined> {
    const value = await this.database.get(pointKey(this.collectionNumber, encodePointIdBytes(id)));
    return value === undefined ? undefined : decodePointRecord(value);
  }

  /** Every stored vector of `vectorName` as raw records (see point-records.ts), a chunk at a time. */
  async *vectors(vectorName: string): AsyncGenerator<{ slot: number; record: Uint8Array }[]> {
    const iterator = this.database.iterator(collectionPartRange(this.collectionNumber, collectionPart.vector));
    try {
      for (;;) {
        const entries = await iterator.nextv(readChunk);
        if (entries.length === 0) return;
        const chunk: { slot: number; record: Uint8Array }[] = [];
        for (const [key, value] of entries) {
          const parsed = parseVectorKey(key);
          if (parsed.vectorName === vectorName) chunk.push({ slot: parsed.slot, record: value });
        }
        if (chunk.length > 0) yield chunk;
      }
    } finally {
      await iterator.close();
    }
  }

  /** The raw vector records of `slots` under `vectorName`, in order; undefined where none is stored. */
  vectorRecords(slots: readonly number[], vectorName: string): Promise<(Uint8Array | undefined)[]> {
    return this.database.getMany(slots.map((slot) => vectorKey(this.collectionNumber, slot, vectorName)));
  }

  /** Every stored sparse vector of `vectorName`, decoded, a chunk at a time. */
  async *sparseVectors(vectorName: string): AsyncGenerator<{ slot: number; vector: StoredSparseVector }[]> {
    const iterator = this.database.iterator(collectionPartRange(this.collectionNumber, collectionPart.sparseVector));
    try {
      for (;;) {
        const entries = await iterator.nextv(readChunk);
        if (entries.length === 0) return;
        const chunk: { slot: number; vector: StoredSparseVector }[] = [];
        for (const [key, value] of entries) {
          const parsed = parseVectorKey(key);
          if (parsed.vectorName === vectorName) chunk.push({ slot: parsed.slot, vector: decodeSparseRecord(value) });
        }
        if (chunk.length > 0) yield chunk;
      }
    } finally {
      await iterator.close();
    }
  }

  /** The sparse vectors of `slots` under `vectorName`, in order; undefined where none is stored. */
  async sparseVectorRecords(slots: readonly number[], vectorName: string): Promise<(StoredSparseVector | undefined)[]> {
    const values = await this.database.getMany(slots.map((slot) => sparseVectorKey(this.collectionNumber, slot, vectorName)));
    return values.map((value) => (value === undefined ? undefined : decodeSparseRecord(value)));
  }

  /** slot -> the last logged operation after `afterOperationId` that touched it. */
  async slotsTouchedAfter(afterOperationId: number): Promise<Map<number, number>> {
    const touched = new Map<number, number>();
    for await (const [key, value] of this.database.iterator(collectionPartRange(this.collectionNumber, collectionPart.operation))) {
      const operationId = operationIdOfKey(key);
      if (operationId <= afterOperationId) continue;
      for (const slot of decodeOperation(value).slots) touched.set(slot, operationId);
    }
    return touched;
  }

  /** The ids of the logged operations still in the store, ascending. */
  async loggedOperationIds(): Promise<number[]> {
    const ids: number[] = [];
    for await (const key of this.database.keys(collectionPartRange(this.collectionNumber, collectionPart.operation))) ids.push(operationIdOfKey(key));
    return ids;
  }

  /** Removes the log entries up to and including `operationId` (only once a checkpoint covers them). */
  trimLog(operationId: number): Promise<void> {
    return guardedWrite(this.database, () => this.database.clear({ gte: operationKey(this.collectionNumber, 0), lte: operationKey(this.collectionNumber, operationId) }));
  }

  /** Every extension record of `namespace`: key -> the JSON value put by a batch. */
  async extension(namespace: string): Promise<Map<string, unknown>> {
    const prefix = extensionPrefix(this.collectionNumber, namespace);
    const records = new Map<string, unknown>();
    for await (const [key, value] of this.database.iterator({ gte: prefix, lt: prefixEnd(prefix) })) {
      if (value[0] !== extensionFormat) throw new Error(`extension record ${namespace}: unsupported format version ${value[0]}`);
      records.set(key.subarray(prefix.length).toString('utf8'), parseJsonBytes(value.subarray(1)));
    }
    return records;
  }
}
