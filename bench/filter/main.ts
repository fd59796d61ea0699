// bench:filter — count and filtered-search latency on points whose keyword payload matches 1%,
// without and then with a keyword index on that field (same data, same queries).
//
//   npm run bench:filter              200k points x 32 dimensions, 200 queries per figure
//   npm run bench:filter -- --quick   50k points x 16 dimensions, 20 queries per figure (CI)
//
// Runs the app in-process (fastify inject: routing, parsing and serialising included, no
// sockets) over a temporary data directory with fsync off. Figures are printed; nothing is
// asserted. The planner alone (filter -> bitset) is timed too, since that is what the index
// changes.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { allowedSlots } from '../../src/filter/collection-filters.js';
import { mulberry32 } from '../../test/support/seeded-random.js';

const quick = process.argv.includes('--quick');
const pointCount = quick ? 50_000 : 200_000;
const dimension = quick ? 16 : 32;
const queries = quick ? 20 : 200;
const batchSize = 5_000;
const collection = 'bench_filter';
const rareFilter = { must: [{ key: 'tag', match: { value: 'rare' } }] };

function batchBody(random: () => number, firstId: number, count: number): string {
  const points: string[] = [];
  for (let position = 0; position < count; position += 1) {
    const id = firstId + position;
    const values = new Array<string>(dimension);
    for (let index = 0; index < dimension; index += 1) values[index] = (random() * 2 - 1).toFixed(4);
    // 1% of points carry "rare"; the rest spread over a few common values.
    const tag = id % 100 === 0 ? 'rare' : `common-${id % 7}`;
    points.push(`{"id":${id},"vector":[${values.join(',')}],"payload":{"tag":"${tag}","n":${id}}}`);
  }
  return `{"points":[${points.join(',')}]}`;
}

interface Figures {
  median_ms: number;
  p95_ms: number;
}

function summarise(samples: number[]): Figures {
  const sorted = [...samples].sort((left, right) => left - right);
  const at = (share: number) => sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))]!;
  return { median_ms: Number(at(0.5).toFixed(3)), p95_ms: Number(at(0.95).toFixed(3)) };
}

async function main(): Promise<void> {
  const directory = await mkdtemp(join(tmpdir(), 'quiver-bench-filter-'));
  // Every query asks the same filter: with kept answers on, all but the first two would read a
  // kept set and time nothing of the planner or the index (src/filter/filter-answers.ts).
  const config = loadConfig({ overrides: { storage: { path: directory, fsync: false }, limits: { filter_answer_cache_mb: 0 } } });
  const app = buildApp(config, { logger: pino({ level: 'silent' }) });
  try {
    await app.engine.open();
    const started = performance.now();
    const create = await app.inject({ method: 'PUT', url: `/collections/${collection}`, payload: { vectors: { size: dimension, distance: 'Cosine' } } });
    if (create.statusCode !== 200) throw new Error(`create failed: ${create.body}`);
    const random = mulberry32(5);
    for (let first = 0; first < pointCount; first += batchSize) {
      const response = await app.inject({
        method: 'PUT',
        url: `/collections/${collection}/points?wait=true`,
        headers: { 'content-type': 'application/json' },
        payload: batchBody(random, first, Math.min(batchSize, pointCount - first)),
      });
      if (response.statusCode !== 200) throw new Error(`upsert failed: ${response.body}`);
    }
    console.log(`loaded ${pointCount} points x ${dimension} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    const target = app.collections.get(collection);
    const queryVectors = Array.from({ length: queries }, () => Array.from({ length: dimension }, () => random() * 2 - 1));

    async function measure(label: string): Promise<Record<string, unknown>> {
      const plan: number[] = [];
      const count: number[] = [];
      const search: number[] = [];
      let matched = 0;
      let returned = 0;
      for (let round = 0; round < queries; round += 1) {
        let begin = performance.now();
        matched = allowedSlots(target, rareFilter, 'filter').size;
        plan.push(performance.now() - begin);
        begin = performance.now();
        const counted = await app.inject({ method: 'POST', url: `/collections/${collection}/points/count`, payload: { filter: rareFilter, exact: true } });
        count.push(performance.now() - begin);
        if (counted.json().result.count !== matched) throw new Error('count disagrees with the planner');
        begin = performance.now();
        const found = await app.inject({
          method: 'POST',
          url: `/collections/${collection}/points/search`,
          payload: { vector: queryVectors[round], limit: 10, filter: rareFilter },
        });
        search.push(performance.now() - begin);
        if (found.statusCode !== 200) throw new Error(`search failed: ${found.body}`);
        returned = found.json().result.length;
      }
      return { label, matched, returned, plan: summarise(plan), count: summarise(count), search: summarise(search) };
    }

    const without = await measure('no index');
    const index = await app.inject({ method: 'PUT', url: `/collections/${collection}/index?wait=true`, payload: { field_name: 'tag', field_schema: 'keyword' } });
    if (index.statusCode !== 200) throw new Error(`index failed: ${index.body}`);
    const withIndex = await measure('keyword index');
    for (const figures of [without, withIndex]) console.log(JSON.stringify(figures));
    const ratio = (key: 'plan' | 'count' | 'search') =>
      ((without[key] as Figures).median_ms / Math.max(0.001, (withIndex[key] as Figures).median_ms)).toFixed(1);
    console.log(`speed-up with the index (median): planner ${ratio('plan')}x, count ${ratio('count')}x, filtered search ${ratio('search')}x`);
  } finally {
    await app.close();
    await rm(directory, { recursive: true, force: true });
  }
}

await main();
