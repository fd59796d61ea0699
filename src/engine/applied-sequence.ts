// Cluster mode (docs/cluster.md): a replica applies its shard's log in order and, after a
// restart, must resume right after the last operation it applied. The stream sequence of the
// operation being applied travels here (AsyncLocalStorage, set by the replica around the
// dispatch) and the write path stores it in the SAME batch as the write, so "stored" and
// "recorded as applied" can never disagree after a crash. Outside cluster mode it is never set.
import { AsyncLocalStorage } from 'node:async_hooks';

/** The extension namespace and key of the recorded sequence (collection-store.ts extensions). */
export const appliedSequenceNamespace = 'cluster';
export const appliedSequenceKey = 'applied_sequence';

const current = new AsyncLocalStorage<number>();

/** Runs `work` with `sequence` as the log position every write it starts records. */
export function withAppliedSequence<Result>(sequence: number, work: () => Result): Result {
  return current.run(sequence, work);
}

/** The sequence set by the caller, or undefined (single-node writes). */
export function currentAppliedSequence(): number | undefined {
  return current.getStore();
}
