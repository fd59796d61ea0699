// The three indexes under test behind one small interface, each called the way its npm
// binding is meant to be called. QuiverDB has three search modes: `async` (one awaited
// promise per query, exactly how the server calls it: includes the hop to a kernel thread
// and back), `sync` (the same search on the calling thread, like the peers' synchronous
// calls) and `batch` (one searchBatch call for all queries, run on one kernel thread).
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import hnswlib from 'hnswlib-node';
import { Index as UsearchIndex, type MetricKind, type ScalarKind } from 'usearch';
import { createVectorIndex } from '../../src/native/index.js';
import type { WrappedVectorIndex } from '../../src/native/vector-index.js';
import type { Dataset } from './data.js';

export const M = 16;
export const EF_CONSTRUCT = 128;
export const K = 10;

export interface Contender {
  readonly name: string;
  /** Builds the index over the whole dataset with `threads` building threads. */
  build(dataset: Dataset, threads: number): Promise<void>;
  setEf(ef: number): void;
  /** Searches every query once (in order) and returns the found ids, K per query. */
  searchAll(dataset: Dataset): Promise<Int32Array>;
  /** Bytes the library itself reports holding, if it reports any. */
  reportedBytes(): number | undefined;
  close(): void;
  /**
   * Peers in their own process (bench/ann/external.ts) time themselves: the last build's and the
   * last searchAll's milliseconds, and the build's RSS growth, measured inside that process so the
   * hop to it is not counted. Undefined for in-process contenders (timed by the caller).
   */
  readonly lastBuildMs?: number;
  readonly lastSearchMs?: number;
  readonly buildRssBytes?: number;
}

/**
 * A QuiverDB index over `dataset`, upserted in batches and fully linked. The concrete class, for
 * its benchmark-only synchronous search (bench:ann and bench:async build the same way).
 */
export async function buildQuiverIndex(dataset: Dataset, options: { m: number; efConstruct: number; threads: number }): Promise<WrappedVectorIndex> {
  const index = createVectorIndex({
    dimension: dataset.dimension,
    distance: dataset.distance,
    m: options.m,
    efConstruct: options.efConstruct,
    fullScanThreshold: 1000,
    indexingThreads: options.threads,
  }) as WrappedVectorIndex;
  const batch = 10_000;
  for (let start = 0; start < dataset.count; start += batch) {
    const end = Math.min(dataset.count, start + batch);
    const slots = Uint32Array.from({ length: end - start }, (_, offset) => start + offset);
    await index.upsert(slots, dataset.vectors.subarray(start * dataset.dimension, end * dataset.dimension));
  }
  await index.waitIndexed();
  return index;
}

export class QuiverContender implements Contender {
  readonly name: string;
  private index: WrappedVectorIndex | undefined;
  private ef = 64;

  constructor(private readonly mode: 'async' | 'sync' | 'batch') {
    this.name = `QuiverDB (${mode})`;
  }

  /** Shares one built index between the async and batch views of it. */
  adopt(other: QuiverContender): void {
    this.index = other.index;
  }

  get built(): WrappedVectorIndex {
    if (!this.index) throw new Error('QuiverDB index not built');
    return this.index;
  }

  async build(dataset: Dataset, threads: number): Promise<void> {
    this.index = await buildQuiverIndex(dataset, { m: M, efConstruct: EF_CONSTRUCT, threads });
  }

  setEf(ef: number): void {
    this.ef = ef;
  }

  async searchAll(dataset: Dataset): Promise<Int32Array> {
    const index = this.built;
    const found = new Int32Array(dataset.queryCount * K).fill(-1);
    const dimension = dataset.dimension;
    if (this.mode === 'batch') {
      const results = await index.searchBatch(dataset.queries, K, { ef: this.ef });
      results.forEach((result, query) => found.set(result.slots, query * K));
      return found;
    }
    for (let query = 0; query < dataset.queryCount; query += 1) {
      const vector = dataset.queries.subarray(query * dimension, (query + 1) * dimension);
      const result = this.mode === 'sync' ? index.searchOnThisThread(vector, K, { ef: this.ef }) : await index.search(vector, K, { ef: this.ef });
      found.set(result.slots, query * K);
    }
    return found;
  }

  reportedBytes(): number | undefined {
    return this.index?.stats().memoryBytes;
  }

  close(): void {
    this.index?.close();
    this.index = undefined;
  }
}

export class HnswlibContender implements Contender {
  readonly name = 'hnswlib-node';
  private index: hnswlib.HierarchicalNSW | undefined;
  private queries: number[][] = [];

  async build(dataset: Dataset, threads: number): Promise<void> {
    if (threads !== 1) throw new Error('hnswlib-node builds on one thread only');
    const index = new hnswlib.HierarchicalNSW(dataset.distance === 'Euclid' ? 'l2' : 'cosine', dataset.dimension);
    index.initIndex(dataset.count, M, EF_CONSTRUCT, 100);
    const dimension = dataset.dimension;
    for (let row = 0; row < dataset.count; row += 1) {
      index.addPoint(Array.from(dataset.vectors.subarray(row * dimension, (row + 1) * dimension)), row);
    }
    this.index = index;
    // Its binding takes number[]: converted once, outside the timed searches.
    this.queries = Array.from({ length: dataset.queryCount }, (_, query) =>
      Array.from(dataset.queries.subarray(query * dimension, (query + 1) * dimension)),
    );
  }

  setEf(ef: number): void {
    this.index?.setEf(ef);
  }

  async searchAll(dataset: Dataset): Promise<Int32Array> {
    const index = this.index!;
    const found = new Int32Array(dataset.queryCount * K).fill(-1);
    for (let query = 0; query < dataset.queryCount; query += 1) {
      found.set(index.searchKnn(this.queries[query]!, K).neighbors, query * K);
    }
    return found;
  }

  reportedBytes(): number | undefined {
    return undefined;
  }

  close(): void {
    this.index = undefined;
    this.queries = [];
  }
}

export class UsearchContender implements Contender {
  readonly name = 'usearch';
  private index: UsearchIndex | undefined;
  private dataset: Dataset | undefined;
  private readonly file = join(tmpdir(), `quiver-bench-usearch-${process.pid}.idx`);

  private create(dataset: Dataset, expansionSearch: number): UsearchIndex {
    return new UsearchIndex({
      dimensions: dataset.dimension,
      metric: (dataset.distance === 'Euclid' ? 'l2sq' : 'cos') as MetricKind,
      quantization: 'f32' as ScalarKind,
      connectivity: M,
      expansion_add: EF_CONSTRUCT,
      expansion_search: expansionSearch,
      multi: false,
    });
  }

  async build(dataset: Dataset, threads: number): Promise<void> {
    const index = this.create(dataset, 64);
    const keys = BigUint64Array.from({ length: dataset.count }, (_, row) => BigInt(row));
    index.add(keys, dataset.vectors, threads);
    this.index = index;
    this.dataset = dataset;
  }

  /** Its search width is fixed at construction: reload the saved graph with the new width. */
  setEf(ef: number): void {
    if (!this.index || !this.dataset) return;
    this.index.save(this.file);
    const reloaded = this.create(this.dataset, ef);
    reloaded.load(this.file);
    this.index = reloaded;
  }

  async searchAll(dataset: Dataset): Promise<Int32Array> {
    const index = this.index!;
    const found = new Int32Array(dataset.queryCount * K).fill(-1);
    const dimension = dataset.dimension;
    for (let query = 0; query < dataset.queryCount; query += 1) {
      const matches = index.search(dataset.queries.subarray(query * dimension, (query + 1) * dimension), K, 1);
      for (let position = 0; position < matches.keys.length; position += 1) found[query * K + position] = Number(matches.keys[position]);
    }
    return found;
  }

  reportedBytes(): number | undefined {
    return undefined;
  }

  close(): void {
    this.index = undefined;
    rmSync(this.file, { force: true });
  }
}
