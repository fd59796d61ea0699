// Every name the cluster derives from a collection's incarnation (docs/cluster.md §2): the
// JetStream stream of its write log, the per-shard subjects, and the reserved local collection
// that holds one shard's replica on a node (hidden: cluster-level reads answer from KV).

/** A fresh incarnation id: 12 lowercase hex digits, valid in subjects, stream and collection names. */
export function newIncarnation(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(6)), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

export function streamName(incarnation: string): string {
  return `QUIVER_OPS_${incarnation}`;
}

export function operationsSubject(incarnation: string, shard: number | '*'): string {
  return `quiver.ops.${incarnation}.${shard}`;
}

export function appliedSubject(incarnation: string, shard: number): string {
  return `quiver.applied.${incarnation}.${shard}`;
}

export const appliedSubjectPattern = 'quiver.applied.>';

export function readSubject(incarnation: string, shard: number): string {
  return `quiver.read.${incarnation}.${shard}`;
}

export const localShardPrefix = 'quiver_shard_';

export function localShardName(incarnation: string, shard: number): string {
  return `${localShardPrefix}${incarnation}_${shard}`;
}

/** A peer replica's copy service (docs/cluster.md §7): addressed to one node, not a queue group. */
export function copySubject(incarnation: string, shard: number, nodeId: string): string {
  return `quiver.copy.${incarnation}.${shard}.${nodeId}`;
}

/** The key of one shard in heartbeats and in the log-floors bucket. */
export function shardKey(incarnation: string, shard: number): string {
  return `${incarnation}.${shard}`;
}
