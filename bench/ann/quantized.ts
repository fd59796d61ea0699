// `npm run bench:ann -- --quantized` (docs/api.md §15, bench/README.md): QuiverDB's int8 and
// binary codes with rescoring against its own float32 graph, usearch's f32 / i8 / b1 indexes and
// (when the Python peers are available, bench/ann/external.ts) faiss's HNSWFlat, HNSWSQ 8-bit
// and binary HNSW, on the same 768-d cosine data in the same run. Recall@10 and single-thread QPS over an ef
// sweep, the QPS ratio to float32 at recall >= 0.95, and index memory.
import { rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Index as UsearchIndex, type MetricKind, type ScalarKind } from 'usearch';
import type { KernelQuantization, WrappedVectorIndex } from '../../src/native/vector-index.js';
import { buildQuiverIndex, EF_CONSTRUCT, K, M } from './contenders.js';
import type { Dataset } from './data.js';
import { recallAt } from './truth.js';
import { ExternalContender, type PeerLaunchers } from './external.js';

// Fine steps at small ef: float32 already passes recall 0.95 near ef = k here, and a coarse grid
// would credit it (or the codes) with more recall than the comparison at equal recall needs.
// The same steps as bench:ann's float sweep (main.ts): two_bits codes cross 0.95 between ef 32
// and 48, where a step of 16 decided their cell (bench/README.md, "Lloyd–Max levels").
const sweep = [10, 12, 16, 20, 24, 28, 32, 40, 48, 64, 96, 128, 192, 256];
const passes = 2;

interface Point {
  ef: number;
  recall: number;
  queriesPerSecond: number;
}

interface Mode {
  name: string;
  /** Searches every query once at `ef`; the found ids, K per query. */
  run(ef: number): Int32Array | Promise<Int32Array>;
  /** The last run's own timing, for peers in a worker process (the hop is not counted). */
  lastMs?(): number | undefined;
  /** Index bytes as this mode holds them (see the table's note). */
  bytes: number | undefined;
  /** Ends a peer's worker process. */
  close?(): void;
}

function quiverMode(index: WrappedVectorIndex, dataset: Dataset, name: string, quantization: { ignore?: boolean; oversampling?: number }, bytes: number | undefined): Mode {
  return {
    name,
    bytes,
    run(ef: number): Int32Array {
      const found = new Int32Array(dataset.queryCount * K).fill(-1);
      for (let query = 0; query < dataset.queryCount; query += 1) {
        const vector = dataset.queries.subarray(query * dataset.dimension, (query + 1) * dataset.dimension);
        found.set(index.searchOnThisThread(vector, K, { ef, quantization }).slots, query * K);
      }
      return found;
    },
  };
}

function usearchMode(dataset: Dataset, quantization: 'f32' | 'i8' | 'b1'): Mode {
  const file = join(tmpdir(), `quiver-bench-usearch-${quantization}-${process.pid}.idx`);
  // usearch's b1 takes sign bits of the f32 input and needs a bit metric.
  const metric = (quantization === 'b1' ? 'hamming' : 'cos') as MetricKind;
  const make = (ef: number) =>
    new UsearchIndex({ dimensions: dataset.dimension, metric, quantization: quantization as ScalarKind, connectivity: M, expansion_add: EF_CONSTRUCT, expansion_search: ef, multi: false });
  let index = make(64);
  index.add(BigUint64Array.from({ length: dataset.count }, (_, row) => BigInt(row)), dataset.vectors, 2);
  index.save(file);
  const bytes = statSync(file).size;
  let currentEf = 64;
  return {
    name: `usearch ${quantization}${quantization === 'f32' ? '' : ' (no rescoring)'}`,
    bytes,
    run(ef: number): Int32Array {
      if (ef !== currentEf) {
        const reloaded = make(ef);
        reloaded.load(file);
        index = reloaded;
        currentEf = ef;
      }
      const found = new Int32Array(dataset.queryCount * K).fill(-1);
      for (let query = 0; query < dataset.queryCount; query += 1) {
        const matches = index.search(dataset.queries.subarray(query * dataset.dimension, (query + 1) * dataset.dimension), K, 1);
        for (let position = 0; position < matches.keys.length; position += 1) found[query * K + position] = Number(matches.keys[position]);
      }
      return found;
    },
  };
}

/** faiss in its worker: a float32, 8-bit or binary HNSW built on 2 threads, like usearch's. */
async function faissMode(dataset: Dataset, launchers: PeerLaunchers, library: 'faiss' | 'faiss-sq8' | 'faiss-binary'): Promise<Mode> {
  const contender = new ExternalContender(library, launchers);
  await contender.build(dataset, 2);
  return {
    name: contender.name,
    bytes: contender.reportedBytes(),
    async run(ef: number): Promise<Int32Array> {
      contender.setEf(ef);
      return contender.searchAll(dataset);
    },
    lastMs: () => contender.lastSearchMs,
    close: () => contender.close(),
  };
}

async function measure(modes: Mode[], dataset: Dataset, truth: Int32Array): Promise<Point[][]> {
  const points: Point[][] = modes.map(() => []);
  for (const mode of modes) await mode.run(sweep[0]!); // warm-up
  for (const ef of sweep) {
    for (const [position, mode] of modes.entries()) {
      let best = Infinity;
      let recall = 0;
      for (let pass = 0; pass < passes; pass += 1) {
        const start = performance.now();
        const found = await mode.run(ef);
        best = Math.min(best, mode.lastMs?.() ?? performance.now() - start);
        recall = recallAt(found, truth, dataset.queryCount);
      }
      points[position]!.push({ ef, recall, queriesPerSecond: (dataset.queryCount / best) * 1000 });
    }
  }
  return points;
}

function bestAt(points: Point[], level: number): Point | undefined {
  return points.filter((point) => point.recall >= level).sort((a, b) => b.queriesPerSecond - a.queriesPerSecond)[0];
}

/**
 * Bytes a kernel `Rows` store (crates/quiver-core/src/rows.rs) reports for `count` rows of
 * `rowBytes`: segments of 1024, 2048, 4096… rows; one under 256 KiB counts whole, a larger one (an
 * anonymous mapping) up to the page holding the last row. The same rule sizes the float arena and
 * the code rows, so ratios compare like with like.
 */
function rowsAllocatedBytes(count: number, rowBytes: number): number {
  const lazySegmentBytes = 256 << 10;
  const pageBytes = 4096;
  let total = 0;
  for (let segment = 0, first = 0; first < count; first += 1024 << segment, segment += 1) {
    const size = (1024 << segment) * rowBytes;
    total += size < lazySegmentBytes ? size : Math.min(size, Math.ceil(((count - first) * rowBytes) / pageBytes) * pageBytes);
  }
  return total;
}

const mb = (value: number | undefined) => (value === undefined ? 'n/a' : `${(value / 1024 / 1024).toFixed(1)} MB`);

/** The quantized comparison on one dataset; markdown lines. */
export async function runQuantized(dataset: Dataset, truth: Int32Array, launchers: PeerLaunchers): Promise<string[]> {
  console.error(`\n# quantized: ${dataset.name}: building QuiverDB (2 threads)...`);
  const index = await buildQuiverIndex(dataset, { m: M, efConstruct: EF_CONSTRUCT, threads: 2 });
  // The float arena and its slot table as allocated; the rest of the index's memory is the graph.
  const floats = rowsAllocatedBytes(dataset.count, dataset.dimension * 4);
  const graph = Math.max(0, index.stats().memoryBytes - floats - rowsAllocatedBytes(dataset.count, 4));
  const timeCodes = async (quantization: KernelQuantization): Promise<{ ms: number; codes: number }> => {
    const start = performance.now();
    index.setQuantization(quantization);
    await index.waitQuantized();
    return { ms: performance.now() - start, codes: index.quantizationStatus().memoryBytes };
  };
  const lines: string[] = [];
  const modes: Mode[] = [];
  const results: Point[][] = [];
  const built: string[] = [];
  // One quantizer at a time on the one graph: float32 (ignore), then int8, then each binary
  // encoding (with the query encoded like the codes, or asymmetric: docs/api.md §15).
  const measureQuiver = async (batch: Mode[]) => results.push(...(await measure(batch, dataset, truth)));
  const float32 = quiverMode(index, dataset, 'QuiverDB float32', { ignore: true }, floats + graph);
  await measureQuiver([float32]);
  modes.push(float32);
  const int8 = await timeCodes({ kind: 'int8' });
  built.push(`${(int8.ms / 1000).toFixed(2)} s (int8)`);
  const int8Modes = [1, 1.5, 2, 4].map((oversampling) => quiverMode(index, dataset, `QuiverDB int8 + rescore (oversampling ${oversampling})`, { oversampling }, int8.codes + graph));
  await measureQuiver(int8Modes);
  modes.push(...int8Modes);
  const binaryRuns: [KernelQuantization & { kind: 'binary' }, number[]][] = [
    [{ kind: 'binary' }, [3, 10]],
    [{ kind: 'binary', encoding: 'one_and_half_bits' }, [3, 10]],
    [{ kind: 'binary', encoding: 'two_bits' }, [3, 10]],
    [{ kind: 'binary', queryEncoding: 'scalar8bits' }, [3]],
    [{ kind: 'binary', encoding: 'one_and_half_bits', queryEncoding: 'scalar4bits' }, [3]],
    [{ kind: 'binary', encoding: 'two_bits', queryEncoding: 'scalar8bits' }, [3, 10]],
  ];
  for (const [quantization, oversamplings] of binaryRuns) {
    const label = `binary ${quantization.encoding ?? 'one_bit'}${quantization.queryEncoding ? ` / ${quantization.queryEncoding} query` : ''}`;
    const codes = await timeCodes(quantization);
    built.push(`${(codes.ms / 1000).toFixed(2)} s (${label})`);
    const binaryModes = oversamplings.map((oversampling) => quiverMode(index, dataset, `QuiverDB ${label} + rescore (oversampling ${oversampling})`, { oversampling }, codes.codes + graph));
    await measureQuiver(binaryModes);
    modes.push(...binaryModes);
  }
  index.close();
  for (const kind of ['f32', 'i8', 'b1'] as const) {
    console.error(`  usearch ${kind} build (2 threads)...`);
    const mode = usearchMode(dataset, kind);
    await measureQuiver([mode]);
    modes.push(mode);
  }
  if (launchers.python) {
    for (const library of ['faiss', 'faiss-sq8', 'faiss-binary'] as const) {
      console.error(`  ${library} build (2 threads)...`);
      const mode = await faissMode(dataset, launchers, library);
      await measureQuiver([mode]);
      mode.close?.();
      modes.push(mode);
    }
  }
  lines.push(`### Quantized: ${dataset.name} (${dataset.queryCount} queries, k=${K}, M=${M}, ef_construct=${EF_CONSTRUCT}, one query at a time on one thread)`, '');
  lines.push(`Codes built from the stored vectors, in the background, in ${built.join(', ')}.`, '');
  lines.push('| mode | index memory | ratio to float32 |', '|---|---|---|');
  for (const mode of modes) lines.push(`| ${mode.name} | ${mb(mode.bytes)} | ${mode.bytes === undefined ? 'n/a' : (mode.bytes / (floats + graph)).toFixed(2)} |`);
  lines.push(
    '',
    `QuiverDB index memory = the float32 arena (${mb(floats)} allocated) or the codes (as allocated), plus the graph (${mb(graph)});`,
    'this in-process index keeps its float32 originals in RAM for rescoring (a collection with `on_disk: true` maps them instead: bench:memory). usearch: the size of its saved index file;',
    'faiss: the size of its serialized index (faiss_serialize_index), cosine as inner product on unit vectors, binary = sign bits under Hamming distance.',
    '',
    `| ef | ${modes.map((mode) => `${mode.name} recall / QPS`).join(' | ')} |`,
    `|---|${modes.map(() => '---').join('|')}|`,
  );
  sweep.forEach((ef, position) => lines.push(`| ${ef} | ${results.map((points) => `${points[position]!.recall.toFixed(4)} / ${Math.round(points[position]!.queriesPerSecond)}`).join(' | ')} |`));
  const floatBest = bestAt(results[0]!, 0.95);
  lines.push('', '| mode | best QPS at recall@10 >= 0.95 | ratio to QuiverDB float32 |', '|---|---|---|');
  modes.forEach((mode, position) => {
    const best = bestAt(results[position]!, 0.95);
    const ratio = best && floatBest ? (best.queriesPerSecond / floatBest.queriesPerSecond).toFixed(2) : 'n/a';
    lines.push(`| ${mode.name} | ${best ? `${Math.round(best.queriesPerSecond)} (ef ${best.ef}, recall ${best.recall.toFixed(4)})` : 'not reached'} | ${ratio} |`);
  });
  for (const kind of ['f32', 'i8', 'b1']) rmSync(join(tmpdir(), `quiver-bench-usearch-${kind}-${process.pid}.idx`), { force: true });
  return lines;
}
