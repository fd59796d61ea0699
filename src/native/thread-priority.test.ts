// Rule for the kernel pool's scheduling priority (crates/quiver-core/src/background_priority.rs):
// search threads run SEARCH_NICE_INCREMENT (5) nice steps below the JS thread, so that on busy
// cores the thread that parses and answers every request goes first. Linux only: it is read from
// /proc, where each thread's nice value is the 19th field of its stat line.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { setInlineSearch } from './inline-search.js';
import { createVectorIndex } from './vector-index.js';

afterEach(() => setInlineSearch(true));

const SEARCH_NICE_INCREMENT = 5;

/**
 * A thread's name and nice value from one read of its stat line. One read, not `comm` then
 * `stat`: a thread being born (a graph builder spawned by a pool thread) shows its creator's
 * name until it names itself, then lowers its priority, so two reads could pair the pool's
 * name with the builder's nice value (seen in CI: 19 read for 5).
 */
function threadOf(statPath: string): { name: string; nice: number } {
  const stat = readFileSync(statPath, 'utf8');
  // The name sits between the first '(' and the last ')'; the fields after it start with the
  // state (field 3), so nice (field 19) is the 17th of them.
  return { name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), nice: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]) };
}

describe.runIf(existsSync('/proc/self/task'))('kernel pool priority', () => {
  it('search threads run five nice steps below the JS thread', async () => {
    const index = createVectorIndex({ dimension: 4, distance: 'Euclid', m: 16, efConstruct: 32, fullScanThreshold: 1, indexingThreads: 1 });
    await index.upsert(Uint32Array.of(0, 1), Float32Array.of(0, 0, 0, 1, 1, 0, 0, 0));
    setInlineSearch(false); // the search must reach the pool, which starts its threads
    const result = await index.search(Float32Array.of(0, 0, 0, 1), 1);
    expect(Array.from(result.slots)).toEqual([0]);

    await index.waitIndexed();

    const jsThreadNice = threadOf('/proc/thread-self/stat').nice;
    const threads = readdirSync('/proc/self/task').flatMap((task) => {
      try {
        return [threadOf(`/proc/self/task/${task}/stat`)];
      } catch {
        return []; // the thread ended between the listing and the read
      }
    });
    const poolThreads = threads.filter((thread) => thread.name.startsWith('quiver-kernel'));
    expect(poolThreads.length).toBeGreaterThan(0);
    for (const thread of poolThreads) expect(thread.nice).toBe(Math.min(19, jsThreadNice + SEARCH_NICE_INCREMENT));
  });
});
