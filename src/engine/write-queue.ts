// Writes to one collection are applied one after another, in arrival order: operation ids,
// slot assignment and the kernel's state then always agree with the log.

export class WriteQueue {
  private tail: Promise<unknown> = Promise.resolve();
  private pending = 0;

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

  /** Resolves when everything queued so far has finished. */
  async drain(): Promise<void> {
    await this.tail;
  }
}
