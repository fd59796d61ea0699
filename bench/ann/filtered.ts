// `npm run bench:ann -- --filtered[-only]` (bench/README.md, docs/architecture.md §19): filtered
// search, QuiverDB's kernel against hnswlib-node's filter function, on the same seeded clustered
// data, with a random filter allowing 1%, 10% and 50% of the points. QuiverDB is called with the
// allowed bitset the server passes and the full-scan threshold the server derives from the
// default `full_scan_threshold` (10,000 KB), so its planner decides as in production.
// Recall@10 against the exact filtered answer and single-thread QPS over an ef sweep; the ratio
// is the best QPS each reaches at recall@10 >= 0.95.
import hnswlib from 'hnswlib-node';
import { createVectorIndex } from '../../src/native/index.js';
import type { WrappedVectorIndex } from '../../src/native/vector-index.js';
import { EF_CONSTRUCT, K, M } from './contenders.js';
import { seededUniform, type Dataset } from './data.js';
import { recallAt } from './truth.js';

const SELECTIVITIES = [0.01, 0.1, 0.5];
/** Queries per figure: fewer than the unfiltered sweep's, since a filtered peer walk is slow. */
const QUERIES = 200;

interface Point {
  ef: number;
  recall: number;
  queriesPerSecond: number;
}

function bitsetOf(allowed: Uint8Array): Uint8Array {
  const bits = new Uint8Array(Math.ceil(allowed.length / 8));
  allowed.forEach((flag, slot) => {
    if (flag) bits[slot >> 3]! |= 1 << (slot & 7);
  });
  return bits;
}

async function exactTruth(index: WrappedVectorIndex, dataset: Dataset, allowed: Uint8Array): Promise<Int32Array> {
  const truth = new Int32Array(QUERIES * K).fill(-1);
  const queries = dataset.queries.subarray(0, QUERIES * dataset.dimension);
  const results = await index.searchBatch(queries, K, { exact: true, allowed });
  results.forEach((result, query) => truth.set(result.slots, query * K));
  return truth;
}

function timedBest(passes: number, run: () => Int32Array): { found: Int32Array; queriesPerSecond: number } {
  let best = Infinity;
  let found: Int32Array = new Int32Array();
  for (let pass = 0; pass < passes; pass += 1) {
    const start = performance.now();
    found = run();
    best = Math.min(best, performance.now() - start);
  }
  return { found, queriesPerSecond: (QUERIES / best) * 1000 };
}

function bestAt(points: Point[], level: number): Point | undefined {
  return points.filter((point) => point.recall >= level).sort((a, b) => b.queriesPerSecond - a.queriesPerSecond)[0];
}

export async function runFiltered(dataset: Dataset, sweep: number[], passes: number): Promise<string[]> {
  const dimension = dataset.dimension;
  console.error(`\n# ${dataset.name}: filtered search (QuiverDB and hnswlib-node)...`);
  const quiver = createVectorIndex({
    dimension,
    distance: dataset.distance,
    m: M,
    efConstruct: EF_CONSTRUCT,
    // What src/engine/collection.ts derives from the default full_scan_threshold of 10,000 KB.
    fullScanThreshold: Math.floor((10_000 * 1024) / (dimension * 4)),
    indexingThreads: 2,
  }) as WrappedVectorIndex;
  for (let start = 0; start < dataset.count; start += 10_000) {
    const end = Math.min(dataset.count, start + 10_000);
    await quiver.upsert(
      Uint32Array.from({ length: end - start }, (_, offset) => start + offset),
      dataset.vectors.subarray(start * dimension, end * dimension),
    );
  }
  await quiver.waitIndexed();
  console.error('  hnswlib-node build...');
  const hnsw = new hnswlib.HierarchicalNSW(dataset.distance === 'Euclid' ? 'l2' : 'cosine', dimension);
  hnsw.initIndex(dataset.count, M, EF_CONSTRUCT, 100);
  for (let row = 0; row < dataset.count; row += 1) hnsw.addPoint(Array.from(dataset.vectors.subarray(row * dimension, (row + 1) * dimension)), row);
  const hnswQueries = Array.from({ length: QUERIES }, (_, query) => Array.from(dataset.queries.subarray(query * dimension, (query + 1) * dimension)));

  const lines: string[] = [
    `### Filtered: ${dataset.name} (${QUERIES} queries, k=${K}, M=${M}, ef_construct=${EF_CONSTRUCT}, one query at a time on one thread)`,
    '',
    '| allowed | ef | QuiverDB (sync) recall / QPS | QuiverDB (async) recall / QPS | hnswlib-node (filter function) recall / QPS |',
    '|---|---|---|---|---|',
  ];
  const ratios: string[] = ['', '| allowed | QuiverDB (sync) / hnswlib-node at recall@10 >= 0.95 | QuiverDB (async) / hnswlib-node |', '|---|---|---|'];
  for (const selectivity of SELECTIVITIES) {
    const uniform = seededUniform(Math.round(selectivity * 1e6));
    const flags = Uint8Array.from({ length: dataset.count }, () => (uniform() < selectivity ? 1 : 0));
    const allowed = bitsetOf(flags);
    const truth = await exactTruth(quiver, dataset, allowed);
    const filter = (label: number): boolean => flags[label] === 1;
    const sync: Point[] = [];
    const asynchronous: Point[] = [];
    const peer: Point[] = [];
    for (const ef of sweep) {
      hnsw.setEf(ef);
      const quiverRun = timedBest(passes, () => {
        const found = new Int32Array(QUERIES * K).fill(-1);
        for (let query = 0; query < QUERIES; query += 1) {
          found.set(quiver.searchOnThisThread(dataset.queries.subarray(query * dimension, (query + 1) * dimension), K, { ef, allowed }).slots, query * K);
        }
        return found;
      });
      let asyncBest = Infinity;
      let asyncFound: Int32Array = new Int32Array();
      for (let pass = 0; pass < passes; pass += 1) {
        const found = new Int32Array(QUERIES * K).fill(-1);
        const start = performance.now();
        for (let query = 0; query < QUERIES; query += 1) {
          found.set((await quiver.search(dataset.queries.subarray(query * dimension, (query + 1) * dimension), K, { ef, allowed })).slots, query * K);
        }
        asyncBest = Math.min(asyncBest, performance.now() - start);
        asyncFound = found;
      }
      const peerRun = timedBest(passes, () => {
        const found = new Int32Array(QUERIES * K).fill(-1);
        for (let query = 0; query < QUERIES; query += 1) found.set(hnsw.searchKnn(hnswQueries[query]!, K, filter).neighbors, query * K);
        return found;
      });
      sync.push({ ef, recall: recallAt(quiverRun.found, truth, QUERIES), queriesPerSecond: quiverRun.queriesPerSecond });
      asynchronous.push({ ef, recall: recallAt(asyncFound, truth, QUERIES), queriesPerSecond: (QUERIES / asyncBest) * 1000 });
      peer.push({ ef, recall: recallAt(peerRun.found, truth, QUERIES), queriesPerSecond: peerRun.queriesPerSecond });
      const cell = (point: Point) => `${point.recall.toFixed(4)} / ${Math.round(point.queriesPerSecond)}`;
      lines.push(`| ${selectivity * 100}% | ${ef} | ${cell(sync.at(-1)!)} | ${cell(asynchronous.at(-1)!)} | ${cell(peer.at(-1)!)} |`);
    }
    const ratio = (mine: Point[]) => {
      const a = bestAt(mine, 0.95);
      const b = bestAt(peer, 0.95);
      return a && b ? (a.queriesPerSecond / b.queriesPerSecond).toFixed(2) : 'n/a';
    };
    ratios.push(`| ${selectivity * 100}% | ${ratio(sync)} | ${ratio(asynchronous)} |`);
  }
  quiver.close();
  return [...lines, ...ratios];
}
