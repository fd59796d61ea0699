// The value an order_by query sorts a point by: a number, or a datetime string read as
// milliseconds since the epoch (the same reader range filters use). A field with several
// values gives the point once per distinct value; a point without a usable value is left out,
// as Qdrant leaves out points the range index does not hold.
import { errors } from '../errors.js';
import { parseDatetime } from '../payload/datetime.js';
import { parsePath, PathSyntaxError, valuesAt, type PayloadPath } from '../payload/path.js';
import { describeJsonValue } from '../json/describe.js';

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

/** The distinct usable values at `path`, as a range index holds them. */
export function orderValuesOf(payload: unknown, path: PayloadPath): OrderedValue[] {
  const values = new Set<number>();
  for (const value of valuesAt(payload, path)) {
    const number = numeric(value);
    if (number !== undefined) values.add(number);
  }
  return [...values];
}

/** `start_from` as a sortable number, or a 400 naming `field`. */
export function orderBoundary(startFrom: number | string, field: string): OrderedValue {
  const value = numeric(startFrom);
  if (value === undefined) throw errors.invalidBodyField(field, `expected a number or an RFC 3339 datetime (got ${describeJsonValue(startFrom)})`);
  return value;
}
