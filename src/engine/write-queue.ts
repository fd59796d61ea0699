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
  private tail: Promise<unknown> = Promise.resolve();
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
    this.tail = result.then(
      () => {
        this.pending -= 1;
      },
      () => {
        this.pending -= 1;
      },
    );
    return result;
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
