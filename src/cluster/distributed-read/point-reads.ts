// Retrieve, count, scroll across shards (docs/api.md §3.2, §3.4). Points live on exactly one
// shard, so each merge is a union: retrieve in request order, count as a sum, scroll in id (or
// order_by value) order with the next page's first id found across shards.
import { parsePointId, pointIdKey } from '../../points/ids.js';
import { everyShard } from './fan-out.js';
import { mergeSorted } from './ranked-merge.js';
import type { ShardReader } from './shard-reader.js';
import { byId, keyOf, type WirePoint } from './wire-point.js';

type Body = Record<string, unknown>;

/** `GET C/points/{id}`: the shard holding it answers; every shard's 404 is one node's 404. */
export async function retrieveOne(reader: ShardReader, path: string): Promise<unknown> {
  const answers = await Promise.allSettled(Array.from({ length: reader.shardCount }, (_, shard) => reader.call<WirePoint>(shard, 'GET', path)));
  const found = answers.find((answer) => answer.status === 'fulfilled');
  if (found) return (found as PromiseFulfilledResult<WirePoint>).value;
  // A failure other than "not here" (a 503, a 400 for a malformed id) is the answer; else the 404.
  const failures = answers.map((answer) => (answer as PromiseRejectedResult).reason as { status?: number });
  throw failures.find((failure) => failure.status !== 404) ?? failures[0];
}

/** `POST C/points`: every shard returns the ids it holds; one node answers in request order. */
export async function retrieveMany(reader: ShardReader, body: Body): Promise<unknown> {
  const answers = await everyShard<WirePoint[]>(reader, 'POST', '/points', body);
  const byKey = new Map<string, WirePoint>();
  for (const records of answers) for (const record of records) byKey.set(keyOf(record), record);
  const records: WirePoint[] = [];
  for (const id of (body.ids as unknown[]) ?? []) {
    const record = byKey.get(pointIdKey(parsePointId(id)));
    if (record) records.push(record);
  }
  return records;
}

/** `POST C/points/count`: the shards' counts summed (both forms count exactly on one node). */
export async function countPoints(reader: ShardReader, body: unknown): Promise<unknown> {
  const answers = await everyShard<{ count: number }>(reader, 'POST', '/points/count', body ?? {});
  return { count: answers.reduce((total, answer) => total + answer.count, 0) };
}

interface ScrollAnswer {
  points: WirePoint[];
  next_page_offset: unknown;
}

/**
 * `POST C/points/scroll`: each shard pages from the same offset; the merged page is the first
 * `limit` rows by id (or by order_by value, then id, as one node walks its range index), and
 * the next page starts at the first row left over, from whichever shard holds it.
 */
export async function scrollPoints(reader: ShardReader, body: Body | undefined): Promise<unknown> {
  const request = body ?? {};
  const limit = typeof request.limit === 'number' ? request.limit : 10;
  const orderBy = request.order_by;
  if (orderBy !== undefined && orderBy !== null) {
    const answers = await everyShard<ScrollAnswer>(reader, 'POST', '/points/scroll', request);
    const descending = typeof orderBy === 'object' && (orderBy as { direction?: unknown }).direction === 'desc';
    const compare = (left: WirePoint, right: WirePoint) => {
      const difference = (left.order_value ?? 0) - (right.order_value ?? 0);
      return (descending ? -difference : difference) || byId(left, right);
    };
    return { points: mergeSorted(answers.map((answer) => answer.points), compare, limit), next_page_offset: null };
  }
  // One more row per shard tells where the next page starts.
  const answers = await everyShard<ScrollAnswer>(reader, 'POST', '/points/scroll', { ...request, limit: limit + 1 });
  const rows = mergeSorted(answers.map((answer) => answer.points), byId, limit + 1);
  // The next page's first id: the first row left over, or a shard's own next offset when its
  // page was clamped to the server's maximum.
  const starts = [...rows.slice(limit), ...answers.filter((answer) => answer.next_page_offset !== null).map((answer) => ({ id: answer.next_page_offset }) as WirePoint)];
  const next = starts.sort(byId)[0]?.id ?? null;
  return { points: rows.slice(0, limit), next_page_offset: next };
}
