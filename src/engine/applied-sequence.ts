// Cluster mode (docs/cluster.md §3): a replica applies its shard's log in order and, after a
// restart, must resume right after the last operation it applied. While it applies one
// operation to its local shard collection, the operation's stream sequence is registered here
// under that collection's name, and the write path stores it in the SAME batch as the write, so
// "stored" and "recorded as applied" can never disagree after a crash. A replica is the only
// writer of its shard collection and applies one operation at a time (wait=true), so every write
// made in that window belongs to that operation. Outside cluster mode nothing is registered.
// (Not an AsyncLocalStorage: fastify's inject does not carry the caller's async context.)

/** The extension namespace and key of the recorded sequence (collection-store.ts extensions). */
export const appliedSequenceNamespace = 'cluster';
export const appliedSequenceKey = 'applied_sequence';

const registered = new Map<string, number>();

/** Runs `work` with `sequence` as the log position every write to `collection` records. */
export async function withAppliedSequence<Result>(collection: string, sequence: number, work: () => Promise<Result>): Promise<Result> {
  registered.set(collection, sequence);
  try {
    return await work();
  } finally {
    registered.delete(collection);
  }
}

/** The sequence a replica registered for `collection`, or undefined (single-node writes). */
export function currentAppliedSequence(collection: string): number | undefined {
  return registered.get(collection);
}
