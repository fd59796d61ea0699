// `anonymize=true` for GET /telemetry (docs/api.md §13.3), with the rules Qdrant applies to its
// own telemetry: names and ids become a stable hash (the same name always gives the same
// value, so entries can still be told apart and followed between reads), counts keep only
// their leading digits, and timestamps move by up to ten seconds.
import { createHash } from 'node:crypto';

/** A name replaced by the decimal form of a 64-bit hash of it. */
export function anonymizeName(name: string): string {
  return BigInt(`0x${createHash('sha256').update(name, 'utf8').digest('hex').slice(0, 16)}`).toString(10);
}

/** A count rounded down to about four significant digits; small counts are kept as they are. */
export function anonymizeCount(count: number): number {
  if (!Number.isFinite(count) || count <= 0) return count;
  const magnitude = Math.round(Math.log10(count));
  if (magnitude <= 4) return count;
  const step = 10 ** (magnitude - 4);
  return Math.floor(count / step) * step;
}

/** An ISO timestamp moved by a random offset of at most ten seconds either way. */
export function anonymizeTimestamp(iso: string, random: () => number = Math.random): string {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return iso;
  const offsetSeconds = Math.trunc(random() * 20 - 10);
  return new Date(at + offsetSeconds * 1000).toISOString();
}
