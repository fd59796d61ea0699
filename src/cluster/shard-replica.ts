// One replica of one shard on this node (docs/cluster.md §3, §4): a reserved local collection,
// the in-order consumer of the shard's subject that applies each log operation to it, and the
// responder that answers the shard's reads for the cluster.
//
// Idempotence: each operation is applied with its stream sequence in the write's own LevelDB
// batch (src/engine/applied-sequence.ts), so after a crash the replica resumes right after the
// last stored one; an operation that stored nothing (refused, or a config change) may be applied
// again after a crash, which changes nothing. Reads first wait until this replica has applied
// every operation the log held for the shard when the read arrived, so a read never misses a
// write acknowledged before it started.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { JetStreamClient, JetStreamManager, JsMsg } from '@nats-io/jetstream';
import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import { appliedSequenceKey, appliedSequenceNamespace, withAppliedSequence } from '../engine/applied-sequence.js';
import { checkCreate } from '../http/collections.js';
import { parseJson } from '../json/parse.js';
import { serializeJson } from '../json/serialize.js';
import type { AppliedReport } from './applied-tracker.js';
import type { ClusterMetadata } from './metadata.js';
import { copyFromPeer, copyPage, copySessionIdleMs, type CopyAnswer, type CopyRequest } from './shard-copy.js';
import { dispatchLocal, localCollectionUrl } from './local-dispatch.js';
import type { ClusterCollectionRecord } from './records.js';
import { appliedSubject, copySubject, localShardName, operationsSubject, readSubject, shardKey, streamName } from './names.js';

/** One write as it travels in the log: the collection-relative REST call a replica replays. */
export interface LoggedOperation {
  method: string;
  /** Collection-relative path, e.g. `/points` or `/index/city`. */
  path: string;
  /** Query string without `wait` (`?update_mode=insert_only` or empty). */
  query: string;
  body?: unknown;
}

/** A read sent to a shard: the collection-relative REST call (docs/cluster.md §4). */
export interface ShardReadRequest {
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
}

export interface ShardReadAnswer {
  status: number;
  body: string;
}

export interface ReplicaContext {
  app: FastifyInstance;
  connection: NatsConnection;
  jetstream: JetStreamClient;
  manager: JetStreamManager;
  nodeId: string;
  logger: Logger;
  timeoutMs: number;
  metadata: ClusterMetadata;
}

const retryDelayMs = 250;
const watchdogIntervalMs = 1500;
const floorReadWaitMs = 1000;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export class ShardReplica {
  readonly localName: string;
  private applied = 0;
  private stopped = false;
  private readonly appliedWaiters: { sequence: number; resolve(): void }[] = [];
  private readSubscription: Subscription | undefined;
  private stopConsumer: (() => void) | undefined;
  private lastProgress = Date.now();
  private watchdog: NodeJS.Timeout | undefined;
  /** Serving reads and copies: false while the local collection is missing operations the log no longer holds. */
  private serving = false;
  private copySubscription: Subscription | undefined;
  /** A peer copying from this replica: applying waits until it ends (docs/cluster.md §7). */
  private copySession: { id: string; timer: NodeJS.Timeout } | undefined;
  private applying = false;
  /** The highest log floor read for this shard (docs/cluster.md §7), and whether one was read at all. */
  private knownFloor = 1;
  private floorRead = false;

  constructor(
    private readonly context: ReplicaContext,
    readonly record: ClusterCollectionRecord,
    readonly shard: number,
  ) {
    this.localName = localShardName(record.incarnation, shard);
  }

  get appliedSequence(): number {
    return this.applied;
  }

  /** False while this replica is being rebuilt from a peer: it reports nothing, serves nothing. */
  get ready(): boolean {
    return this.serving;
  }

  /** True when the log may have been trimmed past what this replica applied. */
  private async behindLogFloor(): Promise<boolean> {
    // Bounded: while the floors bucket elects a leader (a NATS server died) the consumer must not
    // wait on it. The floor only rises through a KV write that precedes the purge, so once it was
    // read, the last value read is a safe answer until the next read succeeds.
    const read = this.context.metadata.logFloor(shardKey(this.record.incarnation, this.shard)).then((floor) => {
      this.knownFloor = Math.max(this.knownFloor, floor);
      this.floorRead = true;
      return true;
    });
    const answered = await Promise.race([read, sleep(floorReadWaitMs).then(() => false)]).catch(() => false);
    if (!answered && !this.floorRead) throw new Error('the log floor of the shard could not be read yet');
    return this.knownFloor > this.applied + 1;
  }

  private startServing(): void {
    if (this.serving || this.stopped) return;
    this.serving = true;
    this.readSubscription = this.context.connection.subscribe(readSubject(this.record.incarnation, this.shard), {
      queue: 'quiver-replicas',
      callback: (error, message) => {
        if (!error) void this.answerRead(message);
      },
    });
    this.copySubscription = this.context.connection.subscribe(copySubject(this.record.incarnation, this.shard, this.context.nodeId), {
      callback: (error, message) => {
        if (!error) void this.answerCopy(message);
      },
    });
  }

  private stopServing(): void {
    this.serving = false;
    this.readSubscription?.unsubscribe();
    this.copySubscription?.unsubscribe();
    this.readSubscription = undefined;
    this.copySubscription = undefined;
  }

  /** Rebuilds the local shard from a live, ready peer; retries until one succeeds. */
  private async catchUpFromPeer(): Promise<void> {
    const { logger, metadata, nodeId } = this.context;
    this.stopServing();
    await this.engineReady();
    while (!this.stopped) {
      const live = new Set((await metadata.liveNodes().catch(() => [])).map((beat) => beat.node_id));
      // The current record: payload indexes created and replicas placed since this one started.
      const record = (await metadata.collection(this.record.name).catch(() => undefined)) ?? this.record;
      if (record.incarnation !== this.record.incarnation) return;
      const peers = (record.placement[this.shard] ?? []).filter((node) => node !== nodeId && live.has(node));
      for (const peer of peers) {
        try {
          logger.info({ shard: this.localName, peer, applied_sequence: this.applied }, 'cluster: the log was trimmed past this replica; copying the shard from a peer');
          const sequence = await copyFromPeer(this.context.app, this.context.connection, record, this.shard, this.localName, peer, this.context.timeoutMs);
          this.applied = sequence;
          this.lastProgress = Date.now();
          logger.info({ shard: this.localName, peer, applied_sequence: sequence }, 'cluster: shard copied from a peer; consuming the log after its sequence');
          return;
        } catch (error) {
          logger.warn({ err: error, shard: this.localName, peer }, 'cluster: copying the shard from a peer failed');
        }
      }
      await sleep(retryDelayMs * 4);
    }
  }

  /** The peer side of a copy: a session pauses applying, pages are scrolls of the local shard. */
  private async answerCopy(message: Msg): Promise<void> {
    let answer: CopyAnswer;
    try {
      const request = parseJson(message.string()) as CopyRequest;
      if (request.operation === 'begin') {
        if (this.copySession || !this.serving) {
          answer = { error: `replica on node ${this.context.nodeId} cannot serve a copy now` };
        } else {
          const id = randomUUID();
          this.copySession = { id, timer: this.copyTimer() };
          while (this.applying) await sleep(5);
          answer = { session: id, sequence: this.applied };
        }
      } else if (this.copySession?.id !== request.session) {
        answer = { error: 'unknown copy session' };
      } else if (request.operation === 'page') {
        clearTimeout(this.copySession.timer);
        this.copySession.timer = this.copyTimer();
        const maxBytes = this.context.connection.info?.max_payload ?? 1_048_576;
        answer = await copyPage(this.context.app, this.localName, request.offset, request.limit, maxBytes);
      } else {
        clearTimeout(this.copySession.timer);
        this.copySession = undefined;
        answer = { ended: true };
      }
    } catch (error) {
      answer = { error: (error as Error).message };
    }
    message.respond(serializeJson(answer));
  }

  private copyTimer(): NodeJS.Timeout {
    const timer = setTimeout(() => {
      this.copySession = undefined;
    }, copySessionIdleMs);
    timer.unref();
    return timer;
  }

  async start(): Promise<void> {
    const { app } = this.context;
    if (!app.collections.exists(this.localName)) {
      await app.collections.create(this.localName, checkCreate({ ...this.record.request, shard_number: 1 }));
    }
    const stored = await app.collections.get(this.localName).store.extension(appliedSequenceNamespace);
    this.applied = Number(stored.get(appliedSequenceKey) ?? 0);
    this.context.logger.info({ shard: this.localName, applied_sequence: this.applied }, 'cluster: shard replica resumes after its last applied log sequence');
    // Serve at once unless the log no longer holds what this replica misses (then: after the copy).
    if (!(await this.behindLogFloor().catch(() => true))) this.startServing();
    void this.consumeForever();
    this.watchdog = setInterval(() => void this.checkProgress(), watchdogIntervalMs);
    this.watchdog.unref();
  }

  /**
   * A consumer can stall silently when the stream's leader moves (a NATS server killed): when
   * the log holds operations this replica has not applied and nothing was applied for a while,
   * the consumer is closed and recreated from the first unapplied operation.
   */
  private async checkProgress(): Promise<void> {
    if (this.stopped) return;
    try {
      const last = await this.context.manager.streams.getMessage(streamName(this.record.incarnation), {
        last_by_subj: operationsSubject(this.record.incarnation, this.shard),
      });
      if (last !== null && last.seq > this.applied && Date.now() - this.lastProgress > watchdogIntervalMs) {
        this.context.logger.warn({ shard: this.localName, applied: this.applied, last: last.seq }, 'cluster: shard consumer stalled; recreating it');
        this.lastProgress = Date.now();
        this.stopConsumer?.();
      }
    } catch {
      // NATS unreachable right now: the next check tries again
    }
    if (this.serving && (await this.behindLogFloor().catch(() => false))) {
      this.context.logger.warn({ shard: this.localName, applied: this.applied }, 'cluster: the log was trimmed past this replica; restarting its consumer to copy from a peer');
      this.stopConsumer?.();
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.watchdog) clearInterval(this.watchdog);
    this.stopServing();
    if (this.copySession) clearTimeout(this.copySession.timer);
    this.stopConsumer?.();
  }

  /** Consumes the shard's subject from the first unapplied operation; restarts after any failure. */
  private async consumeForever(): Promise<void> {
    const { jetstream, logger } = this.context;
    const subject = operationsSubject(this.record.incarnation, this.shard);
    while (!this.stopped) {
      try {
        if (await this.behindLogFloor()) await this.catchUpFromPeer();
        if (this.stopped) return;
        this.startServing();
        const consumer = await jetstream.consumers.get(streamName(this.record.incarnation), {
          filter_subjects: subject,
          deliver_policy: 'by_start_sequence' as never,
          opt_start_seq: this.applied + 1,
        });
        const messages = await consumer.consume({ max_messages: 256 });
        this.lastProgress = Date.now();
        this.stopConsumer = () => void messages.close();
        if (this.stopped) {
          await messages.close();
          return;
        }
        for await (const message of messages) {
          if (this.stopped) break;
          if (message.seq <= this.applied) continue;
          await this.apply(message);
        }
      } catch (error) {
        if (this.stopped) return;
        logger.warn({ err: error, shard: this.localName }, 'cluster: shard consumer failed; retrying');
      }
      await sleep(retryDelayMs);
    }
  }

  /** The REST routes answer 412 until every start-up step is done: wait for that. */
  private async engineReady(): Promise<void> {
    while (this.context.app.engine.state === 'initializing' && !this.stopped) await sleep(10);
  }

  private async apply(message: JsMsg): Promise<void> {
    await this.engineReady();
    while (this.copySession && !this.stopped) await sleep(10);
    this.applying = true;
    try {
      await this.applyNow(message);
    } finally {
      this.applying = false;
    }
  }

  private async applyNow(message: JsMsg): Promise<void> {
    const operation = parseJson(message.string()) as LoggedOperation;
    const separator = operation.query === '' ? '?' : '&';
    const url = localCollectionUrl(this.localName, operation.path, `${operation.query}${separator}wait=true`);
    for (;;) {
      const answer = await withAppliedSequence(this.localName, message.seq, () => dispatchLocal(this.context.app, operation.method, url, operation.body));
      if (answer.status < 400 || (answer.status < 500 && answer.status !== 412 && answer.status !== 429)) {
        this.markApplied(message.seq, answer);
        return;
      }
      // A 5xx (storage), 412 (not ready) or 429: the operation is not applied; try it again.
      if (this.stopped) return;
      this.context.logger.warn({ shard: this.localName, sequence: message.seq, status: answer.status, body: answer.body.slice(0, 500) }, 'cluster: applying a log operation failed; retrying');
      await sleep(retryDelayMs * 4);
    }
  }

  private markApplied(sequence: number, answer: { status: number; body: string }): void {
    this.applied = sequence;
    this.lastProgress = Date.now();
    const report: AppliedReport = { incarnation: this.record.incarnation, shard: this.shard, node: this.context.nodeId, sequence };
    if (answer.status >= 400) report.refused = { status: answer.status, message: errorMessageOf(answer.body).replaceAll(this.localName, this.record.name) };
    this.context.connection.publish(appliedSubject(this.record.incarnation, this.shard), serializeJson(report));
    for (let index = this.appliedWaiters.length - 1; index >= 0; index -= 1) {
      const waiter = this.appliedWaiters[index]!;
      if (waiter.sequence <= sequence) {
        this.appliedWaiters.splice(index, 1);
        waiter.resolve();
      }
    }
  }

  /** Resolves true once `sequence` is applied, false after the timeout. */
  private waitApplied(sequence: number, timeoutMs: number): Promise<boolean> {
    if (this.applied >= sequence) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter = { sequence, resolve: () => {
        clearTimeout(timer);
        resolve(true);
      } };
      const timer = setTimeout(() => {
        const position = this.appliedWaiters.indexOf(waiter);
        if (position >= 0) this.appliedWaiters.splice(position, 1);
        resolve(false);
      }, timeoutMs);
      this.appliedWaiters.push(waiter);
    });
  }

  private async answerRead(message: Msg): Promise<void> {
    let answer: ShardReadAnswer;
    try {
      const request = parseJson(message.string()) as ShardReadRequest;
      await this.engineReady();
      // Read-after-acknowledge: catch up with what the log held for this shard when the read came.
      const last = await this.context.manager.streams.getMessage(streamName(this.record.incarnation), {
        last_by_subj: operationsSubject(this.record.incarnation, this.shard),
      });
      const caughtUp = last === null || (await this.waitApplied(last.seq, this.context.timeoutMs));
      if (!caughtUp) {
        answer = { status: 503, body: serializeJson({ status: { error: `replica on node ${this.context.nodeId} is still applying the log` } }) };
      } else {
        answer = await dispatchLocal(this.context.app, request.method, localCollectionUrl(this.localName, request.path), request.body);
      }
    } catch (error) {
      answer = { status: 503, body: serializeJson({ status: { error: `replica on node ${this.context.nodeId} failed: ${(error as Error).message}` } }) };
    }
    message.respond(serializeJson(answer));
  }
}

/** The message of either REST error envelope (docs/api.md §1.1). */
export function errorMessageOf(body: string): string {
  try {
    const parsed = parseJson(body) as { status?: { error?: unknown }; message?: unknown };
    if (typeof parsed.status === 'object' && parsed.status !== null && typeof parsed.status.error === 'string') return parsed.status.error;
    if (typeof parsed.message === 'string') return parsed.message;
  } catch {
    // not JSON: the text itself
  }
  return body.slice(0, 1000);
}
