// The `sample: random` query: `limit` points chosen uniformly at random, in random order.
import type { PointEntry } from '../engine/collection.js';
import type { StageOutput } from './stage-output.js';

/**
 * Reservoir sampling: one pass over `entries`, O(limit) memory, every point equally likely.
 * `random` is Math.random outside tests. Scores are 0.
 */
export function randomSample(entries: Iterable<PointEntry>, limit: number, random: () => number = Math.random): StageOutput {
  const reservoir: PointEntry[] = [];
  let seen = 0;
  for (const entry of entries) {
    seen++;
    if (reservoir.length < limit) reservoir.push(entry);
    else {
      const replace = Math.floor(random() * seen);
      if (replace < limit) reservoir[replace] = entry;
    }
  }
  // Shuffle, so the order says nothing either.
  for (let position = reservoir.length - 1; position > 0; position--) {
    const other = Math.floor(random() * (position + 1));
    [reservoir[position], reservoir[other]] = [reservoir[other]!, reservoir[position]!];
  }
  return { order: 'larger_better', points: reservoir.map((entry) => ({ entry, score: 0 })) };
}
