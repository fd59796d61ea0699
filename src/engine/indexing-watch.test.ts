import { describe, expect, it } from 'vitest';
import { captureLogger as capture } from '../../test/support/capture-logger.js';
import type { Collection } from './collection.js';
import { IndexingWatch } from './indexing-watch.js';

/** A stand-in with only what the watch reads: a name and the per-vector linked/total counts. */
function fakeCollection(name: string, state: { linked: number; total: number; graphInUse?: boolean }): Collection {
  return {
    name,
    indexingProgress: () => ({ vectors: [{ name: '', linked: state.linked, total: state.total, graphInUse: state.graphInUse ?? true }], checkpointing: false }),
  } as unknown as Collection;
}

describe('IndexingWatch', () => {
  it('indexing watch — a running graph build is logged at most once per interval per collection, then closed with one line', () => {
    const { logger, lines } = capture();
    let now = 0;
    const building = { linked: 0, total: 10_000 };
    const idle = { linked: 50, total: 50 };
    const collections = [fakeCollection('big', building), fakeCollection('small', idle)];
    const watch = new IndexingWatch({ collections: () => collections, logger, intervalMs: 5_000, now: () => now });
    // Polled every second while 500 vectors a second are linked, for 20 s.
    for (let second = 0; second <= 20; second += 1) {
      now = second * 1000;
      building.linked = Math.min(building.total, second * 500);
      watch.poll();
    }
    const progress = lines().filter((line) => line.task === 'graph build' && line.total !== undefined);
    expect(progress.map((line) => line.done)).toEqual([2_500, 5_000, 7_500]);
    expect(progress.every((line) => line.collection === 'big')).toBe(true);
    expect(progress[0]).toMatchObject({ rate_per_second: 500, eta_seconds: 15, percent: 25 });
    const closing = lines().filter((line) => line.elapsed_ms !== undefined);
    expect(closing).toEqual([expect.objectContaining({ collection: 'big', done: 10_000 })]);
  });

  it('indexing watch — a vector whose graph is not in use is not a build; a deleted collection is forgotten', () => {
    const { logger, lines } = capture();
    let now = 0;
    const exact = fakeCollection('exact', { linked: 0, total: 100, graphInUse: false });
    let collections = [exact, fakeCollection('gone', { linked: 0, total: 100 })];
    const watch = new IndexingWatch({ collections: () => collections, logger, intervalMs: 0, now: () => now });
    watch.poll();
    now = 1_000;
    collections = [exact];
    watch.poll();
    now = 2_000;
    watch.poll();
    expect(lines()).toEqual([]);
  });
});
