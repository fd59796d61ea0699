// A dense vector index built afresh from the collection's stored vectors: what recovery does
// when a checkpoint is missing or refused (collection-recovery.ts), and what a PATCH that changes
// a vector's graph parameters does (Collection.rebuildGraphsChangedBy).
import { createVectorIndex } from '../native/index.js';
import type { VectorIndex, VectorIndexOptions } from '../native/vector-index.js';
import type { CollectionStore } from '../storage/collection-store.js';
import { decodeVectorRecordInto } from '../storage/point-records.js';

/** Vectors handed to the kernel per call: bounded memory, few calls. */
const rebuildChunk = 4096;

/** A new index with `options`, holding every stored vector of `vectorName`; `progress` hears the vectors read so far. */
export async function rebuildIndexFromStore(store: CollectionStore, vectorName: string, options: VectorIndexOptions, progress?: (read: number) => void): Promise<VectorIndex> {
  const index = createVectorIndex(options);
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
