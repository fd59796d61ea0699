// The sparse vectors of one collection (docs/api.md §3.6): one kernel SparseIndex per sparse
// vector name, over the same slots as the dense indexes. Like the dense vectors, the stored
// sparse vectors are part of the point's ONE atomic store batch (the write path adds them
// through addToBatch); the kernel indexes are derived state, checkpointed beside the dense ones
// (save) or rebuilt at start (collection-recovery.ts). Between a write's commit and its kernel
// update its sparse vectors are "in flight" here, so records read meanwhile show them.
import { join } from 'node:path';
import { createSparseIndex } from '../native/sparse-index.js';
import type { SparseIndex, SparseVector } from '../native/sparse-index-contract.js';
import type { CollectionBatch } from '../storage/collection-store.js';
import type { CollectionConfig } from './collection-config.js';

/** The checkpoint file of one sparse index, beside the dense ones. Names are hex-encoded. */
export function sparseCheckpointPath(directory: string, vectorName: string): string {
  return join(directory, `sparse-${Buffer.from(vectorName, 'utf8').toString('hex')}.qsi`);
}

/** What one write does to the sparse vectors of one slot: a vector to store, or null to remove it. */
export interface SparseChange {
  slot: number;
  vectors: ReadonlyMap<string, SparseVector | null>;
}

export class SparseVectors {
  readonly indexes = new Map<string, SparseIndex>();
  private readonly inFlight = new Map<number, ReadonlyMap<string, SparseVector | null>>();

  constructor(private readonly config: () => CollectionConfig) {}

  /** The configured sparse vector names. */
  names(): string[] {
    return Object.keys(this.config().sparse_vectors ?? {});
  }

  isSparse(name: string): boolean {
    return Object.hasOwn(this.config().sparse_vectors ?? {}, name);
  }

  /** Whether the configuration asks for the IDF modifier on `name` (docs/api.md §5.6). */
  usesIdf(name: string): boolean {
    const params = this.config().sparse_vectors?.[name] as { modifier?: string } | undefined;
    return params?.modifier === 'idf';
  }

  /** The index of a configured name; created empty for a name the configuration gained later. */
  index(name: string): SparseIndex {
    let index = this.indexes.get(name);
    if (!index) {
      index = createSparseIndex();
      this.indexes.set(name, index);
    }
    return index;
  }

  /** Empty indexes for every configured name (a new collection). */
  initializeEmpty(): void {
    for (const name of this.names()) this.index(name);
  }

  /** A name added to the configuration (docs/api.md §4.7): a new, empty index. */
  add(name: string): void {
    this.indexes.get(name)?.close();
    this.indexes.set(name, createSparseIndex());
  }

  /** A name removed from the configuration: its index leaves (the caller closes it once no read runs). */
  remove(name: string): SparseIndex | undefined {
    const index = this.indexes.get(name);
    this.indexes.delete(name);
    return index;
  }

  /** Start-up: the indexes recovery loaded or rebuilt. */
  restore(indexes: ReadonlyMap<string, SparseIndex>): void {
    for (const [name, index] of indexes) this.indexes.set(name, index);
  }

  // ---- the write steps (write-path.ts) -------------------------------------------------------

  /** Puts the change's vectors into the write's store batch (the one atomic batch of the write). */
  addToBatch(batch: CollectionBatch, change: SparseChange): void {
    for (const [name, vector] of change.vectors) {
      if (vector) batch.putSparseVector(change.slot, name, vector);
      else batch.deleteSparseVector(change.slot, name);
    }
  }

  /** Removes every sparse vector of `slot` in the batch (the point is deleted). */
  deleteFromBatch(batch: CollectionBatch, slot: number): void {
    for (const name of this.names()) batch.deleteSparseVector(slot, name);
  }

  /** The write is durable: its vectors are visible to reads until the kernel has them. */
  commit(changes: readonly SparseChange[]): void {
    for (const change of changes) if (change.vectors.size > 0) this.inFlight.set(change.slot, change.vectors);
  }

  /** Applies committed changes to the kernel, one upsert and one delete per name. */
  async apply(changes: readonly SparseChange[]): Promise<void> {
    try {
      const byName = new Map<string, { upserts: { slot: number; vector: SparseVector }[]; deletes: number[] }>();
      for (const change of changes) {
        for (const [name, vector] of change.vectors) {
          let work = byName.get(name);
          if (!work) byName.set(name, (work = { upserts: [], deletes: [] }));
          if (vector) work.upserts.push({ slot: change.slot, vector });
          else work.deletes.push(change.slot);
        }
      }
      for (const [name, work] of byName) {
        const index = this.index(name);
        if (work.upserts.length > 0) await index.upsert(...packVectors(work.upserts));
        if (work.deletes.length > 0) await index.delete(Uint32Array.from(work.deletes));
      }
    } finally {
      // A later (overlapped) write may have marked the slot since: its mark stays.
      for (const change of changes) if (this.inFlight.get(change.slot) === change.vectors) this.inFlight.delete(change.slot);
    }
  }

  /** Removes deleted points' slots from every sparse index. */
  async deleteSlots(slots: Uint32Array): Promise<void> {
    for (const index of this.indexes.values()) await index.delete(slots);
  }

  // ---- reads ----------------------------------------------------------------------------------

  /** The sparse vector of `slot` under `name` as reads see it, or undefined when it has none. */
  stored(slot: number, name: string): SparseVector | undefined {
    const inFlight = this.inFlight.get(slot)?.get(name);
    if (inFlight !== undefined) return inFlight ?? undefined;
    return this.indexes.get(name)?.vector(slot);
  }

  has(slot: number, name: string): boolean {
    return this.stored(slot, name) !== undefined;
  }

  // ---- checkpoints and life cycle -------------------------------------------------------------

  /** Saves every sparse index, tagged with `covered` (checkpointer.ts calls it in the write queue). */
  async save(directory: string, covered: number, binding = ''): Promise<void> {
    for (const [name, index] of this.indexes) await index.save(sparseCheckpointPath(directory, name), covered, binding);
  }

  close(): void {
    for (const index of this.indexes.values()) index.close();
    this.indexes.clear();
  }
}

/** Vectors as the kernel's upsert takes them: slots, offsets, and the entries back to back. */
export function packVectors(items: readonly { slot: number; vector: SparseVector }[]): [Uint32Array, Uint32Array, Uint32Array, Float32Array] {
  const slots = new Uint32Array(items.length);
  const offsets = new Uint32Array(items.length + 1);
  let total = 0;
  items.forEach((item, position) => {
    slots[position] = item.slot;
    total += item.vector.indices.length;
    offsets[position + 1] = total;
  });
  const indices = new Uint32Array(total);
  const values = new Float32Array(total);
  items.forEach((item, position) => {
    indices.set(item.vector.indices, offsets[position]!);
    values.set(item.vector.values, offsets[position]!);
  });
  return [slots, offsets, indices, values];
}
