// When a search may run on the JS thread instead of the kernel pool: the adaptive "inline when
// idle" path of WrappedVectorIndex.search (vector-index.ts), tested in inline-search.test.ts.
//
// Handing one search to a kernel thread and back costs two thread wake-ups (the pool's and
// the JS thread's), which at 128-d took longer than the search itself (bench/README.md,
// bench:async; docs/architecture.md §6). When the JS thread has nothing else to do the hop buys
// nothing, so the search runs right there. Under load it must not: the server needs the JS
// thread for HTTP and both cores for searches. "Idle" is judged by two facts: no search is
// pending on the pool, and the event loop has been idle (waited in its poll phase) since the
// last few inline searches — under sustained load it never waits, so after a short run every
// search goes to the pool. A search that turns out expensive (a large unlinked tail scanned
// exactly) sends its index to the pool for a while.
import { performance } from 'node:perf_hooks';

/** Inline searches allowed back to back without the event loop waiting once in between. */
export const INLINE_RUN_LIMIT = 32;
/** An inline search slower than this sends its index to the pool for INLINE_PAUSE searches. */
export const INLINE_COST_LIMIT_MS = 1;
export const INLINE_PAUSE = 1024;

let inlineEnabled = true;

/** Off: every search goes through the kernel pool (the slow twin, for tests and bench:async). */
export function setInlineSearch(enabled: boolean): void {
  inlineEnabled = enabled;
}

/** Process-wide: the JS thread is one resource, whichever index asks. */
export class InlineGate {
  private readonly timing = performance.nodeTiming;
  private lastIdleMs = -1;
  private run = 0;

  /** May the next search run on the JS thread, given `pending` searches on the pool? */
  admit(pending: number): boolean {
    if (!inlineEnabled || pending > 0) return false;
    const idleMs = this.timing.idleTime;
    if (idleMs !== this.lastIdleMs) {
      this.lastIdleMs = idleMs;
      this.run = 0;
    }
    if (this.run >= INLINE_RUN_LIMIT) return false;
    this.run += 1;
    return true;
  }
}

/** Per index: whether its recent inline searches stayed cheap. */
export class InlineCost {
  private pausedFor = 0;

  /** False while the index is paused after an expensive inline search (counts the pause down). */
  cheap(): boolean {
    if (this.pausedFor === 0) return true;
    this.pausedFor -= 1;
    return false;
  }

  record(elapsedMs: number): void {
    if (elapsedMs > INLINE_COST_LIMIT_MS) this.pausedFor = INLINE_PAUSE;
  }
}
