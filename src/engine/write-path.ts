// Every write of one collection, in one shape: in queue order, `prepare` turns the current
// state into a batch (and may throw a 4xx: nothing is written then), the store commits the
// batch atomically with the log entry and the new last operation id, `commit` updates memory,
// `apply` updates the kernel. `wait: false` answers once the batch is durable; `wait: true`
// after the kernel too. A write is acknowledged only once it is in the store.
import type { Logger } from 'pino';
import { errors } from '../errors.js';
import { serializeJson } from '../json/serialize.js';
import type { SparseVector } from '../native/sparse-index-contract.js';
import type { VectorIndex } from '../native/vector-index.js';
import { upsertRows } from './multi-vector-index.js';
import { formatPointId, pointIdKey, type PointId } from '../points/ids.js';
import type { Payload } from '../points/selectors.js';
import type { CollectionBatch, CollectionStore } from '../storage/collection-store.js';
import type { OperationKind } from '../storage/operation-log.js';
import type { Checkpointer } from './checkpointer.js';
import type { InFlightVectors } from './in-flight-vectors.js';
import { samePayload, withPayload, withVersion, type PointEntry, type PointTable } from './point-table.js';
import type { PointSelector } from './point-selection.js';
import { appliedSequenceKey, appliedSequenceNamespace, currentAppliedSequence } from './applied-sequence.js';
import { WriteDraft, withinOperation, type DraftOperation, type DraftPlan, type StagedPoint } from './write-draft.js';
import type { SparseChange, SparseVectors } from './sparse-vectors.js';
import type { WriteQueue } from './write-queue.js';
import type { PreparedPoint, UpdateMode, VectorUpdate } from './write-types.js';

export type { PreparedPoint, UpdateMode, VectorUpdate } from './write-types.js';

export interface WriteResult {
  operation_id: number;
  status: 'acknowledged' | 'completed';
}

export type FailedOperationName = Parameters<typeof errors.internal>[0];

/** Told of every payload change: `before` undefined = new point, `after` undefined = deleted. */
export interface PayloadChange {
  slot: number;
  id: PointId;
  before: Payload | undefined;
  after: Payload | undefined;
}

export interface WritePathOptions {
  /** The collection's name, for logs. */
  name: string;
  store: CollectionStore;
  queue: WriteQueue;
  table: PointTable;
  indexes: ReadonlyMap<string, VectorIndex>;
  inFlight: InFlightVectors;
  /** The sparse vectors: stored in the same batch, applied after the dense ones. */
  sparse: SparseVectors;
  checkpointer: Checkpointer;
  maxPayloadBytes: number;
  /** 412 once the collection is marked for deletion. */
  assertOperable: () => void;
  /** The live points a filter accepts, in the write queue; may throw a 400 for a bad filter. */
  selectByFilter: (filter: unknown, field: string) => Iterable<PointEntry>;
  /** Whether a filter accepts one staged point (batches, update_filter); may throw a 400. */
  matchesPoint: (filter: unknown, point: StagedPoint, field: string) => boolean;
  /** Told of every payload change once it is committed to memory. */
  payloadChanged: (change: PayloadChange) => void;
  /** Told once a write's memory changes are in (commit) and again once the kernel has it (apply). */
  stateChanged: () => void;
  logger: Logger;
}

/** The sparse side of a staged write's plan, in the shape SparseVectors takes. */
function sparseChanges(plan: DraftPlan): SparseChange[] {
  return plan.written.filter((change) => change.sparse.size > 0).map((change) => ({ slot: change.entry.slot, vectors: change.sparse }));
}

interface WriteSteps<Plan> {
  prepare(operationId: number, batch: CollectionBatch): { plan: Plan; kind: OperationKind; slots: number[]; rollback?: () => void };
  commit(plan: Plan, operationId: number): void;
  apply?(plan: Plan): Promise<void>;
  /** A schema change (index, vector removal): never refused by a full queue (write-queue.ts). */
  unbounded?: true;
}

export class WritePath {
  constructor(private readonly options: WritePathOptions) {}

  private async write<Plan>(operation: FailedOperationName, wait: boolean, steps: WriteSteps<Plan>): Promise<WriteResult> {
    const { assertOperable, checkpointer, store, queue, logger, name } = this.options;
    assertOperable();
    // Cluster mode: the log position being applied is stored with the write (applied-sequence.ts).
    const appliedSequence = currentAppliedSequence(name);
    let acknowledge: (operationId: number) => void = () => undefined;
    const written = new Promise<number>((resolve) => {
      acknowledge = resolve;
    });
    const task = async (): Promise<number> => {
      assertOperable();
      const operationId = checkpointer.lastOperationId + 1;
      const batch = store.newBatch();
      const prepared = steps.prepare(operationId, batch);
      if (appliedSequence !== undefined) batch.putExtension(appliedSequenceNamespace, appliedSequenceKey, appliedSequence);
      try {
        await store.commit(batch, operationId, { kind: prepared.kind, slots: prepared.slots });
      } catch (error) {
        prepared.rollback?.();
        throw errors.internal(operation, error);
      }
      checkpointer.recordWrite(operationId);
      try {
        steps.commit(prepared.plan, operationId);
      } finally {
        // Even a commit that threw part-way may have changed what reads see.
        this.options.stateChanged();
      }
      acknowledge(operationId);
      if (steps.apply) {
        try {
          await steps.apply(prepared.plan);
          this.options.stateChanged();
        } catch (error) {
          this.options.stateChanged();
          // The batch is durable, so a restart replays it; until then the kernel is behind.
          checkpointer.recordKernelFault(error as Error);
          logger.error({ err: error, collection: name, operation_id: operationId }, 'kernel update failed after the write was stored');
          throw errors.internal(operation, error);
        }
      }
      checkpointer.afterWrite();
      return operationId;
    };
    // Client writes are refused with a 503 when the queue is full (write-queue.ts).
    const done = steps.unbounded ? queue.run(task) : queue.runBounded(task);
    if (wait) return { operation_id: await done, status: 'completed' };
    done.catch(() => undefined);
    const operationId = await Promise.race([written, done]);
    return { operation_id: operationId, status: 'acknowledged' };
  }

  /** Upsert (list or batch form, already checked): each point replaced whole. */
  upsert(requested: PreparedPoint[], mode: UpdateMode, wait: boolean): Promise<WriteResult> {
    const { table, indexes, inFlight, sparse } = this.options;
    // The same id twice in one request: the last one wins, as in Qdrant.
    const points = [...new Map(requested.map((point) => [point.key, point])).values()];
    interface Change {
      point: PreparedPoint;
      previous: PointEntry | undefined;
      entry: PointEntry;
      sparse: SparseChange;
    }
    return this.write<Change[]>('Upsert', wait, {
      prepare: (operationId, batch) => {
        const changes: Change[] = [];
        const allocated: number[] = [];
        try {
          for (const point of points) {
            const previous = table.byKey(point.key);
            if (mode === 'insert_only' && previous) continue;
            if (mode === 'update_only' && !previous) continue;
            let slot = previous?.slot;
            if (slot === undefined) {
              slot = table.allocateSlot();
              allocated.push(slot);
            }
            const entry: PointEntry = { id: point.id, key: point.key, slot, version: operationId, payload: point.payload };
            batch.putPoint(point.id, { slot, version: operationId, payloadJson: point.payloadJson });
            for (const name of indexes.keys()) {
              const vector = point.vectors.get(name);
              if (vector) batch.putVector(slot, name, vector);
              else if (previous) batch.deleteVector(slot, name);
            }
            const sparseVectors = new Map<string, SparseVector | null>();
            for (const name of sparse.names()) {
              const vector = point.sparse?.get(name);
              if (vector) sparseVectors.set(name, vector);
              else if (previous) sparseVectors.set(name, null);
            }
            const sparseChange = { slot, vectors: sparseVectors };
            sparse.addToBatch(batch, sparseChange);
            changes.push({ point, previous, entry, sparse: sparseChange });
          }
        } catch (error) {
          table.releaseSlots(allocated);
          throw error;
        }
        return {
          plan: changes,
          kind: 'upsert',
          slots: changes.map((change) => change.entry.slot),
          rollback: () => table.releaseSlots(allocated),
        };
      },
      commit: (changes) => {
        for (const { point, previous, entry } of changes) {
          const vectors = new Map<string, Float32Array | null>();
          for (const name of indexes.keys()) {
            const vector = point.vectors.get(name);
            if (vector) vectors.set(name, vector);
            else if (previous) vectors.set(name, null);
          }
          inFlight.set(entry.slot, vectors);
          table.set(entry, point.payloadJson);
          this.options.payloadChanged({ slot: entry.slot, id: entry.id, before: previous?.payload, after: entry.payload });
        }
        sparse.commit(changes.map((change) => change.sparse));
      },
      apply: (changes) => inFlight.applying(changes.map(({ entry }) => entry.slot), async () => {
        for (const [name, index] of indexes) {
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
          if (slots.length > 0) await upsertRows(index, Uint32Array.from(slots), rows);
          if (removed.length > 0) await index.delete(Uint32Array.from(removed));
        }
        await sparse.apply(changes.map((change) => change.sparse));
      }),
    });
  }

  /** The live points a selector names, in queue order. Unknown ids are skipped or a 404. */
  private resolveSelector(selector: PointSelector, missing: 'skip' | 'not_found', field: string): PointEntry[] {
    if (selector.kind === 'filter') return [...this.options.selectByFilter(selector.filter, field)];
    const entries: PointEntry[] = [];
    const seen = new Set<string>();
    for (const id of selector.ids) {
      const key = pointIdKey(id);
      if (seen.has(key)) continue;
      seen.add(key);
      const entry = this.options.table.byKey(key);
      if (entry) entries.push(entry);
      else if (missing === 'not_found') throw errors.pointNotFound(formatPointId(id));
    }
    return entries;
  }

  /** Deletes the selected points; unknown ids are not an error. */
  deletePoints(selector: PointSelector, wait: boolean): Promise<WriteResult> {
    const { table, indexes, sparse } = this.options;
    return this.write<PointEntry[]>('Delete', wait, {
      prepare: (_operationId, batch) => {
        const entries = this.resolveSelector(selector, 'skip', 'filter');
        for (const entry of entries) {
          batch.deletePoint(entry.id);
          for (const name of indexes.keys()) batch.deleteVector(entry.slot, name);
          sparse.deleteFromBatch(batch, entry.slot);
        }
        return { plan: entries, kind: 'delete', slots: entries.map((entry) => entry.slot) };
      },
      commit: (entries) => {
        for (const entry of entries) {
          table.remove(entry);
          this.options.payloadChanged({ slot: entry.slot, id: entry.id, before: entry.payload, after: undefined });
        }
      },
      apply: async (entries) => {
        if (entries.length === 0) return;
        const slots = Uint32Array.from(entries, (entry) => entry.slot);
        for (const index of indexes.values()) await index.delete(slots);
        await sparse.deleteSlots(slots);
        // Only now can no new search return these slots; running ones still might.
        table.retireSlots(slots);
      },
    });
  }

  /** Replaces only the named vectors given; every id must exist (404 otherwise). */
  updateVectors(points: VectorUpdate[], wait: boolean): Promise<WriteResult> {
    const { table, indexes, inFlight, sparse } = this.options;
    interface Change {
      entry: PointEntry;
      vectors: Map<string, Float32Array>;
      sparse: Map<string, SparseVector>;
    }
    return this.write<Change[]>('Upsert', wait, {
      prepare: (operationId, batch) => {
        const byKey = new Map<string, Change>();
        for (const point of points) {
          const key = pointIdKey(point.id);
          const previous = byKey.get(key)?.entry ?? table.byKey(key);
          if (!previous) throw errors.pointNotFound(formatPointId(point.id));
          const merged = new Map(byKey.get(key)?.vectors ?? []);
          for (const [name, vector] of point.vectors) merged.set(name, vector);
          const mergedSparse = new Map(byKey.get(key)?.sparse ?? []);
          for (const [name, vector] of point.sparse ?? []) mergedSparse.set(name, vector);
          byKey.set(key, { entry: withVersion(previous, operationId), vectors: merged, sparse: mergedSparse });
        }
        const changes = [...byKey.values()];
        for (const { entry, vectors, sparse: sparseVectors } of changes) {
          batch.putPoint(entry.id, { slot: entry.slot, version: operationId, payloadJson: serializeJson(entry.payload) });
          for (const [name, vector] of vectors) batch.putVector(entry.slot, name, vector);
          sparse.addToBatch(batch, { slot: entry.slot, vectors: sparseVectors });
        }
        return { plan: changes, kind: 'update_vectors', slots: changes.map((change) => change.entry.slot) };
      },
      commit: (changes) => {
        for (const { entry, vectors } of changes) {
          inFlight.set(entry.slot, new Map(vectors));
          table.set(entry);
        }
        sparse.commit(changes.map((change) => ({ slot: change.entry.slot, vectors: change.sparse })));
      },
      apply: (changes) => inFlight.applying(changes.map(({ entry }) => entry.slot), async () => {
        for (const [name, index] of indexes) {
          const slots: number[] = [];
          const rows: Float32Array[] = [];
          for (const { entry, vectors } of changes) {
            const vector = vectors.get(name);
            if (!vector) continue;
            slots.push(entry.slot);
            rows.push(vector);
          }
          if (slots.length > 0) await upsertRows(index, Uint32Array.from(slots), rows);
        }
        await sparse.apply(changes.map((change) => ({ slot: change.entry.slot, vectors: change.sparse })));
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
    const { table } = this.options;
    interface Change {
      previous: PointEntry;
      entry: PointEntry;
      payloadJson: string;
    }
    return this.write<Change[]>('Payload operation', options.wait, {
      prepare: (operationId, batch) => {
        const entries = this.resolveSelector(selector, options.missing, 'filter');
        const changes: Change[] = [];
        for (const previous of entries) {
          const payload = transform(previous.payload, previous);
          const payloadJson = serializeJson(payload);
          this.checkPayloadSize(payloadJson, `payload of point ${formatPointId(previous.id)}`);
          const entry = withPayload(previous, payload, operationId);
          batch.putPoint(entry.id, { slot: entry.slot, version: operationId, payloadJson });
          changes.push({ previous, entry, payloadJson });
        }
        return { plan: changes, kind: 'payload', slots: [] };
      },
      commit: (changes) => {
        for (const { previous, entry, payloadJson } of changes) {
          table.set(entry, payloadJson);
          this.options.payloadChanged({ slot: entry.slot, id: entry.id, before: previous.payload, after: entry.payload });
        }
      },
    });
  }

  /**
   * Several operations as ONE atomic write (docs/api.md §10): staged in order on a draft (each
   * sees the earlier ones' effects), then one store batch with one operation id. A refused
   * operation refuses the whole write; `labelled` prefixes its message with `operations[i]`.
   */
  applyOperations(operations: readonly DraftOperation[], wait: boolean, labelled: boolean): Promise<WriteResult> {
    const { table, indexes, inFlight, sparse } = this.options;
    const single = operations.length === 1 ? operations[0]!.kind : undefined;
    const kind: OperationKind = single === undefined ? 'batch' : single === 'delete_vectors' ? 'update_vectors' : single;
    const failed: FailedOperationName = single === 'delete' ? 'Delete' : single === 'payload' ? 'Payload operation' : 'Upsert';
    return this.write<DraftPlan>(failed, wait, {
      prepare: (operationId, batch) => {
        const draft = new WriteDraft(
          {
            table,
            vectorNames: [...indexes.keys()],
            sparseNames: sparse.names(),
            hasStoredVector: (slot, name) => (sparse.isSparse(name) ? sparse.has(slot, name) : (indexes.get(name)?.has(slot) ?? false)),
            selectByFilter: this.options.selectByFilter,
            matchesPoint: this.options.matchesPoint,
            checkPayloadSize: (payloadJson, field) => this.checkPayloadSize(payloadJson, field),
          },
          operationId,
        );
        try {
          operations.forEach((operation, position) => {
            try {
              draft.stage(operation);
            } catch (error) {
              throw labelled ? withinOperation(position, error) : error;
            }
          });
        } catch (error) {
          table.releaseSlots(draft.allocatedSlots);
          throw error;
        }
        const { plan, slots } = draft.finish(batch);
        const created = plan.written.filter((change) => change.previous === undefined).map((change) => change.entry.slot);
        return { plan, kind, slots, rollback: () => table.releaseSlots(created) };
      },
      commit: (plan) => {
        for (const { previous, entry, vectors } of plan.written) {
          if (vectors.size > 0) inFlight.set(entry.slot, vectors);
          table.set(entry);
          if (previous === undefined || !samePayload(previous, entry)) this.options.payloadChanged({ slot: entry.slot, id: entry.id, before: previous?.payload, after: entry.payload });
        }
        for (const entry of plan.deleted) {
          table.remove(entry);
          this.options.payloadChanged({ slot: entry.slot, id: entry.id, before: entry.payload, after: undefined });
        }
        sparse.commit(sparseChanges(plan));
      },
      apply: (plan) => {
        const changedSlots = plan.written.filter((change) => change.vectors.size > 0).map((change) => change.entry.slot);
        return inFlight.applying(changedSlots, async () => {
          for (const [name, index] of indexes) {
            const slots: number[] = [];
            const rows: Float32Array[] = [];
            const removed: number[] = plan.deleted.map((entry) => entry.slot);
            for (const { entry, vectors } of plan.written) {
              const vector = vectors.get(name);
              if (vector) {
                slots.push(entry.slot);
                rows.push(vector);
              } else if (vector === null) removed.push(entry.slot);
            }
            if (slots.length > 0) await upsertRows(index, Uint32Array.from(slots), rows);
            if (removed.length > 0) await index.delete(Uint32Array.from(removed));
          }
          await sparse.apply(sparseChanges(plan));
          if (plan.deleted.length > 0) await sparse.deleteSlots(Uint32Array.from(plan.deleted, (entry) => entry.slot));
          // Only now can no new search return the deleted points' slots; running ones still might.
          if (plan.deleted.length > 0) table.retireSlots(plan.deleted.map((entry) => entry.slot));
        });
      },
    });
  }

  /**
   * Removes every stored vector of `vectorName` in one logged batch (docs/api.md §4.7), then runs
   * `change` (config record, memory, files). Always waited for. The log lists the slots that had
   * the vector, so a restart between the two re-applies them (as removed) over a checkpoint.
   */
  removeVectorData(vectorName: string, change: () => Promise<void>): Promise<WriteResult> {
    const { table, indexes, sparse } = this.options;
    return this.write<null>('Collection operation', true, {
      prepare: (_operationId, batch) => {
        const index = indexes.get(vectorName);
        const isSparse = sparse.isSparse(vectorName);
        const slots: number[] = [];
        for (const entry of table.values()) {
          if (isSparse) {
            batch.deleteSparseVector(entry.slot, vectorName);
            if (sparse.has(entry.slot, vectorName)) slots.push(entry.slot);
            continue;
          }
          batch.deleteVector(entry.slot, vectorName);
          if (index?.has(entry.slot)) slots.push(entry.slot);
        }
        return { plan: null, kind: 'update_vectors', slots };
      },
      commit: () => undefined,
      apply: change,
      unbounded: true,
    });
  }

  /** 400 when a payload's JSON is above config.limits.max_payload_bytes. */
  checkPayloadSize(payloadJson: string, field: string): void {
    const limit = this.options.maxPayloadBytes;
    if (payloadJson.length > limit || Buffer.byteLength(payloadJson, 'utf8') > limit) {
      throw errors.invalidField(field, `payload is larger than the limit of ${limit} bytes`);
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
      unbounded: true,
    });
  }
}
