// Live point ids in id order, for scroll (docs/api.md §2). Sorting ten million ids costs about a
// second, so the order is kept across writes: points that come or go after a sort are held aside
// and merged into the sorted columns in one linear pass when the order is next read, and only a
// change as large as an eighth of the collection sorts everything again. Integer ids up to
// 2^53 - 1 (the usual case) sit in a Float64Array, outside the JS heap (docs/architecture.md §16).
import { comparePointIds, type PointId } from '../points/ids.js';

/** Live ids in id order: the integers up to 2^53 - 1, then the larger ones, then the UUIDs. */
export class SortedIds {
  readonly length: number;

  constructor(
    readonly numbers: Float64Array,
    readonly bigints: readonly bigint[],
    readonly uuids: readonly string[],
  ) {
    this.length = numbers.length + bigints.length + uuids.length;
  }

  /** The id at `position` (0 <= position < length). */
  at(position: number): PointId {
    if (position < this.numbers.length) return this.numbers[position]!;
    const beyond = position - this.numbers.length;
    return beyond < this.bigints.length ? this.bigints[beyond]! : this.uuids[beyond - this.bigints.length]!;
  }

  /** Position of the first id not below `id`. */
  position(id: PointId): number {
    let low = 0;
    let high = this.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (comparePointIds(this.at(middle), id) < 0) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}

function compareBigints(left: bigint, right: bigint): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

function compareStrings(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

/** Sorts ids of every form into the three columns. */
export function sortIds(ids: Iterable<PointId>, count: number): SortedIds {
  const numbers = new Float64Array(count);
  let numberCount = 0;
  const bigints: bigint[] = [];
  const uuids: string[] = [];
  for (const id of ids) {
    if (typeof id === 'number') numbers[numberCount++] = id;
    else if (typeof id === 'bigint') bigints.push(id);
    else uuids.push(id);
  }
  // Safe integers sort exactly as float64; every bigint id is above them.
  return new SortedIds(numbers.subarray(0, numberCount).sort(), bigints.sort(compareBigints), uuids.sort(compareStrings));
}

/** Position of the first value of `sorted` not below `value`. */
function lowerBound(sorted: Float64Array, value: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle]! < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * `base` without the ids in `removed`, with `added` (sorted, none in base) merged in: a binary
 * search per change and block copies between them, so ten million ids take a memcpy, not a loop.
 */
function mergeNumbers(base: Float64Array, added: Float64Array, removed: ReadonlySet<PointId>): Float64Array {
  const removedPositions: number[] = [];
  for (const id of removed) if (typeof id === 'number') removedPositions.push(lowerBound(base, id));
  removedPositions.sort((left, right) => left - right);
  const merged = new Float64Array(base.length + added.length - removedPositions.length);
  let count = 0;
  let copiedUpTo = 0;
  let nextRemoved = 0;
  const copyUntil = (end: number) => {
    // Skip the removed positions before `end`, copying the runs between them.
    while (nextRemoved < removedPositions.length && removedPositions[nextRemoved]! < end) {
      const skipped = removedPositions[nextRemoved++]!;
      merged.set(base.subarray(copiedUpTo, skipped), count);
      count += skipped - copiedUpTo;
      copiedUpTo = skipped + 1;
    }
    merged.set(base.subarray(copiedUpTo, end), count);
    count += end - copiedUpTo;
    copiedUpTo = end;
  };
  for (const id of added) {
    copyUntil(lowerBound(base, id));
    merged[count++] = id;
  }
  copyUntil(base.length);
  return merged;
}

function mergeValues<Value extends bigint | string>(base: readonly Value[], added: Value[], removed: ReadonlySet<PointId>, compare: (left: Value, right: Value) => number): Value[] {
  if (added.length === 0 && removed.size === 0) return base as Value[];
  added.sort(compare);
  const merged: Value[] = [];
  let next = 0;
  for (const id of base) {
    while (next < added.length && compare(added[next]!, id) < 0) merged.push(added[next++]!);
    if (!removed.has(id)) merged.push(id);
  }
  while (next < added.length) merged.push(added[next++]!);
  return merged;
}

/**
 * The id order of one collection, kept up to date by `added` and `removed` (each id once: a point
 * that comes, goes and comes back is simply live). `current` sorts all ids the first time and after
 * large changes; otherwise it merges the pending changes into the last order.
 */
export class IdOrder {
  private sorted: SortedIds | undefined;
  /** Live ids that are not in `sorted`. */
  private readonly pendingAdded = new Set<PointId>();
  /** Ids in `sorted` that are no longer live. */
  private readonly pendingRemoved = new Set<PointId>();

  added(id: PointId): void {
    if (!this.sorted) return;
    if (!this.pendingRemoved.delete(id)) this.pendingAdded.add(id);
  }

  removed(id: PointId): void {
    if (!this.sorted) return;
    if (!this.pendingAdded.delete(id)) this.pendingRemoved.add(id);
  }

  /** The order now; `all` lists every live id (`count` of them) when a full sort is needed. */
  current(all: () => Iterable<PointId>, count: number): SortedIds {
    const changes = this.pendingAdded.size + this.pendingRemoved.size;
    if (!this.sorted || changes > Math.max(1024, this.sorted.length / 8)) {
      this.sorted = sortIds(all(), count);
    } else if (changes > 0) {
      const additions = sortIds(this.pendingAdded, this.pendingAdded.size);
      const base = this.sorted;
      this.sorted = new SortedIds(
        mergeNumbers(base.numbers, additions.numbers, this.pendingRemoved),
        mergeValues(base.bigints, [...additions.bigints], this.pendingRemoved, compareBigints),
        mergeValues(base.uuids, [...additions.uuids], this.pendingRemoved, compareStrings),
      );
    }
    this.pendingAdded.clear();
    this.pendingRemoved.clear();
    return this.sorted;
  }
}
