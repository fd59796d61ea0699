// Rules for inline-search.ts and the two paths of WrappedVectorIndex.search (vector-index.ts):
// a search run inline on the JS thread must answer, fail and order exactly like one run on the
// kernel pool (the slow twin, forced with setInlineSearch(false)).
import { afterEach, describe, expect, it } from 'vitest';
import { nativeErrorCode } from './errors.js';
import { INLINE_COST_LIMIT_MS, INLINE_PAUSE, INLINE_RUN_LIMIT, InlineCost, InlineGate, setInlineSearch } from './inline-search.js';
import { createVectorIndex, type SearchResult, type VectorIndex } from './vector-index.js';
import { rejection } from '../../test/support/rejection.js';

afterEach(() => setInlineSearch(true));

/** Deterministic pseudo-random vectors (xorshift), so failures reproduce. */
function randomVectors(count: number, dimension: number, seed: number): Float32Array {
  let state = seed >>> 0 || 1;
  const values = new Float32Array(count * dimension);
  for (let index = 0; index < values.length; index += 1) {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    values[index] = (state / 0xffff_ffff) * 2 - 1;
  }
  return values;
}

const dimension = 16;
const pointCount = 2_000;
const queryCount = 200;

async function builtIndex(): Promise<VectorIndex> {
  const index = createVectorIndex({ dimension, distance: 'Euclid', m: 16, efConstruct: 64, fullScanThreshold: 1, indexingThreads: 1 });
  await index.upsert(
    Uint32Array.from({ length: pointCount }, (_, slot) => slot),
    randomVectors(pointCount, dimension, 7),
  );
  await index.waitIndexed();
  return index;
}

function query(queries: Float32Array, number: number): Float32Array {
  return queries.subarray(number * dimension, (number + 1) * dimension);
}

function plain(result: SearchResult): { slots: number[]; scores: number[] } {
  return { slots: Array.from(result.slots), scores: Array.from(result.scores) };
}

/** Every query in flight at once, each awaited by its own caller. */
async function allInFlight(index: VectorIndex, queries: Float32Array): Promise<SearchResult[]> {
  return Promise.all(Array.from({ length: queryCount }, (_, number) => index.search(query(queries, number), 10, { ef: 32 })));
}

/** One at a time, each awaited before the next starts. */
async function oneByOne(index: VectorIndex, queries: Float32Array): Promise<SearchResult[]> {
  const results: SearchResult[] = [];
  for (let number = 0; number < queryCount; number += 1) results.push(await index.search(query(queries, number), 10, { ef: 32 }));
  return results;
}

describe('search inline and on the pool', () => {
  it('inline search — one at a time and all in flight give the pool path’s ids and scores, query by query', async () => {
    const index = await builtIndex();
    const queries = randomVectors(queryCount, dimension, 99);
    setInlineSearch(false);
    const pooled = (await oneByOne(index, queries)).map(plain);
    setInlineSearch(true);
    expect((await oneByOne(index, queries)).map(plain)).toEqual(pooled);
    expect((await allInFlight(index, queries)).map(plain)).toEqual(pooled);
    setInlineSearch(false);
    // 200 in flight on the pool: each promise gets its own query's answer, whatever order the
    // kernel threads finish in.
    expect((await allInFlight(index, queries)).map(plain)).toEqual(pooled);
    index.close();
  });

  it('inline search — a wrong dimension and a bad k still reject, on both paths', async () => {
    const index = await builtIndex();
    for (const inline of [true, false]) {
      setInlineSearch(inline);
      expect(nativeErrorCode(await rejection(index.search(new Float32Array(dimension + 1), 5)))).toBe('DIMENSION_MISMATCH');
      expect(nativeErrorCode(await rejection(index.search(new Float32Array(dimension), -1)))).toBe('INVALID_ARGUMENT');
    }
    index.close();
  });

  it('inline search — a closed index rejects with INDEX_CLOSED, on both paths', async () => {
    const index = await builtIndex();
    index.close();
    for (const inline of [true, false]) {
      setInlineSearch(inline);
      expect(nativeErrorCode(await rejection(index.search(new Float32Array(dimension), 5)))).toBe('INDEX_CLOSED');
    }
  });

  it('inline search — filtered and exact searches answer like the pool (they always run there)', async () => {
    const index = await builtIndex();
    const allowed = new Uint8Array(pointCount / 8).fill(0b0101_0101);
    const probe = query(randomVectors(1, dimension, 5), 0);
    const inline = plain(await index.search(probe, 10, { allowed }));
    const exact = plain(await index.search(probe, 10, { exact: true }));
    setInlineSearch(false);
    expect(plain(await index.search(probe, 10, { allowed }))).toEqual(inline);
    expect(plain(await index.search(probe, 10, { exact: true }))).toEqual(exact);
    expect(inline.slots.every((slot) => slot % 2 === 0)).toBe(true);
    index.close();
  });
});

describe('InlineGate', () => {
  it('inline gate — nothing runs inline while a search is pending on the pool', () => {
    const gate = new InlineGate();
    expect(gate.admit(1)).toBe(false);
    expect(gate.admit(0)).toBe(true);
  });

  it('inline gate — at most INLINE_RUN_LIMIT back to back while the event loop never waits', () => {
    const gate = new InlineGate();
    let admitted = 0;
    for (let attempt = 0; attempt < INLINE_RUN_LIMIT * 3; attempt += 1) if (gate.admit(0)) admitted += 1;
    expect(admitted).toBe(INLINE_RUN_LIMIT);
  });

  it('inline gate — the run limit starts over once the event loop has waited', async () => {
    const gate = new InlineGate();
    while (gate.admit(0));
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(gate.admit(0)).toBe(true);
  });

  it('inline gate — off means never', () => {
    setInlineSearch(false);
    expect(new InlineGate().admit(0)).toBe(false);
  });
});

describe('InlineCost', () => {
  it('inline cost — a search over the cost limit sends the index to the pool for INLINE_PAUSE searches', () => {
    const cost = new InlineCost();
    cost.record(INLINE_COST_LIMIT_MS / 2);
    expect(cost.cheap()).toBe(true);
    cost.record(INLINE_COST_LIMIT_MS * 2);
    let paused = 0;
    while (!cost.cheap()) paused += 1;
    expect(paused).toBe(INLINE_PAUSE);
  });
});
