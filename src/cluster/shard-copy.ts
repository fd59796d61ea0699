// Catch-up from a peer replica when the shard's log was trimmed past this replica's applied
// sequence (docs/cluster.md §7). The peer pauses applying the shard's log while the copy runs,
// so every page comes from the same state: its applied sequence S. The receiving replica
// rebuilds its local shard collection from the pages (ids, vectors of every kind, payloads),
// records S with the last page's write, then consumes the log from S + 1 — the log still holds
// it, because trimming never passes a live replica that has not reported itself ready.
import type { FastifyInstance } from 'fastify';
import type { NatsConnection } from '@nats-io/transport-node';
import { withAppliedSequence } from '../engine/applied-sequence.js';
import { checkCreate } from '../http/collections.js';
import { parseJson } from '../json/parse.js';
import { serializeJson } from '../json/serialize.js';
import { dispatchLocal, localCollectionUrl } from './local-dispatch.js';
import type { ClusterCollectionRecord } from './records.js';
import { copySubject } from './names.js';

/** What the requester sends: open a session, fetch one page, or close it. */
export type CopyRequest =
  | { operation: 'begin' }
  | { operation: 'page'; session: string; offset: unknown; limit: number }
  | { operation: 'end'; session: string };

export type CopyAnswer =
  | { session: string; sequence: number }
  | { points: unknown[]; next_page_offset: unknown }
  | { ended: true }
  | { error: string };

/** Points per page asked for; the peer halves it while a page would not fit a NATS message. */
export const copyPageLimit = 256;

/** A session whose requester went silent this long is closed and the peer resumes applying. */
export const copySessionIdleMs = 30_000;

/**
 * One page of the peer's local shard collection, in id order, at most `limit` points and small
 * enough for one NATS message of `maxBytes`.
 */
export async function copyPage(app: FastifyInstance, localName: string, offset: unknown, limit: number, maxBytes: number): Promise<CopyAnswer> {
  let size = Math.max(1, Math.min(limit, copyPageLimit));
  for (;;) {
    const body: Record<string, unknown> = { limit: size, with_payload: true, with_vector: true };
    if (offset !== null && offset !== undefined) body.offset = offset;
    const answer = await dispatchLocal(app, 'POST', localCollectionUrl(localName, '/points/scroll'), body);
    if (answer.status !== 200) return { error: `scroll answered ${answer.status}: ${answer.body.slice(0, 300)}` };
    if (answer.body.length <= maxBytes * 0.9 || size === 1) {
      const result = (parseJson(answer.body) as { result: { points: unknown[]; next_page_offset: unknown } }).result;
      return { points: result.points, next_page_offset: result.next_page_offset ?? null };
    }
    size = Math.max(1, Math.floor(size / 2));
  }
}

async function ask(connection: NatsConnection, subject: string, request: CopyRequest, timeoutMs: number): Promise<CopyAnswer> {
  const reply = await connection.request(subject, serializeJson(request), { timeout: timeoutMs });
  const answer = parseJson(reply.string()) as CopyAnswer;
  if ('error' in answer) throw new Error(answer.error);
  return answer;
}

/** Points as scroll shows them, as an upsert takes them (version is the peer's, not ours). */
function asUpsert(points: unknown[]): unknown[] {
  return points.map((point) => {
    const { id, vector, payload } = point as { id: unknown; vector?: unknown; payload?: unknown };
    const out: Record<string, unknown> = { id };
    if (vector !== undefined && vector !== null) out.vector = vector;
    if (payload !== undefined && payload !== null) out.payload = payload;
    return out;
  });
}

async function expectOk(answer: { status: number; body: string }, what: string): Promise<void> {
  if (answer.status !== 200) throw new Error(`${what} answered ${answer.status}: ${answer.body.slice(0, 300)}`);
}

/**
 * Replaces the local shard collection with the peer's copy at its applied sequence S and
 * resolves to S. Throws (the caller tries another peer, or again later) on any failure; a crash
 * half-way leaves a collection without a recorded sequence, so the next start copies again.
 */
export async function copyFromPeer(
  app: FastifyInstance,
  connection: NatsConnection,
  record: ClusterCollectionRecord,
  shard: number,
  localName: string,
  peer: string,
  timeoutMs: number,
): Promise<number> {
  const subject = copySubject(record.incarnation, shard, peer);
  const begun = (await ask(connection, subject, { operation: 'begin' }, timeoutMs)) as { session: string; sequence: number };
  try {
    if (app.collections.exists(localName)) await app.collections.delete(localName);
    await app.collections.create(localName, checkCreate({ ...record.request, shard_number: 1 }));
    // The record holds field -> field_schema as acknowledged (src/cluster/door.ts).
    for (const [field, schema] of Object.entries(record.payload_indexes)) {
      const body = schema === null ? { field_name: field } : { field_name: field, field_schema: schema };
      await expectOk(await dispatchLocal(app, 'PUT', localCollectionUrl(localName, '/index', '?wait=true'), body), 'payload index');
    }
    let offset: unknown = null;
    for (;;) {
      const page = (await ask(connection, subject, { operation: 'page', session: begun.session, offset, limit: copyPageLimit }, timeoutMs)) as {
        points: unknown[];
        next_page_offset: unknown;
      };
      const last = page.next_page_offset === null;
      if (page.points.length > 0) {
        const upsert = () => dispatchLocal(app, 'PUT', localCollectionUrl(localName, '/points', '?wait=true'), { points: asUpsert(page.points) });
        // Only the last page records S: a copy cut short never looks complete.
        await expectOk(last ? await withAppliedSequence(localName, begun.sequence, upsert) : await upsert(), 'copy upsert');
      }
      if (last) break;
      offset = page.next_page_offset;
    }
    return begun.sequence;
  } finally {
    await ask(connection, subject, { operation: 'end', session: begun.session }, timeoutMs).catch(() => undefined);
  }
}
