// Summaries the benchmarks print over repeated runs.

/** The median of `values` (the upper middle one of an even count), from a sorted copy. */
export function median(values: readonly number[]): number {
  return medianBy(values, (value) => value);
}

/** The item whose `key` is the median (the upper middle one of an even count). */
export function medianBy<Item>(items: readonly Item[], key: (item: Item) => number): Item {
  const sorted = [...items].sort((left, right) => key(left) - key(right));
  return sorted[Math.floor(sorted.length / 2)]!;
}
