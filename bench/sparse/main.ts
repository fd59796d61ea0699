// bench:sparse — the kernel's sparse index on a generated SPLADE-like corpus: a Zipf vocabulary
// of 30k terms, ~100 non-zeros per document and ~20 per query, positive weights that grow with
// a term's rarity, as a learned sparse model's do (its FLOPS regulariser pushes frequent terms
// down). That correlation is what lets bounds prune: with weights independent of rarity the
// pruned scorer measured 0.7-1.1x the exhaustive one on --quick (all lists stay essential).
//
//   npm run bench:sparse              500k documents, 1000 queries per figure
//   npm run bench:sparse -- --quick   20k documents, 200 queries per figure (CI)
//
// Straight through src/native (no HTTP). Measures build time, memory per stored non-zero,
// and queries per second for exact top-10 with 1 and 2 searches in flight, without and with
// a filter allowing 10% of the documents, for the pruned scorer and for the exhaustive twin
// (`exact: true`) in the same run. Every query's pruned top-10 must equal the twin's (slots
// and scores, i.e. recall 1.0); otherwise the run fails with exit code 1.
import { createSparseIndex, type SparseIndex, type SparseSearchOptions } from '../../src/native/sparse-index.js';
import { mulberry32 } from '../../test/support/seeded-random.js';

const quick = process.argv.includes('--quick');
const documentCount = quick ? 20_000 : 500_000;
const queryCount = quick ? 200 : 1_000;
const vocabulary = 30_000;
const documentTerms = 100;
const queryTerms = 20;
const k = 10;
const batchSize = 5_000;

/** Term ranks drawn with probability ∝ 1 / (rank + 1), by binary search over the cumulative weights. */
function zipf(random: () => number): () => number {
  const cumulative = new Float64Array(vocabulary);
  let total = 0;
  for (let rank = 0; rank < vocabulary; rank += 1) {
    total += 1 / (rank + 1);
    cumulative[rank] = total;
  }
  return () => {
    const target = random() * total;
    let low = 0;
    let high = vocabulary - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (cumulative[middle]! < target) low = middle + 1;
      else high = middle;
    }
    return low;
  };
}

interface Sparse {
  indices: Uint32Array;
  values: Float32Array;
}

/** From about 0.07 for the most frequent term to 1 for the rarest. */
function rarity(rank: number): number {
  return Math.log(rank + 2) / Math.log(vocabulary + 1);
}

/** About `mean` distinct terms (±20%), weights in (0, 3] skewed low and scaled by rarity. */
function sparseVector(random: () => number, draw: () => number, mean: number): Sparse {
  const size = Math.max(1, Math.round(mean * (0.8 + 0.4 * random())));
  const terms = new Set<number>();
  // Common terms repeat often; the cap keeps a pathological seed from looping long.
  for (let attempts = 0; terms.size < size && attempts < size * 20; attempts += 1) terms.add(draw());
  const indices = Uint32Array.from(terms);
  const values = Float32Array.from(indices, (rank) => (0.05 + 2.95 * random() ** 2) * rarity(rank));
  return { indices, values };
}

async function build(index: SparseIndex, random: () => number, draw: () => number): Promise<number> {
  let seconds = 0;
  for (let first = 0; first < documentCount; first += batchSize) {
    const count = Math.min(batchSize, documentCount - first);
    const vectors = Array.from({ length: count }, () => sparseVector(random, draw, documentTerms));
    const offsets = new Uint32Array(count + 1);
    vectors.forEach((vector, position) => (offsets[position + 1] = offsets[position]! + vector.indices.length));
    const indices = new Uint32Array(offsets[count]!);
    const values = new Float32Array(offsets[count]!);
    vectors.forEach((vector, position) => {
      indices.set(vector.indices, offsets[position]);
      values.set(vector.values, offsets[position]);
    });
    const slots = Uint32Array.from({ length: count }, (_, position) => first + position);
    const started = performance.now();
    await index.upsert(slots, offsets, indices, values);
    seconds += (performance.now() - started) / 1000;
  }
  return seconds;
}

/** Queries per second with `inFlight` searches outstanding at all times. */
async function throughput(index: SparseIndex, queries: Sparse[], inFlight: number, options: SparseSearchOptions): Promise<number> {
  let next = 0;
  const started = performance.now();
  const worker = async (): Promise<void> => {
    while (next < queries.length) {
      const query = queries[next]!;
      next += 1;
      await index.search(query, k, options);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return queries.length / ((performance.now() - started) / 1000);
}

/** Queries whose pruned top-k differs from the exhaustive twin's (slots or score bits). */
async function disagreements(index: SparseIndex, queries: Sparse[], allowed: Uint8Array | undefined): Promise<number> {
  let differing = 0;
  for (const query of queries) {
    const pruned = await index.search(query, k, { allowed });
    const exhaustive = await index.search(query, k, { allowed, exact: true });
    const same =
      pruned.slots.length === exhaustive.slots.length &&
      pruned.slots.every((slot, position) => slot === exhaustive.slots[position] && Object.is(pruned.scores[position], exhaustive.scores[position]));
    if (!same) differing += 1;
  }
  return differing;
}

async function main(): Promise<void> {
  const random = mulberry32(20_240_611);
  const draw = zipf(random);
  const index = createSparseIndex();
  try {
    const buildSeconds = await build(index, random, draw);
    const stats = index.stats();
    console.log(
      `built ${stats.count} documents (${stats.nonZeros} non-zeros over ${stats.dimensions} terms) in ${buildSeconds.toFixed(2)} s; ` +
        `${(stats.memoryBytes / 2 ** 20).toFixed(1)} MiB, ${(stats.memoryBytes / stats.nonZeros).toFixed(2)} bytes per non-zero`,
    );
    const queries = Array.from({ length: queryCount }, () => sparseVector(random, draw, queryTerms));
    const filter = new Uint8Array(Math.ceil(documentCount / 8));
    for (let slot = 0; slot < documentCount; slot += 1) if (random() < 0.1) filter[slot >> 3]! |= 1 << (slot & 7);

    let failed = false;
    const rows: Array<Record<string, unknown>> = [];
    for (const [label, allowed] of [
      ['no filter', undefined],
      ['10% filter', filter],
    ] as const) {
      // Also the warm-up: every query runs once on each path before anything is timed.
      const differing = await disagreements(index, queries, allowed);
      if (differing > 0) failed = true;
      for (const inFlight of [1, 2]) {
        const pruned = await throughput(index, queries, inFlight, { allowed });
        const exhaustive = await throughput(index, queries, inFlight, { allowed, exact: true });
        const row = {
          filter: label,
          in_flight: inFlight,
          pruned_qps: Math.round(pruned),
          exhaustive_qps: Math.round(exhaustive),
          speed_up: Number((pruned / exhaustive).toFixed(2)),
          recall: Number(((queries.length - differing) / queries.length).toFixed(4)),
        };
        rows.push(row);
        console.log(JSON.stringify(row));
      }
    }
    if (failed) {
      console.error(`FAILED: the pruned top-${k} differs from the exhaustive twin's on some queries (recall below 1.0)`);
      process.exitCode = 1;
    } else {
      console.log(`recall 1.0: the pruned top-${k} equals the exhaustive twin's on all ${queries.length} queries, with and without the filter`);
    }
  } finally {
    index.close();
  }
}

await main();
