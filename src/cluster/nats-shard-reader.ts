// The ShardReader of the distributed reads (src/cluster/distributed-read/shard-reader.ts) over
// NATS request/reply: every replica of a shard subscribes to the shard's read subject in one
// queue group, so each request reaches ONE live replica; a shard with no live replica answers
// "no responders" at once, a stuck one times out: both become a 503 naming the shard.
import type { NatsConnection } from '@nats-io/transport-node';
import { errors } from '../errors.js';
import { parseJson } from '../json/parse.js';
import { serializeJson } from '../json/serialize.js';
import type { ShardReader } from './distributed-read/shard-reader.js';
import type { ClusterCollectionRecord } from './records.js';
import { localShardName, readSubject } from './names.js';
import { errorMessageOf, type ShardReadAnswer, type ShardReadRequest } from './shard-replica.js';

export class NatsShardReader implements ShardReader {
  readonly shardCount: number;

  constructor(
    private readonly connection: NatsConnection,
    private readonly record: ClusterCollectionRecord,
    private readonly timeoutMs: number,
  ) {
    this.shardCount = record.shard_number;
  }

  async call<Result>(shard: number, method: 'GET' | 'POST', path: string, body?: unknown): Promise<Result> {
    const request: ShardReadRequest = { method, path, body };
    let text: string;
    try {
      const reply = await this.connection.request(readSubject(this.record.incarnation, shard), serializeJson(request), { timeout: this.timeoutMs });
      text = reply.string();
    } catch (error) {
      const message = (error as Error).message;
      const detail = /no responders/i.test(message) || (error as { code?: string }).code === '503'
        ? 'no live replica'
        : /timeout/i.test(message) ? `no replica answered within ${this.timeoutMs} ms` : message;
      throw errors.shardUnavailable(this.record.name, shard, detail);
    }
    const answer = parseJson(text) as ShardReadAnswer;
    if (answer.status >= 400) {
      // A replica names its local shard collection; the client knows the collection's name.
      const message = errorMessageOf(answer.body).replaceAll(localShardName(this.record.incarnation, shard), this.record.name);
      if (answer.status === 503) throw errors.shardUnavailable(this.record.name, shard, message);
      throw errors.fromReplica(answer.status, message);
    }
    return (parseJson(answer.body) as { result: Result }).result;
  }
}
