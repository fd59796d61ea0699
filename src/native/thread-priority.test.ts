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

function niceOf(statPath: string): number {
  const stat = readFileSync(statPath, 'utf8');
  // Fields after the command name (which may hold spaces) start after the last ')'; nice is field 19.
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}

describe.runIf(existsSync('/proc/self/task'))('kernel pool priority', () => {
  it('search threads run five nice steps below the JS thread', async () => {
    const index = createVectorIndex({ dimension: 4, distance: 'Euclid', m: 16, efConstruct: 32, fullScanThreshold: 1, indexingThreads: 1 });
    await index.upsert(Uint32Array.of(0, 1), Float32Array.of(0, 0, 0, 1, 1, 0, 0, 0));
    setInlineSearch(false); // the search must reach the pool, which starts its threads
    const result = await index.search(Float32Array.of(0, 0, 0, 1), 1);
    expect(Array.from(result.slots)).toEqual([0]);

    const jsThreadNice = niceOf('/proc/thread-self/stat');
    const poolThreads = readdirSync('/proc/self/task').filter((task) => readFileSync(`/proc/self/task/${task}/comm`, 'utf8').startsWith('quiver-kernel'));
    expect(poolThreads.length).toBeGreaterThan(0);
    for (const task of poolThreads) expect(niceOf(`/proc/self/task/${task}/stat`)).toBe(Math.min(19, jsThreadNice + SEARCH_NICE_INCREMENT));
  });
});
