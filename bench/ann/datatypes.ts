// `npm run bench:ann -- --datatypes[-only]` (docs/api.md §21, bench/README.md): float16 and uint8
// stores against float32 on the same data in the same run. float16 vs float32 on 768-d cosine
// embeddings-like data; uint8 vs float32 on integer data (0..255) of the same shape, so both
// stores hold exactly the same values. Index memory (the kernel's own heap figure: arena + graph),
// build time, and recall@10 / single-thread QPS over an ef sweep; ratios to float32 printed.
import type { VectorDatatype, WrappedVectorIndex } from '../../src/native/vector-index.js';
import { createVectorIndex } from '../../src/native/index.js';
import { EF_CONSTRUCT, K, M } from './contenders.js';
import { clusteredDataset, type Dataset } from './data.js';
import { groundTruth, recallAt } from './truth.js';

const sweep = [32, 64, 128];
const passes = 2;
const threads = 2;

async function build(dataset: Dataset, datatype: VectorDatatype): Promise<{ index: WrappedVectorIndex; buildMs: number }> {
  const start = performance.now();
  const index = createVectorIndex({
    dimension: dataset.dimension,
    distance: dataset.distance,
    m: M,
    efConstruct: EF_CONSTRUCT,
    fullScanThreshold: 1000,
    indexingThreads: threads,
    datatype,
  }) as WrappedVectorIndex;
  const batch = 10_000;
  for (let first = 0; first < dataset.count; first += batch) {
    const end = Math.min(dataset.count, first + batch);
    const slots = Uint32Array.from({ length: end - first }, (_, offset) => first + offset);
    await index.upsert(slots, dataset.vectors.subarray(first * dataset.dimension, end * dataset.dimension));
  }
  await index.waitIndexed();
  return { index, buildMs: performance.now() - start };
}

function measure(index: WrappedVectorIndex, dataset: Dataset, truth: Int32Array, ef: number): { recall: number; queriesPerSecond: number } {
  let best = 0;
  let recall = 0;
  for (let pass = 0; pass < passes; pass += 1) {
    const found = new Int32Array(dataset.queryCount * K).fill(-1);
    const start = performance.now();
    for (let query = 0; query < dataset.queryCount; query += 1) {
      const vector = dataset.queries.subarray(query * dataset.dimension, (query + 1) * dataset.dimension);
      found.set(index.searchOnThisThread(vector, K, { ef }).slots, query * K);
    }
    best = Math.max(best, dataset.queryCount / ((performance.now() - start) / 1000));
    recall = recallAt(found, truth, dataset.queryCount);
  }
  return { recall, queriesPerSecond: best };
}

/** The same data rounded to integers 0..255 (a uint8 store holds exactly these values). */
function asBytes(dataset: Dataset, name: string): Dataset {
  const toByte = (value: number) => Math.min(255, Math.max(0, Math.round(value * 12 + 128)));
  return { ...dataset, name, vectors: dataset.vectors.map(toByte), queries: dataset.queries.map(toByte) };
}

async function compare(dataset: Dataset, datatype: VectorDatatype): Promise<string[]> {
  const truth = await groundTruth(dataset);
  const lines = [
    `### ${dataset.name}: ${datatype} vs float32 (M ${M}, ef_construct ${EF_CONSTRUCT}, ${threads} build threads, ${dataset.queryCount} queries, recall@${K} against the exact float32 answer)`,
    '',
    `| store | index memory (MiB) | build (s) | ${sweep.map((ef) => `ef ${ef}: recall / QPS`).join(' | ')} |`,
    `|---|---|---|${sweep.map(() => '---').join('|')}|`,
  ];
  const rows: { memory: number; buildMs: number; points: { recall: number; queriesPerSecond: number }[] }[] = [];
  for (const type of ['float32', datatype] as const) {
    const { index, buildMs } = await build(dataset, type);
    const memory = index.stats().memoryBytes;
    const points = sweep.map((ef) => measure(index, dataset, truth, ef));
    index.close();
    rows.push({ memory, buildMs, points });
    lines.push(`| ${type} | ${(memory / 2 ** 20).toFixed(1)} | ${(buildMs / 1000).toFixed(1)} | ${points.map((point) => `${point.recall.toFixed(4)} / ${point.queriesPerSecond.toFixed(0)}`).join(' | ')} |`);
  }
  const [base, compact] = [rows[0]!, rows[1]!];
  lines.push(
    '',
    `Ratios ${datatype} / float32: index memory ${(compact.memory / base.memory).toFixed(3)}, build time ${(compact.buildMs / base.buildMs).toFixed(2)}, ` +
      sweep.map((ef, position) => `ef ${ef}: QPS ${(compact.points[position]!.queriesPerSecond / base.points[position]!.queriesPerSecond).toFixed(2)}, recall ${(compact.points[position]!.recall - base.points[position]!.recall >= 0 ? '+' : '')}${(compact.points[position]!.recall - base.points[position]!.recall).toFixed(4)}`).join('; '),
  );
  return lines;
}

export async function runDatatypes(quick: boolean): Promise<string[]> {
  const count = quick ? 5_000 : 30_000;
  const embeddings = clusteredDataset(`${count / 1000}k x 768 Cosine`, 'Cosine', count, 768, quick ? 100 : 300, 100, 31);
  const integers = asBytes(clusteredDataset(`${count / 1000}k x 768 Euclid, integers 0..255`, 'Euclid', count, 768, quick ? 100 : 300, 100, 32), `${count / 1000}k x 768 Euclid, integers 0..255`);
  return ['## Datatypes (float16, uint8) vs float32', '', ...(await compare(embeddings, 'float16')), '', ...(await compare(integers, 'uint8'))];
}
