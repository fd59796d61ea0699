import { describe, expect, it } from 'vitest';
import { captureLogger as capture } from '../../test/support/capture-logger.js';
import { ProgressLog } from './progress-log.js';

describe('ProgressLog', () => {
  it('progress log — at most one line per interval, with counts, percent, rate and ETA', () => {
    const { logger, lines } = capture();
    let now = 0;
    const progress = new ProgressLog({ logger, task: 'graph build', fields: { collection: 'c' }, intervalMs: 5_000, now: () => now });
    // Updates every second for 12 s, 100 units a second: lines at 5 s and 10 s only.
    for (let second = 1; second <= 12; second += 1) {
      now = second * 1000;
      progress.update(second * 100, 2_000);
    }
    const written = lines();
    expect(written.map((line) => line.done)).toEqual([500, 1_000]);
    expect(written[0]).toMatchObject({ collection: 'c', task: 'graph build', done: 500, total: 2_000, percent: 25, rate_per_second: 100, eta_seconds: 15 });
    expect(written[0]!.msg).toBe('graph build: 500/2000 (25%), 100/s, ETA 15s');
    progress.finish(1_200);
    expect(lines()[2]).toMatchObject({ task: 'graph build', done: 1_200, elapsed_ms: 12_000 });
  });

  it('progress log — short work writes nothing, not even the closing line; interval 0 logs every update', () => {
    const quiet = capture();
    let now = 0;
    const short = new ProgressLog({ logger: quiet.logger, task: 'index rebuild', intervalMs: 5_000, now: () => now });
    now = 1_000;
    short.update(10, 10);
    short.finish(10);
    expect(quiet.lines()).toEqual([]);

    const every = capture();
    const chatty = new ProgressLog({ logger: every.logger, task: 'index rebuild', intervalMs: 0, now: () => now });
    chatty.update(1, 3);
    chatty.update(2, 3);
    expect(every.lines().map((line) => line.done)).toEqual([1, 2]);
    // No time has passed: the rate is unknown, and so is the ETA.
    expect(every.lines()[0]).toMatchObject({ rate_per_second: 0, eta_seconds: null });
  });
});
