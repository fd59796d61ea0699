// `GET C/optimizations` (docs/api.md §4.6) in Qdrant v1.19's OptimizationsResponse shape. QuiverDB
// has one segment per collection and one kind of background work: the kernel linking vectors
// into each vector's graph (and the checkpoint that saves it). While a graph in use has vectors
// still to link, that is reported as one running "indexing" optimization of the one segment,
// with a progress child per vector name; otherwise the segment is idle. Nothing is ever queued,
// and finished builds are not kept, so `completed` is always an empty list.
import { errors } from '../errors.js';
import type { Collection } from './collection.js';

export type OptimizationsDetail = 'queued' | 'completed' | 'idle_segments';
const details: readonly OptimizationsDetail[] = ['queued', 'completed', 'idle_segments'];

/** The `with` query parameter: a comma-separated list of details; 400 naming it otherwise. */
export function parseOptimizationsDetails(value: string | undefined): Set<OptimizationsDetail> {
  const chosen = new Set<OptimizationsDetail>();
  if (value === undefined || value === '') return chosen;
  for (const part of value.split(',')) {
    const detail = part.trim();
    if (!(details as readonly string[]).includes(detail)) {
      throw errors.invalidField('with', `unknown value ${JSON.stringify(detail)} (expected a comma-separated list of ${details.join(', ')})`);
    }
    chosen.add(detail as OptimizationsDetail);
  }
  return chosen;
}

/** A fixed UUID per collection number and role: the one segment has no other identity. */
function stableUuid(role: number, collectionNumber: number): string {
  return `00000000-0000-4000-8${role.toString(16).padStart(3, '0')}-${collectionNumber.toString(16).padStart(12, '0')}`;
}

export function describeOptimizations(collection: Collection, chosen: ReadonlySet<OptimizationsDetail>): Record<string, unknown> {
  const progress = collection.indexingProgress();
  const segment = { uuid: stableUuid(0, collection.number), points_count: collection.pointCount };
  const building = progress.vectors.filter((vector) => vector.graphInUse && vector.linked < vector.total);
  const running: Record<string, unknown>[] = [];
  if (building.length > 0 || progress.checkpointing) {
    const children: Record<string, unknown>[] = building.map((vector) => ({
      name: vector.name === '' ? 'vector_index' : `vector_index: ${vector.name}`,
      done: vector.linked,
      total: vector.total,
      children: [],
    }));
    if (progress.checkpointing) children.push({ name: 'checkpoint', children: [] });
    running.push({
      uuid: stableUuid(1, collection.number),
      optimizer: building.length > 0 ? 'indexing' : 'checkpoint',
      status: 'optimizing',
      segments: [segment],
      progress: {
        name: building.length > 0 ? 'indexing' : 'checkpoint',
        done: building.reduce((sum, vector) => sum + vector.linked, 0),
        total: building.reduce((sum, vector) => sum + vector.total, 0),
        children,
      },
    });
  }
  const response: Record<string, unknown> = {
    summary: { queued_optimizations: 0, queued_segments: 0, queued_points: 0, idle_segments: running.length === 0 ? 1 : 0 },
    running,
  };
  if (chosen.has('queued')) response.queued = [];
  if (chosen.has('completed')) response.completed = [];
  if (chosen.has('idle_segments')) response.idle_segments = running.length === 0 ? [segment] : [];
  return response;
}
