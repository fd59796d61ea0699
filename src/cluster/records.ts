// The records of the cluster's metadata buckets (docs/cluster.md §2), kept apart from the NATS
// client so the door can name them without loading it.
import type { CollectionConfig } from '../engine/collection-config.js';

export const metadataFormat = 1;

export interface ClusterCollectionRecord {
  format: typeof metadataFormat;
  name: string;
  /** Random at create: names the stream, subjects and local shard collections of this life. */
  incarnation: string;
  /** The create request as given (each replica creates its local shard collections from it). */
  request: Record<string, unknown>;
  config: CollectionConfig;
  shard_number: number;
  replication_factor: number;
  write_consistency_factor: number;
  /** Per shard, the node ids holding a replica. */
  placement: string[][];
  /** Field name -> the create-index body, as acknowledged. */
  payload_indexes: Record<string, unknown>;
  created_at: string;
}

export interface NodeHeartbeat {
  node_id: string;
  advertise_url: string | null;
  started_at: string;
  /** `<incarnation>.<shard>` -> applied log sequence, for the replicas this node serves (log trimming, docs/cluster.md §7). */
  applied?: Record<string, number>;
}

/** KV keys allow [-/_=.a-zA-Z0-9]: a collection name is stored base64url-encoded. */
export function collectionKey(name: string): string {
  return Buffer.from(name, 'utf8').toString('base64url') || '_';
}
