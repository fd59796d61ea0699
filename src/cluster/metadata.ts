// The cluster's metadata in two JetStream KV buckets (docs/cluster.md §2), replicated by NATS
// (min(3, NATS servers) copies, Raft): `quiver_collections` holds one record per collection
// (config, shard count, replication, placement, incarnation, payload-index definitions) and
// `quiver_nodes` one heartbeat per live node, expired by the bucket's TTL (three heartbeats).
import type { NatsConnection } from '@nats-io/transport-node';
import { Kvm, type KV, type KvWatchEntry } from '@nats-io/kv';
import { parseJson } from '../json/parse.js';
import { serializeJson } from '../json/serialize.js';
import { collectionKey, type ClusterCollectionRecord, type NodeHeartbeat } from './records.js';

/**
 * A bucket's keys, each once, sorted. The key listing is a consumer over the bucket's stream, and
 * a value written while it runs can deliver its key again: a heartbeat listed twice counted as a
 * fourth live node of three (one shard too many by default, every placement after it shifted).
 */
async function distinctKeys(bucket: KV): Promise<string[]> {
  const keys = new Set<string>();
  for await (const key of await bucket.keys()) keys.add(key);
  return [...keys].sort();
}

export class ClusterMetadata {
  private constructor(
    private readonly collectionsBucket: KV,
    private readonly nodesBucket: KV,
    private readonly floorsBucket: KV,
  ) {}

  static async open(connection: NatsConnection, options: { natsServers: number; heartbeatSeconds: number }): Promise<ClusterMetadata> {
    const kvm = new Kvm(connection);
    // A KV bucket has 1, 3 or 5 replicas.
    const replicas = options.natsServers >= 3 ? 3 : 1;
    const collections = await kvm.create('quiver_collections', { replicas, history: 1 });
    const nodes = await kvm.create('quiver_nodes', { replicas, history: 1, ttl: Math.round(options.heartbeatSeconds * 3000) });
    // Per shard, the sequence below which its log subject may have been trimmed (docs/cluster.md §7).
    const floors = await kvm.create('quiver_log_floors', { replicas, history: 1 });
    return new ClusterMetadata(collections, nodes, floors);
  }

  async collection(name: string): Promise<ClusterCollectionRecord | undefined> {
    const entry = await this.collectionsBucket.get(collectionKey(name));
    if (!entry || entry.operation !== 'PUT' || entry.length === 0) return undefined;
    return parseJson(entry.string()) as ClusterCollectionRecord;
  }

  /** The record and its revision, for a compare-and-set update. */
  async collectionWithRevision(name: string): Promise<{ record: ClusterCollectionRecord; revision: number } | undefined> {
    const entry = await this.collectionsBucket.get(collectionKey(name));
    if (!entry || entry.operation !== 'PUT' || entry.length === 0) return undefined;
    return { record: parseJson(entry.string()) as ClusterCollectionRecord, revision: entry.revision };
  }

  /** False when the name is taken (the KV create is atomic across the cluster). */
  async createCollection(record: ClusterCollectionRecord): Promise<boolean> {
    try {
      await this.collectionsBucket.create(collectionKey(record.name), serializeJson(record));
      return true;
    } catch (error) {
      if (/wrong last sequence|key exists/i.test((error as Error).message)) return false;
      throw error;
    }
  }

  /** Compare-and-set: false when someone changed the record since `revision`. */
  async updateCollection(record: ClusterCollectionRecord, revision: number): Promise<boolean> {
    try {
      await this.collectionsBucket.update(collectionKey(record.name), serializeJson(record), revision);
      return true;
    } catch (error) {
      if (/wrong last sequence/i.test((error as Error).message)) return false;
      throw error;
    }
  }

  async deleteCollection(name: string): Promise<void> {
    await this.collectionsBucket.delete(collectionKey(name));
  }

  async collections(): Promise<ClusterCollectionRecord[]> {
    const records: ClusterCollectionRecord[] = [];
    for (const key of await distinctKeys(this.collectionsBucket)) {
      const entry = await this.collectionsBucket.get(key);
      if (entry && entry.operation === 'PUT' && entry.length > 0) records.push(parseJson(entry.string()) as ClusterCollectionRecord);
    }
    return records;
  }

  /** Every change to the collections bucket, the current records first. */
  async watchCollections(onChange: (entry: KvWatchEntry) => Promise<void>): Promise<() => void> {
    const watcher = await this.collectionsBucket.watch();
    void (async () => {
      for await (const entry of watcher) await onChange(entry);
    })();
    return () => watcher.stop();
  }

  async heartbeat(beat: NodeHeartbeat): Promise<void> {
    await this.nodesBucket.put(beat.node_id, serializeJson(beat));
  }

  async removeNode(nodeId: string): Promise<void> {
    await this.nodesBucket.delete(nodeId);
  }

  /** Ids of the nodes whose heartbeat has not expired, sorted. */
  async liveNodes(): Promise<NodeHeartbeat[]> {
    const beats: NodeHeartbeat[] = [];
    for (const key of await distinctKeys(this.nodesBucket)) {
      const entry = await this.nodesBucket.get(key);
      if (entry && entry.operation === 'PUT' && entry.length > 0) beats.push(parseJson(entry.string()) as NodeHeartbeat);
    }
    return beats;
  }

  /** The first sequence the shard's log subject is sure to still hold (1 = never trimmed). */
  async logFloor(shard: string): Promise<number> {
    const entry = await this.floorsBucket.get(shard);
    if (!entry || entry.operation !== 'PUT' || entry.length === 0) return 1;
    return Number(entry.string());
  }

  /** Recorded BEFORE the purge, so a replica that reads it never misses a trim. */
  async raiseLogFloor(shard: string, floor: number): Promise<void> {
    await this.floorsBucket.put(shard, String(floor));
  }

  async forgetLogFloor(shard: string): Promise<void> {
    await this.floorsBucket.purge(shard);
  }
}
