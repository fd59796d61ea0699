// bench:multivector — the multivector index (docs/architecture.md §17) on a generated
// ColBERT-like corpus: each document has a topic (one of sqrt(n) centres) and `rows` token rows
// around a few topic-specific "term" directions plus noise, unit length (Cosine); each query has
// 32 rows drawn the same way from a random topic. Straight through src/engine (no HTTP).
//
//   npm run bench:multivector              5k documents x 32 rows x 128-d, 100 queries
//   npm run bench:multivector -- --quick   1k documents x 16 rows x 64-d, 50 queries
//
// Measures build time (rows linked), then per figure the queries per second of the graph path
// (hnsw_ef 64 and 128) and of its slow twin, the exact MaxSim scan, in the same run, and the
// recall@10 of the graph path against the exact scan. Prints the speed-up ratio graph/exact.
import { MultiVectorIndex, upsertRows } from '../../src/engine/multi-vector-index.js';
import { gaussian, mulberry32 } from '../../test/support/seeded-random.js';

const quick = process.argv.includes('--quick');
const documents = quick ? 1_000 : 5_000;
const rows = quick ? 16 : 32;
const dimension = quick ? 64 : 128;
const queries = quick ? 50 : 100;
const queryRows = 32;
const k = 10;
const topics = Math.round(Math.sqrt(documents));
const termsPerTopic = 24;

const random = mulberry32(19);
const normal = () => gaussian(random, 1e-12);
const unit = (vector: Float32Array) => {
  let squares = 0;
  for (const value of vector) squares += value * value;
  const norm = Math.sqrt(squares) || 1;
  return vector.map((value) => value / norm);
};
const terms = Array.from({ length: topics }, () => Array.from({ length: termsPerTopic }, () => unit(Float32Array.from({ length: dimension }, normal))));

function matrix(topic: number, count: number): Float32Array {
  const result = new Float32Array(count * dimension);
  for (let row = 0; row < count; row += 1) {
    const term = terms[topic]![Math.floor(random() * termsPerTopic)]!;
    const values = Float32Array.from({ length: dimension }, (_, position) => term[position]! + normal() * 0.08);
    result.set(unit(values), row * dimension);
  }
  return result;
}

async function timed<Result>(work: () => Promise<Result>): Promise<{ result: Result; seconds: number }> {
  const started = performance.now();
  const result = await work();
  return { result, seconds: (performance.now() - started) / 1000 };
}

async function main(): Promise<void> {
  const index = new MultiVectorIndex({ dimension, distance: 'Cosine', m: 16, efConstruct: 100, fullScanThreshold: 1, indexingThreads: 0 });
  const matrices = Array.from({ length: documents }, (_, document) => matrix(document % topics, rows));
  const build = await timed(async () => {
    for (let start = 0; start < documents; start += 500) {
      const slice = matrices.slice(start, start + 500);
      await upsertRows(index, Uint32Array.from(slice, (_, position) => start + position), slice);
    }
    await index.waitIndexed();
  });
  console.log(`build: ${documents} documents x ${rows} rows x ${dimension}-d (${documents * rows} rows) linked in ${build.seconds.toFixed(1)} s`);
  const queryMatrices = Array.from({ length: queries }, () => matrix(Math.floor(random() * topics), queryRows));
  const exact = await timed(async () => {
    const results: Uint32Array[] = [];
    for (const query of queryMatrices) results.push((await index.search(query, k, { exact: true })).slots);
    return results;
  });
  const exactQps = queries / exact.seconds;
  console.log(`exact MaxSim scan: ${exactQps.toFixed(1)} QPS`);
  console.log('| path | hnsw_ef | QPS | recall@10 vs exact | speed-up vs exact | points scored exactly per query |');
  console.log('|---|---|---|---|---|---|');
  console.log(`| exact scan (twin) | - | ${exactQps.toFixed(1)} | 1.000 | 1.0x | ${documents} |`);
  for (const ef of [16, 32, 64, 128]) {
    const graph = await timed(async () => {
      const results: Uint32Array[] = [];
      for (const query of queryMatrices) results.push((await index.search(query, k, { ef })).slots);
      return results;
    });
    let hits = 0;
    graph.result.forEach((found, position) => {
      const truth = new Set(exact.result[position]);
      hits += [...found].filter((slot) => truth.has(slot)).length;
    });
    const qps = queries / graph.seconds;
    const rescored = index.rescored / queries;
    index.rescored = 0;
    console.log(`| graph + exact MaxSim of candidates | ${ef} | ${qps.toFixed(1)} | ${(hits / (queries * k)).toFixed(3)} | ${(qps / exactQps).toFixed(1)}x | ${rescored.toFixed(0)} |`);
  }
  index.close();
}

await main();
