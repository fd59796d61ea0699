// Which shard holds a point, and how one write request becomes one request per shard
// (docs/cluster.md §3). A point lives on shard fnv1a32(canonical id) mod shard_number, where the
// canonical id is an integer's decimal digits or a UUID's lowercase hyphenated form, so the same
// point always lands on the same shard whichever form the client sent. A write that names its
// points (upsert, update vectors, delete or payload by ids) is split by that rule; one that
// selects by filter goes whole to every shard, whose own points the filter then selects.
import { errors } from '../errors.js';
import { formatPointId, parsePointId, type PointId } from '../points/ids.js';

/** 32-bit FNV-1a of the UTF-8 bytes: tiny, stable across versions and platforms. */
export function fnv1a32(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

export function shardOfPointId(id: PointId, shardCount: number): number {
  return fnv1a32(formatPointId(id)) % shardCount;
}

function shardOfRaw(value: unknown, shardCount: number, field: string): number {
  let id: PointId;
  try {
    id = parsePointId(value);
  } catch (error) {
    throw errors.invalidInput(`${field}: ${(error as Error).message}`);
  }
  return shardOfPointId(id, shardCount);
}

type Body = Record<string, unknown>;

/** One selector-carrying body ({points: ids} or {filter}) as per-shard bodies (undefined = none). */
function splitIdSelector(body: Body, shardCount: number, field: string): (Body | undefined)[] {
  const ids = body.points;
  if (!Array.isArray(ids)) return Array.from({ length: shardCount }, () => body);
  const perShard: unknown[][] = Array.from({ length: shardCount }, () => []);
  ids.forEach((id, position) => perShard[shardOfRaw(id, shardCount, `${field}[${position}]`)]!.push(id));
  return perShard.map((shardIds) => (shardIds.length === 0 ? undefined : { ...body, points: shardIds }));
}

/** `{points: [{id, ...}]}` split by each point's id. */
function splitPointList(body: Body, shardCount: number, field: string): (Body | undefined)[] {
  const points = body.points as { id: unknown }[];
  const perShard: unknown[][] = Array.from({ length: shardCount }, () => []);
  points.forEach((point, position) => perShard[shardOfRaw(point.id, shardCount, `${field}[${position}].id`)]!.push(point));
  return perShard.map((shardPoints) => (shardPoints.length === 0 ? undefined : { ...body, points: shardPoints }));
}

/** The column form `{batch: {ids, vectors, payloads}}`, split row by row. */
function splitBatchForm(body: Body, shardCount: number): (Body | undefined)[] {
  const batch = body.batch as { ids: unknown[]; vectors: unknown; payloads?: unknown[] | null };
  const rowsOf: number[][] = Array.from({ length: shardCount }, () => []);
  batch.ids.forEach((id, position) => rowsOf[shardOfRaw(id, shardCount, `batch.ids[${position}]`)]!.push(position));
  const pick = (column: unknown, rows: number[]): unknown => (Array.isArray(column) ? rows.map((row) => column[row]) : column);
  return rowsOf.map((rows) => {
    if (rows.length === 0) return undefined;
    const vectors = batch.vectors;
    const shardVectors = Array.isArray(vectors)
      ? pick(vectors, rows)
      : typeof vectors === 'object' && vectors !== null
        ? Object.fromEntries(Object.entries(vectors).map(([name, column]) => [name, pick(column, rows)]))
        : vectors;
    const shardBatch: Body = { ids: rows.map((row) => batch.ids[row]), vectors: shardVectors };
    if (batch.payloads !== undefined) shardBatch.payloads = batch.payloads === null ? null : pick(batch.payloads, rows);
    return { ...body, batch: shardBatch };
  });
}

/** The per-shard bodies of one upsert body (already checked whole). */
export function splitUpsert(body: Body, shardCount: number): (Body | undefined)[] {
  if (body.batch !== undefined && body.batch !== null) return splitBatchForm(body, shardCount);
  return splitPointList(body, shardCount, 'points');
}

/** `PUT points/vectors`: `{points: [{id, vector}]}`. */
export function splitVectorUpdates(body: Body, shardCount: number): (Body | undefined)[] {
  return splitPointList(body, shardCount, 'points');
}

/** Delete, payload set/overwrite/delete/clear, delete vectors: by ids or by filter. */
export function splitSelected(body: Body, shardCount: number): (Body | undefined)[] {
  return splitIdSelector(body, shardCount, 'points');
}

/** One operation of `POST points/batch` as per-shard operations. */
function splitBatchOperation(operation: Body, shardCount: number): (Body | undefined)[] {
  const [kind, inner] = Object.entries(operation)[0] ?? [];
  if (kind === undefined || typeof inner !== 'object' || inner === null) return Array.from({ length: shardCount }, () => operation);
  let parts: (Body | undefined)[];
  if (kind === 'upsert') parts = splitUpsert(inner as Body, shardCount);
  else if (kind === 'update_vectors') parts = splitVectorUpdates(inner as Body, shardCount);
  else if (kind === 'clear_payload') {
    // Its body is the selector itself: {points: [...]} or {filter}.
    parts = splitSelected(inner as Body, shardCount);
  } else parts = splitSelected(inner as Body, shardCount);
  return parts.map((part) => (part === undefined ? undefined : { [kind]: part }));
}

/** `POST points/batch`: each shard gets its part of each operation, in the request's order. */
export function splitOperations(body: Body, shardCount: number): (Body | undefined)[] {
  const operations = body.operations as Body[];
  const perShard: Body[][] = Array.from({ length: shardCount }, () => []);
  for (const operation of operations) {
    splitBatchOperation(operation, shardCount).forEach((part, shard) => {
      if (part !== undefined) perShard[shard]!.push(part);
    });
  }
  return perShard.map((shardOperations) => (shardOperations.length === 0 ? undefined : { ...body, operations: shardOperations }));
}
