// How conditions see payload values. Shared by the evaluator and the indexes, so "is this an
// integer", "which integer" and "which number" have one answer everywhere.

/**
 * A canonical decimal key for an integral value (a safe integer, an integral float beyond 2^53,
 * or a bigint), or undefined for anything else. `5`, `5.0` and `5n` share the key "5".
 */
export function integerKey(value: unknown): string | undefined {
  if (typeof value === 'number') {
    if (Number.isSafeInteger(value)) return String(value);
    return Number.isInteger(value) ? BigInt(value).toString() : undefined;
  }
  if (typeof value === 'bigint') return value.toString();
  return undefined;
}

/** The number a payload value stands for in a numeric range (bigints rounded), or undefined. */
export function numericValue(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'bigint') return Number(value);
  return undefined;
}
