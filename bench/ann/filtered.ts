// `npm run bench:ann -- --filtered[-only]` (bench/README.md, docs/architecture.md §19): filtered
// search, QuiverDB's kernel against hnswlib-node's filter function and, when bench:ann's external
// peers are available (bench/ann/external.ts), hnswlib C++ -march=native (a filter functor), faiss
// HNSWFlat (an IDSelectorBitmap) and qdrant-edge (an indexed keyword payload field per filter,
// matched by a `must` condition), on the same seeded clustered data, with a random filter
// allowing 1%, 10% and 50% of the points. QuiverDB is called with the allowed bitset the server
// passes and the full-scan threshold the server derives from the default `full_scan_threshold`
// (10,000 KB), so its planner decides as in production. Recall@10 against the exact filtered
// answer and single-thread QPS over an ef sweep; the ratio is the best QPS each reaches at
// recall@10 >= 0.95, against hnswlib-node and against the strongest peer.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import hnswlib from 'hnswlib-node';
import { createVectorIndex } from '../../src/native/index.js';
import type { WrappedVectorIndex } from '../../src/native/vector-index.js';
import { EF_CONSTRUCT, K, M } from './contenders.js';
import { seededUniform, type Dataset } from './data.js';
import { datasetDirectory, ExternalContender, floatPeers, type PeerLaunchers } from './external.js';
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

function cell(point: Point): string {
  return `${point.recall.toFixed(4)} / ${Math.round(point.queriesPerSecond)}`;
}

/** The external peers' cells of one table row: each peer's point at `ef`. */
function peerCells(others: Point[][], ef: number): string {
  return others.map((points) => ` ${cell(points.find((point) => point.ef === ef)!)} |`).join('');
}

function bestAt(points: Point[], level: number): Point | undefined {
  return points.filter((point) => point.recall >= level).sort((a, b) => b.queriesPerSecond - a.queriesPerSecond)[0];
}

/** Each selectivity's allowed flags (one byte per point), drawn from its own seed. */
function selectivityFlags(dataset: Dataset): Uint8Array[] {
  return SELECTIVITIES.map((selectivity) => {
    const uniform = seededUniform(Math.round(selectivity * 1e6));
    return Uint8Array.from({ length: dataset.count }, () => (uniform() < selectivity ? 1 : 0));
  });
}

/** The external peers, each built (2 threads) over the data with the filters file beside it. */
async function buildPeers(dataset: Dataset, launchers: PeerLaunchers, flags: Uint8Array[]): Promise<ExternalContender[]> {
  const libraries = floatPeers(launchers);
  if (libraries.length === 0) return [];
  const filtersPath = join(datasetDirectory(dataset), 'filters.u8');
  const columns = new Uint8Array(flags.length * dataset.count);
  flags.forEach((column, number) => columns.set(column, number * dataset.count));
  writeFileSync(filtersPath, columns);
  const peers: ExternalContender[] = [];
  for (const library of libraries) {
    console.error(`  ${library} build...`);
    const peer = new ExternalContender(library, launchers, { queryCount: QUERIES, filtersPath, columns: flags.length });
    await peer.build(dataset, 2);
    peers.push(peer);
  }
  return peers;
}

export async function runFiltered(dataset: Dataset, sweep: number[], passes: number, launchers: PeerLaunchers): Promise<string[]> {
  const dimension = dataset.dimension;
  console.error(`\n# ${dataset.name}: filtered search (QuiverDB, hnswlib-node${floatPeers(launchers).map((library) => `, ${library}`).join('')})...`);
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
  const allFlags = selectivityFlags(dataset);
  const peers = await buildPeers(dataset, launchers, allFlags);
  const peerSweep = [...new Set([...sweep, 256, 512])];

  const lines: string[] = [
    `### Filtered: ${dataset.name} (${QUERIES} queries, k=${K}, M=${M}, ef_construct=${EF_CONSTRUCT}, one query at a time on one thread)`,
    '',
    `| allowed | ef | QuiverDB (sync) recall / QPS | QuiverDB (async) recall / QPS | hnswlib-node (filter function) recall / QPS |${peers.map((peer) => ` ${peer.name} recall / QPS |`).join('')}`,
    `|---|---|---|---|---|${peers.map(() => '---|').join('')}`,
  ];
  const ratios: string[] = [
    '',
    '| allowed | QuiverDB (sync) / hnswlib-node at recall@10 >= 0.95 | QuiverDB (async) / hnswlib-node | strongest other peer at >= 0.95 (QPS) | QuiverDB (sync) / it | QuiverDB (async) / it |',
    '|---|---|---|---|---|---|',
  ];
  for (const [position, selectivity] of SELECTIVITIES.entries()) {
    const flags = allFlags[position]!;
    const allowed = bitsetOf(flags);
    const truth = await exactTruth(quiver, dataset, allowed);
    const filter = (label: number): boolean => flags[label] === 1;
    const sync: Point[] = [];
    const asynchronous: Point[] = [];
    const peer: Point[] = [];
    const others: Point[][] = peers.map(() => []);
    const expected = flags.reduce((sum, flag) => sum + flag, 0);
    for (const [number, other] of peers.entries()) {
      const allowedCount = await other.setFilter(dataset, position);
      if (allowedCount !== expected) throw new Error(`${other.name} counted ${allowedCount} allowed points, expected ${expected}`);
      // The peers get a longer sweep: a post-filtering walk (faiss) needs a large ef at 1%.
      for (const ef of peerSweep) {
        other.setEf(ef);
        let bestMs = Infinity;
        let found: Int32Array = new Int32Array();
        for (let pass = 0; pass < passes; pass += 1) {
          found = await other.searchAll(dataset);
          bestMs = Math.min(bestMs, other.lastSearchMs!);
        }
        others[number]!.push({ ef, recall: recallAt(found, truth, QUERIES), queriesPerSecond: (QUERIES / bestMs) * 1000 });
      }
    }
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
      lines.push(`| ${selectivity * 100}% | ${ef} | ${cell(sync.at(-1)!)} | ${cell(asynchronous.at(-1)!)} | ${cell(peer.at(-1)!)} |${peerCells(others, ef)}`);
    }
    for (const ef of peerSweep.filter((value) => !sweep.includes(value))) {
      lines.push(`| ${selectivity * 100}% | ${ef} | – | – | – |${peerCells(others, ef)}`);
    }
    const ratio = (mine: Point[], against: Point[]) => {
      const a = bestAt(mine, 0.95);
      const b = bestAt(against, 0.95);
      return a && b ? (a.queriesPerSecond / b.queriesPerSecond).toFixed(2) : 'n/a';
    };
    const strongest = others
      .map((points, number) => ({ name: peers[number]!.name, points, best: bestAt(points, 0.95) }))
      .filter((entry) => entry.best !== undefined)
      .sort((left, right) => right.best!.queriesPerSecond - left.best!.queriesPerSecond)[0];
    const strongestCells = strongest
      ? `${strongest.name} (${Math.round(strongest.best!.queriesPerSecond)} at ef ${strongest.best!.ef}) | ${ratio(sync, strongest.points)} | ${ratio(asynchronous, strongest.points)}`
      : `${peers.length === 0 ? 'no external peers in this run' : 'none reached 0.95'} | – | –`;
    ratios.push(`| ${selectivity * 100}% | ${ratio(sync, peer)} | ${ratio(asynchronous, peer)} | ${strongestCells} |`);
  }
  quiver.close();
  for (const other of peers) other.close();
  return [...lines, ...ratios];
}
