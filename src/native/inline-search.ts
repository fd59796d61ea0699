// When a search may run on the JS thread instead of the kernel pool: the adaptive "inline when
// idle" path of WrappedVectorIndex.search (vector-index.ts), tested in inline-search.test.ts.
//
// Handing one search to a kernel thread and back costs two thread wake-ups (the pool's and
// the JS thread's), which at 128-d took longer than the search itself (bench/README.md,
// bench:async; docs/architecture.md §6). When the JS thread has time to spare the hop buys
// nothing, so the search runs right there. Under load it must not: the server needs the JS
// thread for HTTP and both cores for searches. "Time to spare" is measured, not guessed: the
// JS thread may spend INLINE_BUDGET_MS on inline searches, and the budget is renewed when its
// event loop has waited (sat idle in its poll phase) since, or when inline searches took
// nearly all of the thread's time since (INLINE_SEARCH_SHARE: it is doing nothing else, so
// there is nothing for a hop to make room for — and on a busy machine one hop can cost
// milliseconds). A saturated server neither waits nor only searches (HTTP takes most of its
// time), so after one budget its searches go to the pool, and while any search is pending there
// none runs inline (so under load both cores search until the pool drains). Nor does one asked
// for before the last inline search has settled (a caller that started many at once: they get
// both cores too; see InlineGate.spend), nor one for a request that began in the same turn of the
// event loop as a search that already ran inline: requests read in one turn come from several
// clients at once, and while the first searches here the others go to the pool, where the other
// core searches while this thread reads and answers (bench/README.md, "One inline search per
// turn of requests"). A search that turns out expensive (a large unlinked tail scanned exactly,
// every time) sends its index to the pool for a while.
import { performance } from 'node:perf_hooks';

/**
 * JS-thread time for inline searches between two waits of the event loop: also the longest an
 * inline run can hold up other callbacks (plus one search).
 */
export const INLINE_BUDGET_MS = 4;
/** Renew the budget without a wait if inline searches took at least this share of the time. */
export const INLINE_SEARCH_SHARE = 0.8;
/**
 * When the running average of an index's inline search times passes this, its searches go to
 * the pool for INLINE_PAUSE searches. An average, not one search: on a busy machine a 0.1 ms
 * search is sometimes preempted for milliseconds, which says nothing about its cost.
 */
export const INLINE_COST_LIMIT_MS = 2;
export const INLINE_PAUSE = 1024;
/** Weight of the newest search in the running average. */
const COST_WEIGHT = 0.05;

let inlineEnabled = true;

const settledPromise = Promise.resolve();

/** Requests the server has begun, REST and gRPC alike: src/http/request-arrivals.ts counts them. */
let requestsBegun = 0;

/** Called by the server as each request begins (an in-process caller begins none). */
export function requestBegun(): void {
  requestsBegun += 1;
}

/** How many requests have begun in this process (for tests and diagnostics). */
export function requestsBegunSoFar(): number {
  return requestsBegun;
}

/** Off: every search goes through the kernel pool (the slow twin, for tests and bench:async). */
export function setInlineSearch(enabled: boolean): void {
  inlineEnabled = enabled;
}

/** What the gate reads: the time, how long the event loop has sat idle in all, and when its turn ends. */
export interface GateClock {
  now(): number;
  idleTime(): number;
  /** Calls `callback` once the event loop has finished its current turn. */
  afterTurn(callback: () => void): void;
}

const nodeTiming = performance.nodeTiming;
const processClock: GateClock = { now: () => performance.now(), idleTime: () => nodeTiming.idleTime, afterTurn: (callback) => setImmediate(callback) };

/** Process-wide: the JS thread is one resource, whichever index asks. */
export class InlineGate {
  /** `clock`: the process's; a test passes one it moves itself, so no rule depends on the machine's pace. */
  constructor(private readonly clock: GateClock = processClock) {}

  private lastIdleMs = -1;
  private spentMs = 0;
  private budgetStartMs = 0;
  /** Inline searches whose microtask has not run yet (see spend). */
  private unsettled = 0;
  /** `requestsBegun` at the last inline search of this turn of the event loop; undefined if none ran. */
  private requestsAtSearch: number | undefined;

  /**
   * May the next search run on the JS thread, with `pending` searches already on the pool?
   * Never while any is: then the pool is in use, the load is more than one thread's, and an
   * inline search would only delay delivering their results.
   */
  admit(pending: number): boolean {
    if (!inlineEnabled || pending > 0 || this.unsettled > 0) return false;
    if (this.requestsAtSearch !== undefined && requestsBegun !== this.requestsAtSearch) return false;
    const idleMs = this.clock.idleTime();
    if (idleMs !== this.lastIdleMs) {
      this.lastIdleMs = idleMs;
      this.renew();
    }
    if (this.spentMs < INLINE_BUDGET_MS) return true;
    if (this.spentMs >= (this.clock.now() - this.budgetStartMs) * INLINE_SEARCH_SHARE) {
      this.renew();
      return true;
    }
    return false;
  }

  private renew(): void {
    this.spentMs = 0;
    this.budgetStartMs = this.clock.now();
  }

  /**
   * Charges an inline search's time to the budget. Until the current microtask queue moves on,
   * the search counts as unsettled: a search asked for meanwhile comes from a caller that did not
   * wait for this one (many started at once, `Promise.all` style), so the load is more than one
   * at a time and it goes to the pool, where both cores serve it. A caller that awaits each
   * search asks for the next one only after this microtask has run.
   */
  spend(elapsedMs: number): void {
    this.spentMs += elapsedMs;
    if (this.requestsAtSearch === undefined) this.clock.afterTurn(this.endTurn);
    this.requestsAtSearch = requestsBegun;
    this.unsettled += 1;
    // A reaction to a settled promise joins the same microtask queue as `queueMicrotask`'s
    // callback would, without the AsyncResource Node wraps around each of those (~0.1 µs of every
    // inline search; bench/README.md, "The inline hand-off").
    void settledPromise.then(this.settle);
  }

  private readonly settle = (): void => {
    this.unsettled -= 1;
  };

  private readonly endTurn = (): void => {
    this.requestsAtSearch = undefined;
  };
}

/** Per index: whether its recent inline searches stayed cheap. */
export class InlineCost {
  private pausedFor = 0;
  private averageMs = 0;

  /** False while the index is paused after an expensive inline search (counts the pause down). */
  cheap(): boolean {
    if (this.pausedFor === 0) return true;
    this.pausedFor -= 1;
    return false;
  }

  record(elapsedMs: number): void {
    this.averageMs += (elapsedMs - this.averageMs) * COST_WEIGHT;
    if (this.averageMs > INLINE_COST_LIMIT_MS) {
      // Measured afresh once the pause is over.
      this.averageMs = 0;
      this.pausedFor = INLINE_PAUSE;
    }
  }
}
