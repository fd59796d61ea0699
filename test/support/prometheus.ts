// Reads a /metrics answer with a Prometheus text-format parser (parse-prometheus-text-format),
// so the tests check what a scraper would see, not the text's layout.
import parsePrometheusTextFormat, { type ParsedFamily, type ParsedSample } from 'parse-prometheus-text-format';

export type Families = Map<string, ParsedFamily>;

/**
 * Every family by name. The parser folds a labelled histogram's series into one sample and
 * loses their labels, so histograms are read a second time with their TYPE line removed: their
 * `_bucket`, `_sum` and `_count` series then come back as plain samples under those names.
 */
export function parseMetrics(text: string): Families {
  const families: Families = new Map(parsePrometheusTextFormat(text).map((family) => [family.name, family]));
  const histograms = [...families.values()].filter((family) => family.type === 'HISTOGRAM').map((family) => family.name);
  if (histograms.length === 0) return families;
  const untyped = text
    .split('\n')
    .filter((line) => !histograms.some((name) => line === `# TYPE ${name} histogram`))
    .join('\n');
  for (const family of parsePrometheusTextFormat(untyped)) {
    if (!histograms.some((name) => family.name.startsWith(`${name}_`))) continue;
    const known = families.get(family.name);
    if (known) known.metrics.push(...family.metrics);
    else families.set(family.name, { ...family, metrics: [...family.metrics] });
  }
  return families;
}

function matches(sample: ParsedSample, labels: Record<string, string>): boolean {
  return Object.entries(labels).every(([name, value]) => sample.labels?.[name] === value);
}

/** The samples of `name` whose labels include `labels`. */
export function samples(families: Families, name: string, labels: Record<string, string> = {}): ParsedSample[] {
  return (families.get(name)?.metrics ?? []).filter((sample) => matches(sample, labels));
}

/** The one value of `name` with `labels`, or undefined when no sample has them. */
export function value(families: Families, name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samples(families, name, labels);
  if (found.length === 0) return undefined;
  if (found.length > 1) throw new Error(`${name} ${JSON.stringify(labels)} matches ${found.length} samples`);
  return Number(found[0]!.value ?? found[0]!.count);
}
