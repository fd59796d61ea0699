// Reads a /metrics answer with a Prometheus text-format parser (parse-prometheus-text-format),
// so the tests check what a scraper would see, not the text's layout.
import parsePrometheusTextFormat, { type ParsedFamily, type ParsedSample } from 'parse-prometheus-text-format';

export type Families = Map<string, ParsedFamily>;

export function parseMetrics(text: string): Families {
  return new Map(parsePrometheusTextFormat(text).map((family) => [family.name, family]));
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
