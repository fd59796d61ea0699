// This node's part in the cluster (docs/cluster.md): the NATS connection, the metadata buckets,
// its heartbeat, the replicas of the shards placed on it (created and dropped as the collections
// bucket changes), and the write side of the door: publish to the log, wait for the replicas.
import { randomUUID } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { connect, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { Config } from '../config.js';
import { errors } from '../errors.js';
import { parseJson } from '../json/parse.js';
import { serializeJson } from '../json/serialize.js';
import { AppliedTracker, type AppliedReport } from './applied-tracker.js';
import { ClusterMetadata } from './metadata.js';
import type { ClusterCollectionRecord } from './records.js';
import { trimLogs } from './log-trimmer.js';
import { appliedSubjectPattern, localShardPrefix, operationsSubject, shardKey, streamName } from './names.js';
import { NatsShardReader } from './nats-shard-reader.js';
import { ShardReplica, type LoggedOperation } from './shard-replica.js';

const startDeadlineMs = 60_000;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** cluster.node_id, or a random id kept in the data directory so a restart keeps its identity. */
async function resolveNodeId(config: Config): Promise<string> {
  if (config.cluster.node_id) return config.cluster.node_id;
  const file = join(config.storage.path, 'cluster-node-id');
  try {
    const stored = (await readFile(file, 'utf8')).trim();
    if (/^[A-Za-z0-9_-]{1,64}$/.test(stored)) return stored;
  } catch {
    // first start
  }
  const created = `node-${randomUUID().slice(0, 8)}`;
  await writeFile(file, `${created}\n`, { mode: 0o600 });
  return created;
}

export class ClusterNode {
  nodeId = '';
  private connection: NatsConnection | undefined;
  private js: JetStreamClient | undefined;
  private jsm: JetStreamManager | undefined;
  private meta: ClusterMetadata | undefined;
  private readonly replicas = new Map<string, ShardReplica>();
  /** The collections bucket as this node's watcher last saw it (the door's fast path). */
  private readonly records = new Map<string, ClusterCollectionRecord>();
  private readonly tracker = new AppliedTracker();
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private stopWatching: (() => void) | undefined;
  private appliedSubscription: Subscription | undefined;
  private closing = false;
  private trimming = false;
  /** Serialises the reaction to metadata changes (creating and dropping local shards). */
  private changes: Promise<void> = Promise.resolve();

  constructor(
    private readonly app: FastifyInstance,
    private readonly config: Config,
    private readonly logger: Logger,
  ) {}

  get timeoutMs(): number {
    return this.config.cluster.request_timeout_ms;
  }

  get metadata(): ClusterMetadata {
    if (!this.meta) throw errors.engineNotInitialized();
    return this.meta;
  }

  private get nats(): NatsConnection {
    if (!this.connection) throw errors.engineNotInitialized();
    return this.connection;
  }

  /** NATS servers in the cluster the client sees (the stream and bucket replicas are capped by it). */
  get natsClusterSize(): number {
    const urls = this.connection?.info?.connect_urls;
    return Math.max(1, urls?.length ?? this.config.cluster.nats_servers.length);
  }

  /** Connects, opens the buckets (retrying while JetStream elects its leaders) and starts the heartbeat. */
  async open(): Promise<void> {
    this.nodeId = await resolveNodeId(this.config);
    const started = Date.now();
    this.connection = await connect({
      servers: [...this.config.cluster.nats_servers],
      name: `quiverdb-${this.nodeId}`,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
      waitOnFirstConnect: true,
      timeout: 5000,
    });
    this.js = jetstream(this.connection, { timeout: this.timeoutMs });
    this.jsm = await jetstreamManager(this.connection, { checkAPI: false, timeout: this.timeoutMs });
    for (;;) {
      try {
        this.meta = await ClusterMetadata.open(this.connection, { natsServers: this.natsClusterSize, heartbeatSeconds: this.config.cluster.heartbeat_seconds });
        break;
      } catch (error) {
        if (Date.now() - started > startDeadlineMs) throw error;
        this.logger.info({ err: error }, 'cluster: waiting for JetStream');
        await sleep(500);
      }
    }
    await this.beat();
    this.heartbeatTimer = setInterval(() => void this.beat(), this.config.cluster.heartbeat_seconds * 1000);
    this.heartbeatTimer.unref();
    this.appliedSubscription = this.connection.subscribe(appliedSubjectPattern, {
      callback: (error, message) => {
        if (error) return;
        try {
          this.tracker.report(parseJson(message.string()) as AppliedReport);
        } catch {
          // a malformed report is ignored
        }
      },
    });
    this.logger.info({ node_id: this.nodeId, nats: this.config.cluster.nats_servers }, 'cluster: joined');
  }

  private async beat(): Promise<void> {
    // The applied sequence of every ready replica: what log trimming may not pass (docs/cluster.md §7).
    const applied: Record<string, number> = {};
    for (const replica of this.replicas.values()) if (replica.ready) applied[shardKey(replica.record.incarnation, replica.shard)] = replica.appliedSequence;
    try {
      await this.meta?.heartbeat({ node_id: this.nodeId, advertise_url: this.config.cluster.advertise_url, started_at: new Date().toISOString(), applied });
    } catch (error) {
      this.logger.warn({ err: error }, 'cluster: heartbeat failed');
    }
    // One trimming pass at a time: with NATS slow (a server died) passes must not pile up.
    if (this.replicas.size === 0 || !this.jsm || !this.meta || this.closing || this.trimming) return;
    this.trimming = true;
    try {
      await trimLogs(this.nodeId, this.records.values(), this.meta, this.jsm, this.config.cluster.log_retention_operations, this.logger);
    } catch (error) {
      this.logger.warn({ err: error }, 'cluster: trimming the logs failed');
    } finally {
      this.trimming = false;
    }
  }

  /** Starts following the collections bucket; called once the engine serves (local dispatch needs it). */
  async startReplicas(): Promise<void> {
    const known = new Set((await this.metadata.collections()).map((record) => record.incarnation));
    // Shards of collections deleted while this node was away.
    for (const name of this.app.collections.names()) {
      if (!name.startsWith(localShardPrefix)) continue;
      const incarnation = name.slice(localShardPrefix.length).split('_')[0]!;
      if (!known.has(incarnation)) {
        this.logger.info({ collection: name }, 'cluster: dropping the shard of a deleted collection');
        await this.app.collections.delete(name);
      }
    }
    // The current collections first (so this node serves its shards before it reports ready),
    // then every change.
    for (const record of await this.metadata.collections()) {
      this.records.set(record.name, record);
      await this.follow(record);
    }
    this.stopWatching = await this.metadata.watchCollections(async (entry) => {
      const work = async () => {
        if (entry.operation === 'PUT' && entry.length > 0) {
          const record = parseJson(entry.string()) as ClusterCollectionRecord;
          this.records.set(record.name, record);
          await this.follow(record);
        } else {
          const name = Buffer.from(entry.key, 'base64url').toString('utf8');
          this.records.delete(name);
          await this.unfollow(name);
        }
      };
      this.changes = this.changes.then(work).catch((error: unknown) => this.logger.error({ err: error, key: entry.key }, 'cluster: applying a metadata change failed'));
      await this.changes;
    });
  }

  private async follow(record: ClusterCollectionRecord): Promise<void> {
    // A replica dropped from this node (drop_replica, docs/cluster.md §7): stop it, drop its data.
    for (const [key, replica] of [...this.replicas]) {
      if (replica.record.incarnation !== record.incarnation || record.placement[replica.shard]?.includes(this.nodeId)) continue;
      this.logger.info({ shard: replica.localName }, 'cluster: this node no longer holds the shard; dropping its replica');
      await replica.stop();
      this.replicas.delete(key);
      if (this.app.collections.exists(replica.localName)) await this.app.collections.delete(replica.localName);
    }
    for (let shard = 0; shard < record.shard_number; shard += 1) {
      if (!record.placement[shard]?.includes(this.nodeId)) continue;
      const key = `${record.incarnation}.${shard}`;
      if (this.replicas.has(key)) continue;
      const replica = new ShardReplica(
        { app: this.app, connection: this.nats, jetstream: this.js!, manager: this.jsm!, nodeId: this.nodeId, logger: this.logger, timeoutMs: this.timeoutMs, metadata: this.metadata },
        record,
        shard,
      );
      this.replicas.set(key, replica);
      await replica.start();
    }
  }

  private async unfollow(name: string): Promise<void> {
    for (const [key, replica] of [...this.replicas]) {
      if (replica.record.name !== name) continue;
      // A record re-created under the same name has a new incarnation: only drop older ones.
      const current = await this.metadata.collection(name);
      if (current?.incarnation === replica.record.incarnation) continue;
      await replica.stop();
      this.replicas.delete(key);
      this.tracker.forget(replica.record.incarnation);
      if (this.app.collections.exists(replica.localName)) await this.app.collections.delete(replica.localName);
    }
  }

  /**
   * The collection's record: as last watched (no round trip), else read from the bucket (a
   * collection created elsewhere a moment ago). Undefined when it does not exist.
   */
  async collection(name: string): Promise<ClusterCollectionRecord | undefined> {
    return this.records.get(name) ?? (await this.metadata.collection(name));
  }

  /** The door changed the bucket itself: the cache follows at once, not when the watcher does. */
  remember(record: ClusterCollectionRecord): void {
    this.records.set(record.name, record);
  }

  forget(name: string): void {
    this.records.delete(name);
  }

  /** `GET /cluster` (Qdrant's ClusterStatus shape): the live nodes as peers. */
  async status(): Promise<Record<string, unknown>> {
    const peers = Object.fromEntries((await this.metadata.liveNodes()).map((beat) => [beat.node_id, { uri: beat.advertise_url }]));
    return {
      status: 'enabled',
      peer_id: this.nodeId,
      peers,
      raft_info: { term: 0, commit: 0, pending_operations: 0, leader: null, role: null, is_voter: true },
      consensus_thread_status: { consensus_thread_status: 'working', last_update: new Date().toISOString() },
      message_send_failures: {},
    };
  }

  /** `GET C/cluster` (Qdrant's CollectionClusterInfo shape): this node's shards and the others'. */
  collectionStatus(record: ClusterCollectionRecord): Record<string, unknown> {
    const local: Record<string, unknown>[] = [];
    const remote: Record<string, unknown>[] = [];
    record.placement.forEach((nodes, shard) => {
      for (const node of nodes) {
        if (node === this.nodeId) {
          const replica = this.replicas.get(`${record.incarnation}.${shard}`);
          // Qdrant's "Partial" = a replica receiving a shard transfer: here, a copy from a peer (docs/cluster.md §7).
          local.push({ shard_id: shard, points_count: replica?.appliedSequence ?? 0, state: replica && !replica.ready ? 'Partial' : 'Active' });
        }
        else remote.push({ shard_id: shard, peer_id: node, state: 'Active' });
      }
    });
    return { peer_id: this.nodeId, shard_count: record.shard_number, local_shards: local, remote_shards: remote, shard_transfers: [] };
  }

  readerFor(record: ClusterCollectionRecord): NatsShardReader {
    return new NatsShardReader(this.nats, record, this.timeoutMs);
  }

  /** Creates the collection's log stream (replicas = replication capped by the NATS cluster). */
  async createStream(record: ClusterCollectionRecord): Promise<void> {
    const replicas = Math.max(1, Math.min(record.replication_factor, this.natsClusterSize, 5));
    await this.jsm!.streams.add({
      name: streamName(record.incarnation),
      subjects: [operationsSubject(record.incarnation, '*')],
      num_replicas: replicas,
      storage: 'file' as never,
      duplicate_window: 120_000_000_000,
    });
  }

  async deleteStream(record: ClusterCollectionRecord): Promise<void> {
    try {
      await this.jsm!.streams.delete(streamName(record.incarnation));
      for (let shard = 0; shard < record.shard_number; shard += 1) await this.meta?.forgetLogFloor(shardKey(record.incarnation, shard));
    } catch (error) {
      this.logger.warn({ err: error, collection: record.name }, 'cluster: could not delete the write log stream');
    }
  }

  /**
   * Publishes one operation per shard (undefined = the shard is not touched) and resolves once
   * JetStream stored each on a quorum; with `wait`, once write_consistency_factor replicas of
   * each touched shard applied it. Resolves to the highest stream sequence.
   */
  async publish(record: ClusterCollectionRecord, operations: (LoggedOperation | undefined)[], wait: boolean): Promise<number> {
    const requestId = randomUUID();
    const published: { shard: number; sequence: number }[] = [];
    await Promise.all(
      operations.map(async (operation, shard) => {
        if (operation === undefined) return;
        try {
          const ack = await this.js!.publish(operationsSubject(record.incarnation, shard), serializeJson(operation), {
            msgID: `${requestId}.${shard}`,
            timeout: this.timeoutMs,
          });
          published.push({ shard, sequence: ack.seq });
        } catch (error) {
          throw errors.clusterLogUnavailable(record.name, (error as Error).message);
        }
      }),
    );
    if (wait) {
      await Promise.all(
        published.map(({ shard, sequence }) => {
          const needed = Math.min(record.write_consistency_factor, record.placement[shard]!.length);
          return this.tracker.waitFor(record.name, record.incarnation, shard, sequence, needed, this.timeoutMs);
        }),
      );
    }
    return Math.max(0, ...published.map(({ sequence }) => sequence));
  }

  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    this.stopWatching?.();
    this.appliedSubscription?.unsubscribe();
    for (const replica of this.replicas.values()) await replica.stop();
    await this.changes.catch(() => undefined);
    try {
      await this.meta?.removeNode(this.nodeId);
    } catch {
      // the heartbeat expires anyway
    }
    await this.connection?.drain().catch(() => undefined);
  }
}
