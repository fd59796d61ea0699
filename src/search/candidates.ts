// The points a stage may rank: the collection's live points that the filters allow, or the
// union of what the stage's prefetches found; never a point the request uses as an example.
import type { Collection, PointEntry } from '../engine/collection.js';
import type { SlotSet } from './query-environment.js';
import type { StageOutput } from './stage-output.js';

/** True for a point that exists, passes `allowed` (when given) and is not `excluded`. */
export function isCandidate(entry: PointEntry | undefined, allowed: SlotSet | undefined, excluded: ReadonlySet<string>): entry is PointEntry {
  if (entry === undefined) return false;
  if (allowed && !allowed.has(entry.slot)) return false;
  return excluded.size === 0 || !excluded.has(entry.key);
}

/** Live points the filters allow and the request does not exclude, in slot order. */
export function* liveCandidates(collection: Collection, allowed: SlotSet | undefined, excluded: ReadonlySet<string>): Generator<PointEntry> {
  const capacity = collection.slotCapacity;
  for (let slot = 0; slot < capacity; slot++) {
    const entry = collection.pointBySlot(slot);
    if (isCandidate(entry, allowed, excluded)) yield entry;
  }
}

/** The union of the prefetched points, each once, in the order first found. */
export function prefetchedCandidates(collection: Collection, children: readonly StageOutput[], excluded: ReadonlySet<string>): PointEntry[] {
  const union = new Map<string, PointEntry>();
  for (const child of children) {
    for (const point of child.points) if (!union.has(point.entry.key) && isCandidate(point.entry, undefined, excluded)) union.set(point.entry.key, point.entry);
  }
  // A point deleted since its prefetch ran is dropped here rather than returned stale.
  return [...union.values()].filter((entry) => collection.isCurrent(entry));
}
