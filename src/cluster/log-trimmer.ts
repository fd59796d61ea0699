// Log trimming (docs/cluster.md §7): each shard's subject of a collection's stream is purged
// below what every LIVE replica of the shard has applied, less a margin of
// `cluster.log_retention_operations` sequences, so the log does not grow without bound.
//
// Who trims: for each shard, the live replica holder with the smallest node id. Every node
// computes the same choice from the same heartbeats, needs no election, and the one chosen holds
// a replica itself (so it is certainly applying that shard). Two nodes briefly both believing
// they are the one (a heartbeat expiring) is harmless: the purge is idempotent and each takes
// the minimum over the live replicas' reported sequences.
//
// Safety: a replica's applied sequence comes from its own heartbeat, and a live holder that
// reports none (starting, or being rebuilt from a peer) counts as 0, so nothing a live replica
// still needs is trimmed. The floor is recorded in KV BEFORE the purge, so a replica that reads
// the floor and finds itself above it never misses a trimmed operation. The last operation of a
// subject is always kept, so the read barrier's "last sequence" lookup keeps working.
import type { JetStreamManager } from '@nats-io/jetstream';
import type { Logger } from 'pino';
import type { ClusterMetadata } from './metadata.js';
import type { ClusterCollectionRecord, NodeHeartbeat } from './records.js';
import { operationsSubject, shardKey, streamName } from './names.js';

/** The lowest sequence a live holder applied (0 when one reports none), or undefined when none is live. */
export function lowestApplied(holders: string[], beats: NodeHeartbeat[], key: string): number | undefined {
  const live = new Map(beats.map((beat) => [beat.node_id, beat]));
  const liveHolders = holders.filter((node) => live.has(node));
  if (liveHolders.length === 0) return undefined;
  return Math.min(...liveHolders.map((node) => live.get(node)!.applied?.[key] ?? 0));
}

/** The first sequence to keep, or undefined when nothing may be trimmed. Pure: tested alone. */
export function trimPoint(holders: string[], beats: NodeHeartbeat[], key: string, lastSequence: number, retention: number): number | undefined {
  const minimum = lowestApplied(holders, beats, key);
  if (minimum === undefined) return undefined;
  const keepFrom = Math.min(minimum + 1 - retention, lastSequence);
  return keepFrom > 1 ? keepFrom : undefined;
}

/** The node that trims a shard: the smallest live holder's id. */
export function trimmerOf(holders: string[], beats: NodeHeartbeat[]): string | undefined {
  const live = new Set(beats.map((beat) => beat.node_id));
  return holders.filter((node) => live.has(node)).sort()[0];
}

/** Per shard, the floor this node last recorded: no KV read or purge until the trim point passes it. */
const recordedFloors = new Map<string, number>();

export async function trimLogs(
  nodeId: string,
  records: Iterable<ClusterCollectionRecord>,
  metadata: ClusterMetadata,
  manager: JetStreamManager,
  retention: number,
  logger: Logger,
): Promise<void> {
  const beats = await metadata.liveNodes();
  for (const record of records) {
    for (let shard = 0; shard < record.shard_number; shard += 1) {
      const holders = record.placement[shard] ?? [];
      if (trimmerOf(holders, beats) !== nodeId) continue;
      const key = shardKey(record.incarnation, shard);
      // Most passes trim nothing: skip the log's round trip until the margin is passed.
      const minimum = lowestApplied(holders, beats, key);
      if (minimum === undefined || minimum + 1 - retention <= (recordedFloors.get(key) ?? 1)) continue;
      const subject = operationsSubject(record.incarnation, shard);
      const last = await manager.streams.getMessage(streamName(record.incarnation), { last_by_subj: subject }).catch(() => null);
      if (last === null) continue;
      const keepFrom = trimPoint(holders, beats, key, last.seq, retention);
      if (keepFrom === undefined) continue;
      const floor = await metadata.logFloor(key);
      recordedFloors.set(key, floor);
      if (keepFrom <= floor) continue;
      await metadata.raiseLogFloor(key, keepFrom);
      recordedFloors.set(key, keepFrom);
      const purged = await manager.streams.purge(streamName(record.incarnation), { filter: subject, seq: keepFrom });
      logger.info({ collection: record.name, shard, keep_from: keepFrom, purged: purged.purged }, 'cluster: trimmed the shard log');
    }
  }
}
