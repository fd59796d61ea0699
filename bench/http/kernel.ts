// The kernel alone, in this process, on the same data: the exact answers recall is measured
// against, and the single- and two-thread QPS the HTTP figures are compared with.
import { createVectorIndex } from '../../src/native/index.js';
import type { VectorIndex } from '../../src/native/vector-index.js';
import { toFloats, type DataSet } from './data.js';

export interface KernelSide {
  index: VectorIndex;
  queries: Float32Array;
  /** Slots of category c3, the filtered runs' keyword. */
  filteredBits: Uint8Array;
  build_s: number;
}

/** Same options a collection gets by default (docs/api.md §4: m 16, ef_construct 100, 10000 KB). */
export async function buildKernel(data: DataSet): Promise<KernelSide> {
  const started = performance.now();
  const index = createVectorIndex({
    dimension: data.dimension,
    distance: data.distance,
    m: 16,
    efConstruct: 100,
    fullScanThreshold: Math.max(1, Math.floor((10_000 * 1024) / (data.dimension * 4))),
    indexingThreads: 0,
  });
  const batch = 10_000;
  for (let start = 0; start < data.count; start += batch) {
    const end = Math.min(data.count, start + batch);
    const slots = Uint32Array.from({ length: end - start }, (_, offset) => start + offset);
    await index.upsert(slots, toFloats(data.vectors.subarray(start * data.dimension, end * data.dimension)));
  }
  await index.waitIndexed();
  const filteredBits = new Uint8Array(Math.ceil(data.count / 8));
  for (let slot = 3; slot < data.count; slot += data.categories) filteredBits[slot >> 3]! |= 1 << (slot & 7);
  return { index, queries: toFloats(data.queries), filteredBits, build_s: (performance.now() - started) / 1000 };
}

function query(kernel: KernelSide, data: DataSet, number: number): Float32Array {
  return kernel.queries.subarray(number * data.dimension, (number + 1) * data.dimension);
}

/** Exact top-10 ids per query (brute force through the kernel's exact path). */
export async function exactAnswers(kernel: KernelSide, data: DataSet, filtered: boolean): Promise<number[][]> {
  const answers: number[][] = [];
  for (let number = 0; number < data.queryCount; number++) {
    const result = await kernel.index.search(query(kernel, data, number), 10, { exact: true, ...(filtered ? { allowed: kernel.filteredBits } : {}) });
    answers.push(Array.from(result.slots));
  }
  return answers;
}

/** Kernel answers at default settings, for the kernel's own recall. */
export async function kernelAnswers(kernel: KernelSide, data: DataSet, filtered: boolean): Promise<number[][]> {
  const answers: number[][] = [];
  for (let number = 0; number < data.queryCount; number++) {
    const result = await kernel.index.search(query(kernel, data, number), 10, filtered ? { allowed: kernel.filteredBits } : {});
    answers.push(Array.from(result.slots));
  }
  return answers;
}

/** Searches per second with `inFlight` searches always running, for `duration_s`. */
export async function kernelQps(kernel: KernelSide, data: DataSet, inFlight: number, duration_s: number, filtered: boolean): Promise<number> {
  const deadline = performance.now() + duration_s * 1000;
  let done = 0;
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (performance.now() < deadline) {
      const number = next++ % data.queryCount;
      await kernel.index.search(query(kernel, data, number), 10, filtered ? { allowed: kernel.filteredBits } : {});
      done++;
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return done / ((performance.now() - started) / 1000);
}

export function recallAt10(found: number[][], truth: number[][]): number {
  let hits = 0;
  let total = 0;
  found.forEach((ids, number) => {
    const expected = new Set(truth[number]);
    total += expected.size;
    hits += ids.filter((id) => expected.has(id)).length;
  });
  return total === 0 ? 1 : hits / total;
}
