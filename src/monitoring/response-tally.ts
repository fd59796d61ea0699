// Finished responses counted by (method, route template, status) in plain numbers, read by the
// Prometheus families only when /metrics is scraped. prom-client's own Counter.inc and
// Histogram.observe check and hash the label set on every call, ~2 µs a response, which is most
// of what counting costs the JS thread under load (bench/README.md, "The request path's own
// costs"); here a response costs one string key and one map lookup. Bounded as the labels are:
// route templates, a fixed set of methods, statuses.
import type { Counter, Registry } from 'prom-client';

type ResponseLabel = 'method' | 'route' | 'status';

interface TallyEntry {
  readonly labels: Record<ResponseLabel, string>;
  count: number;
  sumSeconds: number;
  /** Responses per bucket, not cumulative: the last counts those above every bound. */
  readonly perBucket: Float64Array;
}

export class ResponseTally {
  private readonly entries = new Map<string, TallyEntry>();

  /** `bounds`: the histogram's upper bounds in seconds, ascending. */
  constructor(readonly bounds: readonly number[]) {}

  record(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${status} ${route}`;
    let entry = this.entries.get(key);
    if (entry === undefined) {
      entry = { labels: { method, route, status: String(status) }, count: 0, sumSeconds: 0, perBucket: new Float64Array(this.bounds.length + 1) };
      this.entries.set(key, entry);
    }
    entry.count += 1;
    entry.sumSeconds += seconds;
    let bucket = 0;
    while (bucket < this.bounds.length && seconds > this.bounds[bucket]!) bucket += 1;
    entry.perBucket[bucket]! += 1;
  }

  all(): Iterable<Readonly<TallyEntry>> {
    return this.entries.values();
  }
}

/** The responses counter family: rebuilt from the tally at each scrape (prom-client's collect). */
export function countFromTally(counter: Counter<ResponseLabel>, tally: ResponseTally): void {
  counter.reset();
  for (const entry of tally.all()) counter.inc(entry.labels, entry.count);
}

/** One sample as prom-client's registry writes it (its typings name the type by an enum it never uses). */
interface FamilySample {
  labels: Record<string, string | number>;
  value: number;
  metricName: string;
}

/**
 * The response duration histogram as prom-client's registry reads a family: through `get()`, in
 * the samples prom-client's own Histogram writes (cumulative `_bucket` with `le`, then `+Inf`,
 * `_sum` and `_count` per label set). Registered with `registerTallyHistogram`.
 */
class TallyHistogram {
  readonly type = 'histogram' as const;
  readonly aggregator = 'sum' as const;

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly tally: ResponseTally,
  ) {}

  /** The registry's resetMetrics: the tally is the record of what was served, and is kept. */
  reset(): void {}

  get(): Promise<{ name: string; help: string; type: 'histogram'; aggregator: 'sum'; values: FamilySample[] }> {
    const values: FamilySample[] = [];
    const bucketName = `${this.name}_bucket`;
    for (const entry of this.tally.all()) {
      let cumulative = 0;
      this.tally.bounds.forEach((bound, bucket) => {
        cumulative += entry.perBucket[bucket]!;
        values.push({ labels: { le: bound, ...entry.labels }, value: cumulative, metricName: bucketName });
      });
      values.push({ labels: { le: '+Inf', ...entry.labels }, value: entry.count, metricName: bucketName });
      values.push({ labels: entry.labels, value: entry.sumSeconds, metricName: `${this.name}_sum` });
      values.push({ labels: entry.labels, value: entry.count, metricName: `${this.name}_count` });
    }
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values });
  }
}

/** Registers the tally's duration histogram on `registry` under `name`. */
export function registerTallyHistogram(registry: Registry, name: string, help: string, tally: ResponseTally): void {
  // prom-client types a registered metric as one of its own classes; its registry only reads
  // name, help, type and get() (and calls reset()), which the family has.
  registry.registerMetric(new TallyHistogram(name, help, tally) as unknown as Parameters<Registry['registerMetric']>[0]);
}
