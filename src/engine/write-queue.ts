// Writes to one collection are applied one after another, in arrival order: operation ids,
// slot assignment and the kernel's state then always agree with the log.
//
// The queue is bounded for client writes (docs/api.md §8, limits.max_queued_writes): once that
// many tasks are queued or running, a new client write is refused at once with a 503 and a
// Retry-After instead of waiting behind an ever longer line. Waiting writes hold their parsed
// bodies in memory and, once admitted, compete with searches for the kernel, so an unbounded
// line grows both memory and every later write's latency without limit. Internal tasks
// (checkpoints, schema changes) are never refused: they are few and must not be lost.
import { errors } from '../errors.js';

/** Seconds a refused client is told to wait: one queue's worth of writes usually clears in less. */
export const writeQueueRetryAfterSeconds = 1;

export class WriteQueue {
  /** Settles once every task queued so far has finished (overlapped ones' second parts too). */
  private tail: Promise<unknown> = Promise.resolve();
  /** When the next overlapped task's first part may start (runOverlapped). */
  private firstPartTail: Promise<unknown> = Promise.resolve();
  /** When the next overlapped task's second part may start. */
  private secondPartTail: Promise<unknown> = Promise.resolve();
  private pending = 0;

  /** @param capacity client writes admitted while fewer than this many tasks are queued or running */
  constructor(readonly capacity = Number.POSITIVE_INFINITY) {}

  /** Number of tasks queued or running. */
  get length(): number {
    return this.pending;
  }

  /** Runs `task` after every task queued before it; its failure does not stop later tasks. */
  run<Result>(task: () => Promise<Result>): Promise<Result> {
    this.pending += 1;
    const result = this.tail.then(task, task);
    const settled = result.then(
      () => {
        this.pending -= 1;
      },
      () => {
        this.pending -= 1;
      },
    );
    this.tail = settled;
    this.firstPartTail = settled;
    this.secondPartTail = settled;
    return result;
  }

  /**
   * A task in two parts (docs/architecture.md §20): `first` runs after every earlier task's first
   * part (and after every earlier plain task), `second` with `first`'s value after every earlier
   * task's second part. So the next overlapped task's first part (an upsert's durable write) may
   * run while this one's second part (its kernel update) does, and both parts keep queue order.
   * A plain task (`run`) still waits for everything before it, second parts included. A failed
   * first part skips its second part.
   */
  runOverlapped<Value, Result>(first: () => Promise<Value>, second: (value: Value) => Promise<Result>): Promise<Result> {
    this.pending += 1;
    const firstDone = this.firstPartTail.then(first, first);
    const previousSecond = this.secondPartTail;
    const outcome = firstDone.then(async (value) => {
      await previousSecond;
      return second(value);
    });
    const firstSettled = firstDone.then(
      () => undefined,
      () => undefined,
    );
    // Settles after this task's second part AND every earlier one (a failed first part must not
    // let the next second part overtake an earlier one still running).
    const settled = Promise.all([
      previousSecond,
      outcome.then(
        () => undefined,
        () => undefined,
      ),
    ]).then(() => {
      this.pending -= 1;
    });
    this.firstPartTail = firstSettled;
    this.secondPartTail = settled;
    this.tail = settled;
    // Answered once its place is freed, so a caller that saw it finish sees the queue without it.
    return settled.then(() => outcome);
  }

  /** Like `runOverlapped`, refused (a 503, thrown synchronously) when the queue is full, as `runBounded`. */
  runOverlappedBounded<Value, Result>(first: () => Promise<Value>, second: (value: Value) => Promise<Result>): Promise<Result> {
    if (this.pending >= this.capacity) throw errors.writeQueueFull(this.capacity, writeQueueRetryAfterSeconds);
    return this.runOverlapped(first, second);
  }

  /**
   * A client write: like `run`, but refused (a 503 with Retry-After, thrown synchronously, so
   * nothing is queued) when the queue already holds `capacity` tasks.
   */
  runBounded<Result>(task: () => Promise<Result>): Promise<Result> {
    if (this.pending >= this.capacity) throw errors.writeQueueFull(this.capacity, writeQueueRetryAfterSeconds);
    return this.run(task);
  }

  /** Resolves when everything queued so far has finished. */
  async drain(): Promise<void> {
    await this.tail;
  }
}
