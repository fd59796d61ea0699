// `npm run bench:async [-- --quick]`: the kernel's async search (VectorIndex.search through the
// completion channel, the path the server uses) against the synchronous call on the JS thread
// (searchOnThisThread), same index, same queries, same ef. Sync and async passes are
// interleaved in several rounds so a shared machine's noise hits both alike; the figure that
// matters is the ratio async QPS / sync QPS at 1, 2 and 64 searches in flight (docs/architecture.md §6).
// Async is measured twice: as shipped (a search may run inline on the JS thread when nothing
// else is pending, src/native/inline-search.ts) and with every search forced onto the pool.
// `--quick` (small data) checks only correctness: async and sync return the same ids and scores.
import { buildQuiverIndex, EF_CONSTRUCT, M } from '../ann/contenders.js';
import { clusteredDataset, type Dataset } from '../ann/data.js';
import { setInlineSearch } from '../../src/native/inline-search.js';
import type { WrappedVectorIndex } from '../../src/native/vector-index.js';
import { median } from '../statistics.js';

const quick = process.argv.includes('--quick');
const K = 10;
const EF = 64;
const rounds = quick ? 1 : Number(process.env.ASYNC_ROUNDS ?? 5);
const inFlightLevels = [1, 2, 64];
const datasets: Dataset[] = quick
  ? [clusteredDataset('5k x 32 Euclid', 'Euclid', 5_000, 32, 300, 50, 21), clusteredDataset('2k x 96 Cosine', 'Cosine', 2_000, 96, 300, 30, 22)]
  : [
      clusteredDataset('50k x 128 Euclid', 'Euclid', 50_000, 128, 2_000, 200, 1),
      clusteredDataset('20k x 768 Cosine', 'Cosine', 20_000, 768, 1_000, 100, 2),
    ].filter((dataset) => dataset.name.includes(process.env.ASYNC_ONLY ?? ''));

function build(dataset: Dataset): Promise<WrappedVectorIndex> {
  return buildQuiverIndex(dataset, { m: M, efConstruct: EF_CONSTRUCT, threads: 2 });
}

function query(dataset: Dataset, number: number): Float32Array {
  const at = number % dataset.queryCount;
  return dataset.queries.subarray(at * dataset.dimension, (at + 1) * dataset.dimension);
}

interface Pass {
  queriesPerSecond: number;
  p50Ms: number;
  p99Ms: number;
}

/** Latencies and busy time of one mode, summed over its blocks. */
class Tally {
  readonly latencies: number[] = [];
  elapsedMs = 0;

  pass(): Pass {
    const sorted = [...this.latencies].sort((a, b) => a - b);
    const at = (fraction: number): number => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))]!;
    return { queriesPerSecond: (sorted.length * 1000) / this.elapsedMs, p50Ms: at(0.5), p99Ms: at(0.99) };
  }
}

function syncBlock(index: WrappedVectorIndex, dataset: Dataset, from: number, count: number, tally: Tally): void {
  const start = performance.now();
  for (let number = from; number < from + count; number += 1) {
    const began = performance.now();
    index.searchOnThisThread(query(dataset, number), K, { ef: EF });
    tally.latencies.push(performance.now() - began);
  }
  tally.elapsedMs += performance.now() - start;
}

async function asyncBlock(index: WrappedVectorIndex, dataset: Dataset, from: number, count: number, inFlight: number, tally: Tally): Promise<void> {
  let next = from;
  const worker = async (): Promise<void> => {
    while (next < from + count) {
      const number = next;
      next += 1;
      const began = performance.now();
      await index.search(query(dataset, number), K, { ef: EF });
      tally.latencies.push(performance.now() - began);
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: inFlight }, worker));
  tally.elapsedMs += performance.now() - start;
}

/**
 * One round at `inFlight`: the queries in small blocks, each block run sync, async and async on
 * the pool only, in a rotating order, so load swings on a shared machine (seconds long) fall on
 * all three alike.
 */
async function round(index: WrappedVectorIndex, dataset: Dataset, inFlight: number): Promise<{ sync: Pass; asynchronous: Pass; pooled: Pass }> {
  const tallies = { sync: new Tally(), asynchronous: new Tally(), pooled: new Tally() };
  const block = Math.max(50, inFlight * 4);
  const modes: Array<(from: number, count: number) => Promise<void>> = [
    async (from, count) => syncBlock(index, dataset, from, count, tallies.sync),
    async (from, count) => asyncBlock(index, dataset, from, count, inFlight, tallies.asynchronous),
    async (from, count) => {
      setInlineSearch(false);
      await asyncBlock(index, dataset, from, count, inFlight, tallies.pooled);
      setInlineSearch(true);
    },
  ];
  let turn = 0;
  for (let from = 0; from < dataset.queryCount; from += block) {
    const count = Math.min(block, dataset.queryCount - from);
    for (let offset = 0; offset < modes.length; offset += 1) await modes[(turn + offset) % modes.length]!(from, count);
    turn += 1;
  }
  return { sync: tallies.sync.pass(), asynchronous: tallies.asynchronous.pass(), pooled: tallies.pooled.pass() };
}

/** Async and sync give the same ids and scores for every query, whatever is in flight. */
async function checkSame(index: WrappedVectorIndex, dataset: Dataset): Promise<number> {
  let mismatches = 0;
  const numbers = Array.from({ length: dataset.queryCount }, (_, number) => number);
  const answers = await Promise.all(numbers.map(async (number) => index.search(query(dataset, number), K, { ef: EF })));
  for (const number of numbers) {
    const expected = index.searchOnThisThread(query(dataset, number), K, { ef: EF });
    const got = answers[number]!;
    const same =
      got.slots.length === expected.slots.length &&
      got.slots.every((slot, at) => slot === expected.slots[at]) &&
      got.scores.every((score, at) => Object.is(score, expected.scores[at]));
    if (!same) mismatches += 1;
  }
  return mismatches;
}

async function main(): Promise<void> {
  let failures = 0;
  for (const dataset of datasets) {
    const built = performance.now();
    const index = await build(dataset);
    console.log(`\n${dataset.name}: built in ${((performance.now() - built) / 1000).toFixed(1)} s, k ${K}, ef ${EF}, ${rounds} rounds`);
    for (const inline of [true, false]) {
      setInlineSearch(inline);
      const mismatches = await checkSame(index, dataset);
      console.log(
        `  async${inline ? '' : ' (pool only)'} == sync (ids and scores, ${dataset.queryCount} queries all in flight): ${mismatches === 0 ? 'yes' : `NO, ${mismatches} differ`}`,
      );
      if (mismatches > 0) failures += 1;
    }
    setInlineSearch(true);
    if (!quick) {
      await round(index, dataset, 2); // warm-up
      const ratios = new Map<string, number[]>();
      const keep = (key: string, ratio: number): void => {
        ratios.set(key, [...(ratios.get(key) ?? []), ratio]);
      };
      const describe = (pass: Pass): string =>
        `${pass.queriesPerSecond.toFixed(0)} QPS (p50 ${pass.p50Ms.toFixed(3)} / p99 ${pass.p99Ms.toFixed(3)} ms)`;
      const lines: string[] = [];
      for (let number = 0; number < rounds; number += 1) {
        for (const inFlight of inFlightLevels) {
          const { sync, asynchronous, pooled } = await round(index, dataset, inFlight);
          const ratio = asynchronous.queriesPerSecond / sync.queriesPerSecond;
          const pooledRatio = pooled.queriesPerSecond / sync.queriesPerSecond;
          keep(`${inFlight} in flight`, ratio);
          keep(`${inFlight} in flight, pool only`, pooledRatio);
          lines.push(
            `  round ${number + 1}, ${String(inFlight).padStart(2)} in flight: sync ${describe(sync)}, async ${describe(asynchronous)} ` +
              `ratio ${ratio.toFixed(2)}, pool only ${describe(pooled)} ratio ${pooledRatio.toFixed(2)}`,
          );
        }
      }
      console.log(lines.join('\n'));
      for (const [key, values] of ratios) {
        console.log(
          `  ${dataset.name}, ${key}: async / sync median ${median(values).toFixed(2)} (rounds: ${values.map((value) => value.toFixed(2)).join(', ')})`,
        );
      }
    }
    index.close();
  }
  if (failures > 0) {
    console.error(`bench:async: async and sync answers differ on ${failures} data set(s)`);
    process.exit(1);
  }
}

await main();
