// Per route template and status: how many responses, and their durations (docs/api.md §13.3's
// `requests.rest.responses`). Recorded once per response; the map is bounded by the routes the
// server registers times the statuses it answers (unmatched paths are not recorded here).

export interface ResponseStatistics {
  count: number;
  avg_duration_micros: number;
  min_duration_micros: number;
  max_duration_micros: number;
  total_duration_micros: number;
  /** ISO time of the last response. */
  last_responded: string;
}

interface Accumulated {
  count: number;
  totalMicros: number;
  minMicros: number;
  maxMicros: number;
  lastMs: number;
}

export class RequestStatistics {
  /** "METHOD /template" -> status -> figures. */
  private readonly byRoute = new Map<string, Map<number, Accumulated>>();

  constructor(private readonly now: () => number = Date.now) {}

  record(method: string, routeTemplate: string, status: number, durationMicros: number): void {
    const key = `${method} ${routeTemplate}`;
    let statuses = this.byRoute.get(key);
    if (!statuses) {
      statuses = new Map();
      this.byRoute.set(key, statuses);
    }
    const found = statuses.get(status);
    const at = this.now();
    if (!found) {
      statuses.set(status, { count: 1, totalMicros: durationMicros, minMicros: durationMicros, maxMicros: durationMicros, lastMs: at });
      return;
    }
    found.count += 1;
    found.totalMicros += durationMicros;
    found.minMicros = Math.min(found.minMicros, durationMicros);
    found.maxMicros = Math.max(found.maxMicros, durationMicros);
    found.lastMs = at;
  }

  /** `{"METHOD /template": {"200": {...}}}`, keys sorted so that reads compare easily. */
  snapshot(): Record<string, Record<string, ResponseStatistics>> {
    const result: Record<string, Record<string, ResponseStatistics>> = {};
    for (const key of [...this.byRoute.keys()].sort()) {
      const statuses: Record<string, ResponseStatistics> = {};
      for (const [status, figures] of [...this.byRoute.get(key)!].sort(([left], [right]) => left - right)) {
        statuses[String(status)] = {
          count: figures.count,
          avg_duration_micros: round(figures.totalMicros / figures.count),
          min_duration_micros: round(figures.minMicros),
          max_duration_micros: round(figures.maxMicros),
          total_duration_micros: round(figures.totalMicros),
          last_responded: new Date(figures.lastMs).toISOString(),
        };
      }
      result[key] = statuses;
    }
    return result;
  }
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
