import { describe, expect, it } from 'vitest';
import { RequestStatistics } from './request-statistics.js';

describe('RequestStatistics', () => {
  it('request statistics — per "METHOD /template" and status: count, min, max, average, total and the last time', () => {
    let now = Date.parse('2026-01-01T00:00:00.000Z');
    const statistics = new RequestStatistics(() => now);
    const durations = [300, 100, 200];
    for (const micros of durations) {
      statistics.record('GET', '/collections', 200, micros);
      now += 1000;
    }
    statistics.record('GET', '/collections', 500, 50);
    const snapshot = statistics.snapshot();
    expect(snapshot['GET /collections']).toEqual({
      '200': { count: 3, min_duration_micros: 100, max_duration_micros: 300, avg_duration_micros: 200, total_duration_micros: 600, last_responded: '2026-01-01T00:00:02.000Z' },
      '500': { count: 1, min_duration_micros: 50, max_duration_micros: 50, avg_duration_micros: 50, total_duration_micros: 50, last_responded: '2026-01-01T00:00:03.000Z' },
    });
  });
});
