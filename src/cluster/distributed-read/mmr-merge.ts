// MMR across shards (docs/architecture.md §13): the stage's `candidates_limit` nearest points
// are merged from the shards (with their vectors) exactly as any nearest stage, then picked here
// by the kernel's own MMR selection (src/search/mmr-stage.ts, crates' mmr.rs) over a temporary
// in-memory index of just those candidates, in candidate order. The selection reads only the
// rows, their order and the prepared query, so its picks are one node's.
//
// Cosine rows arrive unit-length, as stored; storing them again would normalise them a second
// time (an ulp off). So the rows go into a Dot index (same dot kernel as Cosine, no preparation)
// and the query is prepared by a one-row Cosine index, read back as the kernel stored it.
import { createVectorIndex, type Distance, type VectorIndex } from '../../native/vector-index.js';
import { parseDenseVector } from '../../points/vectors.js';
import { queryForm } from '../../search/request.js';
import type { MmrSpec } from '../../search/plan.js';
import type { WirePoint } from './wire-point.js';

type Body = Record<string, unknown>;

export interface MmrStage {
  /** The raw query vector as sent. */
  target: unknown;
  mmr: MmrSpec;
}

/** The stage's MMR and its dense target, as one node parses them; undefined when the stage has no MMR over an inline dense vector. */
export function mmrOf(stage: Body, limit: number): MmrStage | undefined {
  const query = stage.query as Body | undefined;
  if (!query || typeof query !== 'object' || Array.isArray(query) || query.mmr === undefined || query.mmr === null || !Array.isArray(query.nearest)) return undefined;
  const form = queryForm('query', query as never, undefined, limit);
  if (form.kind !== 'nearest' || !form.mmr) return undefined;
  return { target: query.nearest, mmr: form.mmr };
}

/** The stage's query without its MMR: what the shards are asked for the candidates. */
export function withoutMmr(stage: Body): Body {
  return { ...stage, query: { nearest: (stage.query as Body).nearest } };
}

/** The vector a point answered under `using` ('' the unnamed one). */
export function vectorOf(point: WirePoint, using: string): number[] | undefined {
  const vector = point.vector;
  if (using === '') return Array.isArray(vector) ? (vector as number[]) : undefined;
  const named = vector && typeof vector === 'object' ? (vector as Body)[using] : undefined;
  return Array.isArray(named) ? (named as number[]) : undefined;
}

function temporaryIndex(dimension: number, distance: Distance): VectorIndex {
  return createVectorIndex({ dimension, distance, m: 16, efConstruct: 100, fullScanThreshold: 1 << 30, indexingThreads: 1 });
}

/** The query as the kernel prepares it for `distance` (unit length for Cosine). */
async function preparedQuery(query: Float32Array, distance: Distance): Promise<Float32Array> {
  if (distance !== 'Cosine') return query;
  const index = temporaryIndex(query.length, 'Cosine');
  try {
    await index.upsert(Uint32Array.of(0), query);
    return index.vectors(Uint32Array.of(0));
  } finally {
    index.close();
  }
}

/** The MMR picks among `candidates` (best first, each with its vector under `using`), in pick order. */
export async function mmrPickAtCoordinator(stage: MmrStage, using: string, distance: Distance, candidates: readonly WirePoint[], limit: number): Promise<WirePoint[]> {
  if (candidates.length === 0 || limit === 0) return [];
  const rows = candidates.map((point) => vectorOf(point, using)!);
  const dimension = rows[0]!.length;
  const query = await preparedQuery(parseDenseVector(stage.target, 'query.nearest', dimension), distance);
  const index = temporaryIndex(dimension, distance === 'Cosine' ? 'Dot' : distance);
  try {
    const data = new Float32Array(rows.length * dimension);
    rows.forEach((row, position) => data.set(row, position * dimension));
    const slots = Uint32Array.from(rows, (_, position) => position);
    await index.upsert(slots, data);
    const picked = await index.mmrSelect(query, slots, stage.mmr.lambda, limit);
    return Array.from(picked, (position) => candidates[position]!);
  } finally {
    index.close();
  }
}
