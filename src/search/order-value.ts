// The value an order_by query sorts a point by: a number, or a datetime string read as
// milliseconds since the epoch (the same reader range filters use). A field with several
// values sorts by the one that comes first in the asked direction; a point without a usable
// value is left out, as Qdrant leaves out points the range index does not hold.
import { errors } from '../errors.js';
import { parseDatetime } from '../payload/datetime.js';
import { parsePath, PathSyntaxError, valuesAt, type PayloadPath } from '../payload/path.js';

export type OrderedValue = number;

function numeric(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'string') return parseDatetime(value);
  return undefined;
}

/** The parsed key of an order_by, or a 400 naming `field`. */
export function orderByPath(key: string, field: string): PayloadPath {
  try {
    return parsePath(key);
  } catch (error) {
    if (error instanceof PathSyntaxError) throw errors.invalidBodyField(field, error.message);
    throw error;
  }
}

export function orderValueOf(payload: unknown, path: PayloadPath, ascending: boolean): OrderedValue | undefined {
  let best: number | undefined;
  for (const value of valuesAt(payload, path)) {
    const number = numeric(value);
    if (number === undefined) continue;
    if (best === undefined || (ascending ? number < best : number > best)) best = number;
  }
  return best;
}

/** `start_from` as a sortable number, or a 400 naming `field`. */
export function orderBoundary(startFrom: number | string, field: string): OrderedValue {
  const value = numeric(startFrom);
  if (value === undefined) throw errors.invalidBodyField(field, `expected a number or an RFC 3339 datetime (got ${JSON.stringify(startFrom)})`);
  return value;
}
