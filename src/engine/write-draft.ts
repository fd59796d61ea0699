// A write made of several operations (POST .../points/batch, docs/api.md §10): each operation is
// staged against a draft of the collection's points, so a later operation sees the effects of
// the earlier ones (an upsert then a set_payload on the same id), and only the final difference
// between the draft and the committed table becomes the ONE store batch. A refused operation
// throws before anything is written, so the whole request leaves no trace (all or nothing).
// The single-operation forms that need staging (delete_vectors, update_filter) use it too.
// Sparse vectors are staged beside the dense ones and land in the same batch (docs/api.md §3.6).
import { errors, isQuiverError } from '../errors.js';
import { serializeJson } from '../json/serialize.js';
import { formatPointId, pointIdKey } from '../points/ids.js';
import type { Payload } from '../points/selectors.js';
import type { SparseVector } from '../points/sparse-vector.js';
import type { CollectionBatch } from '../storage/collection-store.js';
import type { PointSelector } from './point-selection.js';
import { withPayload, withVersion, type PointEntry, type PointTable } from './point-table.js';
import type { PreparedPoint, UpdateMode, VectorUpdate } from './write-types.js';

/** A point as a filter sees it while a write is staged: its staged entry and vector presence. */
export interface StagedPoint {
  entry: PointEntry;
  hasVector(name: string): boolean;
}

/** One operation of a staged write; `field` prefixes the messages of its filters. */
export type DraftOperation =
  | { kind: 'upsert'; points: PreparedPoint[]; mode: UpdateMode; updateFilter?: unknown; field: string }
  | { kind: 'delete'; selector: PointSelector; field: string }
  | { kind: 'payload'; selector: PointSelector; transform: (payload: Payload) => Payload; missing: 'skip' | 'not_found'; field: string }
  | { kind: 'update_vectors'; points: VectorUpdate[]; updateFilter?: unknown; field: string }
  | { kind: 'delete_vectors'; selector: PointSelector; names: string[]; field: string };

export interface DraftContext {
  table: PointTable;
  /** Every dense vector name of the collection. */
  vectorNames: readonly string[];
  /** Every sparse vector name of the collection. */
  sparseNames: readonly string[];
  /** Whether the committed point at `slot` has a vector (dense or sparse) under `name`. */
  hasStoredVector(slot: number, name: string): boolean;
  selectByFilter(filter: unknown, field: string): Iterable<PointEntry>;
  matchesPoint(filter: unknown, point: StagedPoint, field: string): boolean;
  checkPayloadSize(payloadJson: string, field: string): void;
}

/** A touched point: the committed entry, the staged one (undefined = deleted), changed vectors. */
interface DraftPoint {
  original: PointEntry | undefined;
  current: PointEntry | undefined;
  /** Per name: the new vector, or null = removed. Names not here keep the original's vector. */
  vectors: Map<string, Float32Array | null>;
  /** The same for sparse names. */
  sparse: Map<string, SparseVector | null>;
  /** A slot allocated for a point new in this write. */
  allocated?: number;
}

/** What the draft's commit and kernel steps need once the batch is durable. */
export interface DraftPlan {
  /** Points that exist after the write, with their changed vectors. */
  written: { previous: PointEntry | undefined; entry: PointEntry; vectors: Map<string, Float32Array | null>; sparse: Map<string, SparseVector | null> }[];
  /** Committed points the write deletes. */
  deleted: PointEntry[];
}

/** A point of no collection, to check a filter's shape by evaluating it once. */
const probePoint: PointEntry = { id: 0, key: '0', slot: 0, version: 0, payload: {} };

export class WriteDraft {
  private readonly points = new Map<string, DraftPoint>();

  constructor(
    private readonly context: DraftContext,
    private readonly operationId: number,
  ) {}

  /** The point under `key` as the draft has it now. */
  private current(key: string): PointEntry | undefined {
    const staged = this.points.get(key);
    return staged ? staged.current : this.context.table.byKey(key);
  }

  private touch(key: string): DraftPoint {
    let staged = this.points.get(key);
    if (!staged) {
      const original = this.context.table.byKey(key);
      staged = { original, current: original, vectors: new Map(), sparse: new Map() };
      this.points.set(key, staged);
    }
    return staged;
  }

  private hasVector(key: string, name: string): boolean {
    const staged = this.points.get(key);
    const changed = staged?.vectors.has(name) ? staged.vectors.get(name) : staged?.sparse.get(name);
    if (changed !== undefined) return changed !== null;
    const original = staged ? staged.original : this.context.table.byKey(key);
    if (!original || (staged && staged.current === undefined)) return false;
    return this.context.hasStoredVector(original.slot, name);
  }

  private view(entry: PointEntry): StagedPoint {
    return { entry, hasVector: (name) => this.hasVector(entry.key, name) };
  }

  /** True when there is no update filter or the point matches it. */
  private passes(updateFilter: unknown, entry: PointEntry, field: string): boolean {
    if (updateFilter === undefined || updateFilter === null) return true;
    return this.context.matchesPoint(updateFilter, this.view(entry), field);
  }

  /** The points a selector names in the draft's current state. */
  private select(selector: PointSelector, missing: 'skip' | 'not_found', field: string): PointEntry[] {
    const selected: PointEntry[] = [];
    if (selector.kind === 'ids') {
      const seen = new Set<string>();
      for (const id of selector.ids) {
        const key = pointIdKey(id);
        if (seen.has(key)) continue;
        seen.add(key);
        const entry = this.current(key);
        if (entry) selected.push(entry);
        else if (missing === 'not_found') throw errors.pointNotFound(formatPointId(id));
      }
      return selected;
    }
    // Committed points the draft has not touched are answered by the filter module (indexes);
    // touched ones are evaluated one by one on their staged state.
    for (const entry of this.context.selectByFilter(selector.filter, field)) {
      if (!this.points.has(entry.key)) selected.push(entry);
    }
    for (const staged of this.points.values()) {
      if (staged.current && this.context.matchesPoint(selector.filter, this.view(staged.current), field)) selected.push(staged.current);
    }
    return selected;
  }

  /** Stages one operation; throws (a 4xx) when it is refused. */
  stage(operation: DraftOperation): void {
    switch (operation.kind) {
      case 'upsert':
        return this.upsert(operation.points, operation.mode, operation.updateFilter, `${operation.field}update_filter`);
      case 'delete':
        for (const entry of this.select(operation.selector, 'skip', `${operation.field}filter`)) this.remove(entry.key);
        return;
      case 'payload':
        for (const entry of this.select(operation.selector, operation.missing, `${operation.field}filter`)) {
          const payload = operation.transform(entry.payload);
          this.context.checkPayloadSize(serializeJson(payload), `${operation.field}payload of point ${formatPointId(entry.id)}`);
          this.touch(entry.key).current = withPayload(entry, payload);
        }
        return;
      case 'update_vectors':
        return this.updateVectors(operation.points, operation.updateFilter, `${operation.field}update_filter`);
      case 'delete_vectors':
        for (const entry of this.select(operation.selector, 'skip', `${operation.field}filter`)) {
          const staged = this.touch(entry.key);
          for (const name of operation.names) {
            if (this.context.sparseNames.includes(name)) staged.sparse.set(name, null);
            else staged.vectors.set(name, null);
          }
        }
        return;
    }
  }

  private upsert(requested: PreparedPoint[], mode: UpdateMode, updateFilter: unknown, filterField: string): void {
    // The same id twice in one request: the last one wins, as in Qdrant.
    const points = [...new Map(requested.map((point) => [point.key, point])).values()];
    // A malformed filter is a 400 even when every point is new and it is never evaluated.
    if (updateFilter !== undefined && updateFilter !== null) this.context.matchesPoint(updateFilter, this.view(probePoint), filterField);
    for (const point of points) {
      const existing = this.current(point.key);
      if (mode === 'insert_only' && existing) continue;
      if (mode === 'update_only' && !existing) continue;
      // Qdrant: an existing point that does not match update_filter keeps its state; new points are inserted.
      if (existing && !this.passes(updateFilter, existing, filterField)) continue;
      const staged = this.touch(point.key);
      const slot = staged.original?.slot ?? staged.allocated ?? this.allocate(staged);
      staged.current = { id: point.id, key: point.key, slot, version: this.operationId, payload: point.payload };
      for (const name of this.context.vectorNames) staged.vectors.set(name, point.vectors.get(name) ?? null);
      // A whole-point upsert removes every sparse name it leaves out, as the direct path does.
      for (const name of this.context.sparseNames) staged.sparse.set(name, point.sparse?.get(name) ?? null);
    }
  }

  private allocate(staged: DraftPoint): number {
    staged.allocated = this.context.table.allocateSlot();
    return staged.allocated;
  }

  private updateVectors(points: VectorUpdate[], updateFilter: unknown, filterField: string): void {
    for (const point of points) {
      const key = pointIdKey(point.id);
      const existing = this.current(key);
      if (!existing) throw errors.pointNotFound(formatPointId(point.id));
      if (!this.passes(updateFilter, existing, filterField)) continue;
      const staged = this.touch(key);
      for (const [name, vector] of point.vectors) staged.vectors.set(name, vector);
      for (const [name, vector] of point.sparse ?? []) staged.sparse.set(name, vector);
      staged.current = withVersion(existing, existing.version);
    }
  }

  private remove(key: string): void {
    const staged = this.touch(key);
    staged.current = undefined;
    staged.vectors.clear();
    staged.sparse.clear();
    if (!staged.original) return;
    for (const name of this.context.vectorNames) staged.vectors.set(name, null);
    for (const name of this.context.sparseNames) staged.sparse.set(name, null);
  }

  /** Slots allocated for points the draft created; given back when the write is refused or fails. */
  get allocatedSlots(): number[] {
    return [...this.points.values()].flatMap((staged) => (staged.allocated === undefined ? [] : [staged.allocated]));
  }

  /**
   * Writes the difference into `batch` and returns the plan plus the slots whose vectors change
   * (for the operation log). A point created and deleted within the write gives its slot back.
   */
  finish(batch: CollectionBatch): { plan: DraftPlan; slots: number[] } {
    const plan: DraftPlan = { written: [], deleted: [] };
    const slots: number[] = [];
    for (const staged of this.points.values()) {
      const { original, current } = staged;
      if (!current) {
        if (staged.allocated !== undefined) this.context.table.releaseSlots([staged.allocated]);
        if (!original) continue;
        batch.deletePoint(original.id);
        for (const name of this.context.vectorNames) batch.deleteVector(original.slot, name);
        for (const name of this.context.sparseNames) batch.deleteSparseVector(original.slot, name);
        plan.deleted.push(original);
        slots.push(original.slot);
        continue;
      }
      const entry = withVersion(current, this.operationId);
      batch.putPoint(entry.id, { slot: entry.slot, version: this.operationId, payloadJson: serializeJson(entry.payload) });
      const vectors = new Map<string, Float32Array | null>();
      for (const [name, vector] of staged.vectors) {
        if (vector) batch.putVector(entry.slot, name, vector);
        else if (original) batch.deleteVector(entry.slot, name);
        // A new point never had a vector to remove.
        if (vector || original) vectors.set(name, vector);
      }
      const sparse = new Map<string, SparseVector | null>();
      for (const [name, vector] of staged.sparse) {
        if (vector) batch.putSparseVector(entry.slot, name, vector);
        else if (original) batch.deleteSparseVector(entry.slot, name);
        if (vector || original) sparse.set(name, vector);
      }
      // The log lists every slot whose vectors change, so a restart re-applies them over a checkpoint.
      if (vectors.size + sparse.size > 0) slots.push(entry.slot);
      plan.written.push({ previous: original, entry, vectors, sparse });
    }
    return { plan, slots };
  }
}

/** A refusal inside operation `position` of a batch, its message prefixed `operations[i]`. */
export function withinOperation(position: number, error: unknown): unknown {
  return isQuiverError(error) ? errors.withinOperation(position, error) : error;
}
