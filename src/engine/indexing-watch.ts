// Logs the progress of background graph builds (docs/api.md §13.4). The kernel links vectors on
// its own threads and tells nobody; this polls each collection's counts once a second (two
// integers per vector name) and, while a graph in use has vectors left to link, reports them to
// one ProgressLog per collection, which writes at most one line per interval. Registered as an
// engine step after the collections, so it runs only while they are loaded.
import type { Logger } from 'pino';
import type { Collection } from './collection.js';
import type { LifecycleStep } from './engine.js';
import { ProgressLog } from './progress-log.js';

export interface IndexingWatchOptions {
  /** The collections to watch, read at every poll (they come and go). */
  collections: () => readonly Collection[];
  logger: Logger;
  /** At most one progress line per collection per this many milliseconds. */
  intervalMs: number;
  /** Monotonic milliseconds; tests move it. */
  now?: () => number;
}

const pollMs = 1_000;

export class IndexingWatch {
  /** One running build per collection name; dropped when its build is done or it is gone. */
  private readonly builds = new Map<string, { collection: Collection; log: ProgressLog }>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: IndexingWatchOptions) {}

  lifecycleStep(): LifecycleStep {
    return {
      name: 'indexing progress',
      open: async () => {
        this.timer = setInterval(() => this.poll(), Math.min(pollMs, Math.max(10, this.options.intervalMs)));
        this.timer.unref();
      },
      close: async () => {
        if (this.timer) clearInterval(this.timer);
        this.timer = undefined;
      },
    };
  }

  /** One look at every collection; public so tests can drive it without a timer. */
  poll(): void {
    const seen = new Set<string>();
    for (const collection of this.options.collections()) {
      seen.add(collection.name);
      let done = 0;
      let total = 0;
      try {
        for (const vector of collection.indexingProgress().vectors) {
          if (!vector.graphInUse) continue;
          done += vector.linked;
          total += vector.total;
        }
      } catch {
        // Caught closing an index (a vector name being removed): look again at the next poll.
        continue;
      }
      const running = this.builds.get(collection.name);
      const active = running && running.collection === collection ? running : undefined;
      if (done >= total) {
        if (active) {
          active.log.finish(done);
          this.builds.delete(collection.name);
        }
        continue;
      }
      if (!active) {
        const log = new ProgressLog(
          { logger: this.options.logger, task: 'graph build', fields: { collection: collection.name }, intervalMs: this.options.intervalMs, ...(this.options.now ? { now: this.options.now } : {}) },
          done,
        );
        this.builds.set(collection.name, { collection, log });
        continue;
      }
      active.log.update(done, total);
    }
    // A deleted (or replaced) collection's build is simply forgotten.
    for (const name of [...this.builds.keys()]) if (!seen.has(name)) this.builds.delete(name);
  }
}
