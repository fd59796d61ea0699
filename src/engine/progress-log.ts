// Progress lines for long work (start-up recovery, graph builds; docs/api.md §13.4): one task
// reports how far it got as often as it likes, and this writes an info line with the counts, the
// rate and an ETA at most once per interval, so a large upload or rebuild shows that it moves
// without flooding the log. One instance per task and collection.
import type { Logger } from 'pino';

export interface ProgressLogOptions {
  logger: Logger;
  /** What is being done, e.g. `index rebuild`; the start of every line's message. */
  task: string;
  /** Fields every line carries (collection, vector). */
  fields?: Record<string, unknown>;
  /** At most one progress line per this many milliseconds; 0 logs every update. */
  intervalMs: number;
  /** Monotonic milliseconds; tests move it. */
  now?: () => number;
}

export interface ProgressFigures {
  done: number;
  total: number;
  percent: number;
  /** Units done per second since the task started; 0 before any time has passed. */
  rate_per_second: number;
  /** Seconds left at that rate; null when it cannot be known (no rate yet, or no total). */
  eta_seconds: number | null;
}

function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

export class ProgressLog {
  private readonly now: () => number;
  private readonly startedAt: number;
  private readonly startedDone: number;
  private lastLoggedAt: number;
  private lines = 0;

  constructor(private readonly options: ProgressLogOptions, startDone = 0) {
    this.now = options.now ?? (() => performance.now());
    this.startedAt = this.now();
    this.lastLoggedAt = this.startedAt;
    this.startedDone = startDone;
  }

  /** Progress lines written so far (the final line not counted). */
  get linesLogged(): number {
    return this.lines;
  }

  /** The counts, rate and ETA for `done` of `total` at this moment. */
  figures(done: number, total: number): ProgressFigures {
    const elapsedSeconds = (this.now() - this.startedAt) / 1000;
    const rate = elapsedSeconds > 0 ? Math.max(0, done - this.startedDone) / elapsedSeconds : 0;
    const remaining = Math.max(0, total - done);
    return {
      done,
      total,
      percent: total > 0 ? round((Math.min(done, total) / total) * 100, 1) : 100,
      rate_per_second: round(rate, 1),
      eta_seconds: rate > 0 ? round(remaining / rate, 1) : null,
    };
  }

  /** Reports `done` of `total`; logs when the interval has passed since the last line. */
  update(done: number, total: number): void {
    const at = this.now();
    if (at - this.lastLoggedAt < this.options.intervalMs) return;
    this.lastLoggedAt = at;
    this.lines += 1;
    const figures = this.figures(done, total);
    const eta = figures.eta_seconds === null ? 'unknown' : `${figures.eta_seconds}s`;
    this.options.logger.info(
      { ...this.options.fields, task: this.options.task, ...figures },
      `${this.options.task}: ${done}/${total} (${figures.percent}%), ${figures.rate_per_second}/s, ETA ${eta}`,
    );
  }

  /** The task is over: one closing line, only when progress lines were written (long work). */
  finish(done: number): void {
    if (this.lines === 0) return;
    const elapsedMs = Math.round(this.now() - this.startedAt);
    this.options.logger.info({ ...this.options.fields, task: this.options.task, done, elapsed_ms: elapsedMs }, `${this.options.task}: finished, ${done} in ${elapsedMs} ms`);
  }
}
