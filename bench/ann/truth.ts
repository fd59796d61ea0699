// Exact ground truth and recall@k. The truth comes from the kernel's brute-force oracle
// (`exact: true`, which is tested against a plain TypeScript scorer in src/native).
import { createVectorIndex } from '../../src/native/index.js';
import { K } from './contenders.js';
import type { Dataset } from './data.js';

export async function groundTruth(dataset: Dataset): Promise<Int32Array> {
  const index = createVectorIndex({
    dimension: dataset.dimension,
    distance: dataset.distance,
    m: 16,
    efConstruct: 16,
    fullScanThreshold: 0xffff_ffff,
    indexingThreads: 1,
  });
  const slots = Uint32Array.from({ length: dataset.count }, (_, slot) => slot);
  await index.upsert(slots, dataset.vectors);
  const results = await index.searchBatch(dataset.queries, K, { exact: true });
  index.close();
  const truth = new Int32Array(dataset.queryCount * K).fill(-1);
  results.forEach((result, query) => truth.set(result.slots, query * K));
  return truth;
}

/** Share of the true K nearest found, over all queries. */
export function recallAt(found: Int32Array, truth: Int32Array, queryCount: number): number {
  let hits = 0;
  let total = 0;
  for (let query = 0; query < queryCount; query += 1) {
    const expected = new Set(truth.subarray(query * K, (query + 1) * K));
    expected.delete(-1);
    total += expected.size;
    for (const slot of found.subarray(query * K, (query + 1) * K)) if (expected.has(slot)) hits += 1;
  }
  return total === 0 ? 1 : hits / total;
}
