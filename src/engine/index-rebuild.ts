// A vector index filled afresh from the collection's stored vectors: what recovery does when a
// checkpoint is missing or refused (collection-recovery.ts), and what a PATCH that changes a
// vector's graph parameters does (Collection.rebuildGraphsChangedBy). The caller makes the empty
// index (createIndexFor, dense or multivector); on a failure it is closed here.
import type { VectorIndex } from '../native/vector-index.js';
import type { CollectionStore } from '../storage/collection-store.js';
import { decodeVectorRecordInto } from '../storage/point-records.js';
import { isMultiVectorIndex, upsertRows } from './multi-vector-index.js';

/** Vectors handed to the kernel per call: bounded memory, few calls. */
const rebuildChunk = 4096;

/**
 * Fills the empty `index` with every stored vector of `vectorName` (a multivector index with
 * every stored matrix); `progress` hears the vectors read so far.
 */
export function fillFromStore(index: VectorIndex, store: CollectionStore, vectorName: string, progress?: (read: number) => void): Promise<VectorIndex> {
  return isMultiVectorIndex(index) ? fillMatrices(index, store, vectorName, progress) : fillRows(index, store, vectorName, progress);
}

async function fillRows(index: VectorIndex, store: CollectionStore, vectorName: string, progress?: (read: number) => void): Promise<VectorIndex> {
  const dimension = index.dimension;
  let slots: number[] = [];
  let rows = new Float32Array(rebuildChunk * dimension);
  let read = 0;
  const flush = async () => {
    if (slots.length === 0) return;
    await index.upsert(Uint32Array.from(slots), rows.subarray(0, slots.length * dimension));
    read += slots.length;
    progress?.(read);
    slots = [];
    rows = new Float32Array(rebuildChunk * dimension);
  };
  try {
    for await (const chunk of store.vectors(vectorName)) {
      for (const { slot, record } of chunk) {
        decodeVectorRecordInto(record, rows, slots.length * dimension);
        slots.push(slot);
        if (slots.length === rebuildChunk) await flush();
      }
    }
    await flush();
  } catch (error) {
    index.close();
    throw error;
  }
  return index;
}

/** A stored multivector record's matrix (rows back to back). */
export function decodeMatrix(record: Uint8Array): Float32Array {
  const matrix = new Float32Array((record.byteLength - 1) / 4);
  decodeVectorRecordInto(record, matrix, 0);
  return matrix;
}

/** A multivector index (docs/architecture.md §17) from its point records; the log is never needed for it. */
async function fillMatrices(index: VectorIndex, store: CollectionStore, vectorName: string, progress?: (read: number) => void): Promise<VectorIndex> {
  let read = 0;
  try {
    for await (const chunk of store.vectors(vectorName)) {
      const matrices = chunk.map(({ record }) => decodeMatrix(record));
      await upsertRows(index, Uint32Array.from(chunk, ({ slot }) => slot), matrices);
      read += chunk.length;
      progress?.(read);
    }
  } catch (error) {
    index.close();
    throw error;
  }
  return index;
}
