// Operation log entries. The point records and stored vectors are the current state; the log
// says which slots each operation touched, so that after a kernel checkpoint covering
// operation N, start-up re-applies exactly the slots touched after N from the current state.
// Re-applying current state is idempotent, which is what makes replay safe to repeat.
import { decodeJsonRecord, encodeJsonRecord } from './codec.js';

const operationFormat = 1;

// `batch`: several operations of POST .../points/batch written as one (docs/api.md §10).
export type OperationKind = 'upsert' | 'delete' | 'update_vectors' | 'payload' | 'batch';

export interface OperationEntry {
  kind: OperationKind;
  /** Slots whose vectors may have changed (payload-only operations list none). */
  slots: number[];
}

export function encodeOperation(entry: OperationEntry): Buffer {
  return encodeJsonRecord(operationFormat, { kind: entry.kind, slots: entry.slots });
}

export function decodeOperation(bytes: Uint8Array): OperationEntry {
  const { value } = decodeJsonRecord(bytes, [operationFormat], 'operation log entry');
  const entry = value as OperationEntry;
  if (!Array.isArray(entry.slots)) throw new Error('operation log entry: slots missing');
  return entry;
}
