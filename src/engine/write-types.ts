// The shapes a write request hands the engine, shared by the write path and the write draft
// (kept apart so that neither imports the other's module for a type).
import type { PointId } from '../points/ids.js';
import type { Payload } from '../points/selectors.js';

/** A point as a write request gives it, already checked (see src/points/upsert-request.ts). */
export interface PreparedPoint {
  id: PointId;
  key: string;
  vectors: Map<string, Float32Array>;
  payload: Payload;
  payloadJson: string;
}

export type UpdateMode = 'upsert' | 'insert_only' | 'update_only';
