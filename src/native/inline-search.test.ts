// Rules for inline-search.ts and the two paths of WrappedVectorIndex.search (vector-index.ts):
// a search run inline on the JS thread must answer, fail and order exactly like one run on the
// kernel pool (the slow twin, forced with setInlineSearch(false)).
import { afterEach, describe, expect, it } from 'vitest';
import { nativeErrorCode } from './errors.js';
import { INLINE_BUDGET_MS, INLINE_COST_LIMIT_MS, INLINE_PAUSE, InlineCost, InlineGate, requestBegun, setInlineSearch } from './inline-search.js';
import { createVectorIndex, type SearchResult, type VectorIndex } from './vector-index.js';
import { rejection } from '../../test/support/rejection.js';
import { xorshiftVectors } from '../../test/support/seeded-random.js';

afterEach(() => setInlineSearch(true));


const dimension = 16;
const pointCount = 2_000;
const queryCount = 200;

async function builtIndex(): Promise<VectorIndex> {
  const index = createVectorIndex({ dimension, distance: 'Euclid', m: 16, efConstruct: 64, fullScanThreshold: 1, indexingThreads: 1 });
  await index.upsert(
    Uint32Array.from({ length: pointCount }, (_, slot) => slot),
    xorshiftVectors(pointCount, dimension, 7),
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
    const queries = xorshiftVectors(queryCount, dimension, 99);
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

  it('inline search — a filtered search runs on the JS thread when it is idle and answers like the pool; an exact one always goes to the pool', async () => {
    const index = await builtIndex();
    const allowed = new Uint8Array(pointCount / 8).fill(0b0101_0101);
    const probe = query(xorshiftVectors(1, dimension, 5), 0);
    await new Promise((resolve) => setTimeout(resolve, 5));
    // Inline, the promise is settled before any event-loop turn; a pool answer needs one.
    const filtered = settlesWithinMicrotasks(index.search(probe, 10, { allowed }));
    expect(await filtered.settledEarly).toBe(true);
    const inline = plain(await filtered.promise);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const exactSearch = settlesWithinMicrotasks(index.search(probe, 10, { exact: true }));
    expect(await exactSearch.settledEarly).toBe(false);
    const exact = plain(await exactSearch.promise);
    setInlineSearch(false);
    expect(plain(await index.search(probe, 10, { allowed }))).toEqual(inline);
    expect(plain(await index.search(probe, 10, { exact: true }))).toEqual(exact);
    expect(inline.slots.every((slot) => slot % 2 === 0)).toBe(true);
    index.close();
  });
});

/** Whether `promise` settles within a few microtasks, i.e. without waiting for the event loop. */
function settlesWithinMicrotasks<Value>(promise: Promise<Value>): { promise: Promise<Value>; settledEarly: Promise<boolean> } {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  const settledEarly = (async () => {
    for (let turn = 0; turn < 5; turn += 1) await Promise.resolve();
    return settled;
  })();
  return { promise, settledEarly };
}

function busyFor(milliseconds: number): void {
  const until = performance.now() + milliseconds;
  while (performance.now() < until);
}

/** Lets queued microtasks run, as an `await` of a settled search does. */
async function settled(): Promise<void> {
  await Promise.resolve();
}

describe('InlineGate', () => {
  it('inline gate — at most INLINE_BUDGET_MS of inline searches while the event loop never waits and the thread does other work', async () => {
    const gate = new InlineGate();
    let admitted = 0;
    while (gate.admit(0)) {
      // Charged far more than the real time passing: as if searches were a small share.
      gate.spend(0.5);
      await settled();
      admitted += 1;
      expect(admitted).toBeLessThan(1000);
      busyFor(1);
    }
    expect(admitted).toBe(Math.ceil(INLINE_BUDGET_MS / 0.5));
  });

  it('inline gate — the budget is renewed without a wait when searches took nearly all the time', async () => {
    // Time as the gate sees it, moved by the test alone (a real clock made this rule fail when
    // CI's machine paused the process between a search and the next): the event loop never
    // idles, and back-to-back 0.2 ms searches take all of the time.
    let now = 1_000;
    const gate = new InlineGate({ now: () => now, idleTime: () => 0, afterTurn: () => {} });
    for (let search = 0; search < 100; search += 1) {
      expect(gate.admit(0)).toBe(true);
      now += 0.2;
      gate.spend(0.2);
      await settled();
    }
    // The same searches with as much other work between them: once the budget is spent, no more.
    let admitted = 0;
    while (gate.admit(0)) {
      now += 0.2;
      gate.spend(0.2);
      await settled();
      now += 0.2;
      admitted += 1;
      expect(admitted).toBeLessThan(100);
    }
    expect(admitted * 0.2).toBeGreaterThanOrEqual(INLINE_BUDGET_MS);
  });

  it('inline gate — the budget is renewed once the event loop has waited', async () => {
    const gate = new InlineGate();
    // Used up with the thread mostly busy elsewhere, so only a wait renews it.
    while (gate.admit(0)) {
      gate.spend(0.5);
      await settled();
      busyFor(1);
    }
    // Wait until the event loop has really sat idle in its poll phase: a timer alone may find
    // itself already due on a loaded machine (or libuv took its start before the busy loop),
    // and then the loop never waits. Bounded: 200 timers.
    const idleBefore = performance.nodeTiming.idleTime;
    for (let timer = 0; timer < 200 && performance.nodeTiming.idleTime === idleBefore; timer += 1) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(performance.nodeTiming.idleTime).not.toBe(idleBefore);
    expect(gate.admit(0)).toBe(true);
  });

  it('inline gate — requests begun in one turn: the first searches inline, the next goes to the pool, and the next turn starts afresh', async () => {
    // A clock and turns the test moves itself, so no rule depends on the machine's pace.
    let now = 1_000;
    let endTurn: (() => void) | undefined;
    const gate = new InlineGate({ now: () => now, idleTime: () => 0, afterTurn: (callback) => (endTurn = callback) });
    requestBegun();
    expect(gate.admit(0)).toBe(true);
    now += 0.05;
    gate.spend(0.05);
    await settled();
    // The first request answered and a second one read, in the same turn.
    now += 0.1;
    requestBegun();
    expect(gate.admit(0)).toBe(false);
    endTurn!();
    expect(gate.admit(0)).toBe(true);
  });

  it('inline gate — more searches for the same request, or for no request, still run inline in one turn', async () => {
    let now = 1_000;
    const gate = new InlineGate({ now: () => now, idleTime: () => 0, afterTurn: () => {} });
    requestBegun();
    for (let search = 0; search < 3; search += 1) {
      expect(gate.admit(0)).toBe(true);
      now += 0.05;
      gate.spend(0.05);
      await settled();
      now += 0.05;
    }
  });

  it('inline gate — nothing runs inline while a search is pending on the pool', () => {
    const gate = new InlineGate();
    expect(gate.admit(1)).toBe(false);
    expect(gate.admit(0)).toBe(true);
  });

  it('inline gate — a search asked for before the last inline one has settled goes to the pool', async () => {
    const gate = new InlineGate();
    expect(gate.admit(0)).toBe(true);
    gate.spend(0.01);
    // Same microtask: a caller that started several searches without awaiting each.
    expect(gate.admit(0)).toBe(false);
    // A caller that awaited the first one asks only after it settled.
    await settled();
    expect(gate.admit(0)).toBe(true);
  });

  it('inline search — searches started together run on the pool, one awaited at a time run inline', async () => {
    const index = await builtIndex();
    const queries = xorshiftVectors(queryCount, dimension, 11);
    const handle = (index as unknown as { handle: { searchSync: (...values: unknown[]) => unknown; search: (...values: unknown[]) => unknown } }).handle;
    const counts = { inline: 0, pool: 0 };
    const inline = handle.searchSync.bind(handle);
    const pooled = handle.search.bind(handle);
    handle.searchSync = (...values) => ((counts.inline += 1), inline(...values));
    handle.search = (...values) => ((counts.pool += 1), pooled(...values));
    await allInFlight(index, queries);
    // At most the first runs inline (none if the budget is spent); the rest were asked for before it settled.
    expect(counts.inline).toBeLessThanOrEqual(1);
    expect(counts.inline + counts.pool).toBe(queryCount);
    counts.inline = counts.pool = 0;
    // Awaited one by one: inline, but for budget overruns on a slow machine.
    for (let number = 0; number < 20; number += 1) await index.search(query(queries, number), 10, { ef: 32 });
    expect(counts.inline).toBeGreaterThan(counts.pool);
    index.close();
  });

  it('inline gate — off means never', () => {
    setInlineSearch(false);
    expect(new InlineGate().admit(0)).toBe(false);
  });
});

describe('InlineCost', () => {
  it('inline cost — one preempted search does not pause the index', () => {
    const cost = new InlineCost();
    for (let search = 0; search < 20; search += 1) cost.record(INLINE_COST_LIMIT_MS / 10);
    cost.record(INLINE_COST_LIMIT_MS * 4);
    expect(cost.cheap()).toBe(true);
  });

  it('inline cost — searches that stay over the cost limit send the index to the pool for INLINE_PAUSE searches', () => {
    const cost = new InlineCost();
    let recorded = 0;
    while (cost.cheap()) {
      cost.record(INLINE_COST_LIMIT_MS * 3);
      recorded += 1;
      expect(recorded).toBeLessThan(10);
    }
    let paused = 1;
    while (!cost.cheap()) paused += 1;
    expect(paused).toBe(INLINE_PAUSE);
  });
});
