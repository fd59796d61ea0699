import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { countFromTally, registerTallyHistogram, ResponseTally } from './response-tally.js';

const bounds = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const labelNames = ['method', 'route', 'status'] as const;

/** Every sample of a registry's families as `name{label="value",...} value` lines, sorted. */
async function samples(registry: Registry): Promise<string[]> {
  const lines: string[] = [];
  for (const family of await registry.getMetricsAsJSON()) {
    for (const sample of family.values) {
      const labels = Object.entries(sample.labels)
        .map(([name, value]) => `${name}="${String(value)}"`)
        .sort()
        .join(',');
      const name = (sample as { metricName?: string }).metricName ?? family.name;
      lines.push(`${family.type} ${name}{${labels}} ${sample.value}`);
    }
  }
  return lines.sort();
}

describe('response tally', () => {
  it("the tally's families hold the samples prom-client's own counter and histogram would", async () => {
    const twin = new Registry();
    const counter = new Counter({ name: 'requests_total', help: 'h', labelNames, registers: [twin] });
    const histogram = new Histogram({ name: 'duration_seconds', help: 'h', labelNames, buckets: bounds, registers: [twin] });

    const registry = new Registry();
    const tally = new ResponseTally(bounds);
    new Counter({
      name: 'requests_total',
      help: 'h',
      labelNames,
      registers: [registry],
      collect() {
        countFromTally(this, tally);
      },
    });
    registerTallyHistogram(registry, 'duration_seconds', 'h', tally);

    // Durations on the bounds themselves (a bucket holds its bound), between them, zero and
    // beyond the last; a few label sets, one of them seen once.
    const durations = [0, 0.001, 0.0015, 0.005, 0.3, 1, 29.9, 30, 31, 1e6, 0.0099999];
    const labelSets = [
      ['POST', '/collections/{collection_name}/points/search', 200],
      ['GET', '/collections/{collection_name}', 404],
      ['PUT', '/collections/{collection_name}/points', 200],
    ] as const;
    let seed = 7;
    for (let response = 0; response < 500; response += 1) {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      const [method, route, status] = labelSets[response === 0 ? 2 : 1 - (seed % 2)]!;
      const seconds = durations[seed % durations.length]!;
      tally.record(method, route, status, seconds);
      counter.inc({ method, route, status: String(status) });
      histogram.observe({ method, route, status: String(status) }, seconds);
    }
    const ours = await samples(registry);
    expect(ours).toEqual(await samples(twin));
    expect(ours.filter((line) => line.includes('_count')).length).toBe(3);
  });

  it('a tally with nothing recorded writes no samples', async () => {
    const registry = new Registry();
    registerTallyHistogram(registry, 'duration_seconds', 'h', new ResponseTally(bounds));
    expect(await samples(registry)).toEqual([]);
    expect(await registry.metrics()).toContain('# TYPE duration_seconds histogram');
  });
});
