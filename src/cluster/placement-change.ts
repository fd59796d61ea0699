// `POST C/cluster` in cluster mode (docs/cluster.md §7, docs/api.md §17): Qdrant's
// `replicate_shard` and `drop_replica` change a shard's placement in the collection's record.
// The node given a replica starts it when it sees the record change, and it catches up like any
// returning replica: from the log, or from a peer's copy when the log was trimmed. The node that
// loses one stops it and drops its local shard collection. Peer ids are node ids (`GET /cluster`).
import { errors } from '../errors.js';


function integerField(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw errors.invalidField(field, 'must be a non-negative integer');
  return value;
}

function peerField(value: unknown, field: string): string {
  // Qdrant's peer ids are integers; ours are node ids (strings). Either spelling is accepted.
  if (typeof value === 'number' && Number.isInteger(value)) return String(value);
  if (typeof value !== 'string' || value.length === 0 || value.length > 64) throw errors.invalidField(field, 'must be a node id as GET /cluster shows it');
  return value;
}

/** The new placement, or a 400 naming the field; a 501 for the other cluster operations. */
export function changedPlacement(placement: string[][], body: unknown, liveNodes: string[]): string[][] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw errors.invalidField('body', 'must be an object with one cluster operation');
  const keys = Object.keys(body);
  if (keys.length !== 1) throw errors.invalidField('body', 'must hold exactly one cluster operation');
  const operation = keys[0]!;
  const detail = (body as Record<string, unknown>)[operation];
  if (operation !== 'replicate_shard' && operation !== 'drop_replica') throw errors.notImplemented(`POST /collections/{collection_name}/cluster ${operation} in cluster mode`);
  if (typeof detail !== 'object' || detail === null) throw errors.invalidField(operation, 'must be an object');
  const fields = detail as Record<string, unknown>;
  const shard = integerField(fields.shard_id, `${operation}.shard_id`);
  if (shard >= placement.length) throw errors.invalidField(`${operation}.shard_id`, `the collection has ${placement.length} shards`);
  const holders = placement[shard]!;
  const next = placement.map((nodes) => [...nodes]);
  if (operation === 'replicate_shard') {
    const from = peerField(fields.from_peer_id, 'replicate_shard.from_peer_id');
    const to = peerField(fields.to_peer_id, 'replicate_shard.to_peer_id');
    if (!holders.includes(from)) throw errors.invalidField('replicate_shard.from_peer_id', `node ${from} holds no replica of shard ${shard}`);
    if (holders.includes(to)) throw errors.invalidField('replicate_shard.to_peer_id', `node ${to} already holds a replica of shard ${shard}`);
    if (!liveNodes.includes(to)) throw errors.invalidField('replicate_shard.to_peer_id', `node ${to} is not a live node`);
    next[shard]!.push(to);
    return next;
  }
  const peer = peerField(fields.peer_id, 'drop_replica.peer_id');
  if (!holders.includes(peer)) throw errors.invalidField('drop_replica.peer_id', `node ${peer} holds no replica of shard ${shard}`);
  if (holders.length === 1) throw errors.invalidField('drop_replica.peer_id', `node ${peer} holds the last replica of shard ${shard}`);
  next[shard] = holders.filter((node) => node !== peer);
  return next;
}
