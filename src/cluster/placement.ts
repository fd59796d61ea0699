// The cluster settings of a new collection and where its shards live (docs/cluster.md §1, §2):
// defaults from the nodes live at create, shard s on nodes (s + r) mod N of the sorted node ids.
import { errors } from '../errors.js';

export interface ShardSettings {
  shard_number: number;
  replication_factor: number;
  write_consistency_factor: number;
}

export const maximumShardNumber = 256;

/** The request's settings, defaults filled from `liveNodes` (at least 1); a 400 for a bad mix. */
export function shardSettings(request: { shard_number?: unknown; replication_factor?: unknown; write_consistency_factor?: unknown }, liveNodes: number): ShardSettings {
  const nodes = Math.max(1, liveNodes);
  const settings = {
    shard_number: Number(request.shard_number ?? nodes),
    replication_factor: Number(request.replication_factor ?? Math.min(2, nodes)),
    write_consistency_factor: Number(request.write_consistency_factor ?? 1),
  };
  if (settings.shard_number > maximumShardNumber) throw errors.invalidField('shard_number', `must be at most ${maximumShardNumber} (got ${settings.shard_number})`);
  if (settings.write_consistency_factor > settings.replication_factor) {
    throw errors.invalidField('write_consistency_factor', `must not exceed replication_factor (${settings.replication_factor}), got ${settings.write_consistency_factor}`);
  }
  return settings;
}

/** Per shard, the node ids holding a replica: min(replication_factor, nodes) distinct nodes. */
export function placeShards(nodeIds: readonly string[], settings: ShardSettings): string[][] {
  const nodes = [...nodeIds].sort();
  const copies = Math.min(settings.replication_factor, nodes.length);
  return Array.from({ length: settings.shard_number }, (_, shard) => Array.from({ length: copies }, (__, copy) => nodes[(shard + copy) % nodes.length]!));
}
