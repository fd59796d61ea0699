// Per-slot typed-array columns of the point table and the id index (docs/architecture.md §16):
// they grow by doubling, and growing copies the old values into a new, longer array.

type Column = Uint8Array | Uint32Array | Float64Array;

/** A copy of `column` with room for `length` values (the rest zero). */
export function grown<Values extends Column>(column: Values, length: number): Values {
  const longer = new (column.constructor as new (length: number) => Values)(length);
  longer.set(column);
  return longer;
}

/** The doubled capacity (from at least 1,024) that holds index `slot`, or `current` if it does. */
export function capacityFor(current: number, slot: number): number {
  if (slot < current) return current;
  let next = Math.max(1024, current);
  while (next <= slot) next *= 2;
  return next;
}
