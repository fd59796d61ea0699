// The shapes a write request hands the engine, shared by the write path and the write draft
// (kept apart so that neither imports the other's module for a type).
import type { PointId } from '../points/ids.js';
import type { Payload } from '../points/selectors.js';
import type { SparseVector } from '../points/sparse-vector.js';

/** A point as a write request gives it, already checked (see src/points/upsert-request.ts). */
export interface PreparedPoint {
  id: PointId;
  key: string;
  vectors: Map<string, Float32Array>;
  /** Sparse vectors by name; a name left out is removed, like a dense one. */
  sparse?: Map<string, SparseVector>;
  payload: Payload;
  payloadJson: string;
}

/** A vector update (PUT points/vectors): only the names given change. */
export interface VectorUpdate {
  id: PointId;
  vectors: Map<string, Float32Array>;
  sparse?: Map<string, SparseVector>;
}

export type UpdateMode = 'upsert' | 'insert_only' | 'update_only';
