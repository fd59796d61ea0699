import { describe, expect, it } from 'vitest';
import { changedPlacement } from './placement-change.js';

const placement = [['q1', 'q2'], ['q2', 'q3']];
const live = ['q1', 'q2', 'q3', 'q4'];

describe('placement change', () => {
  it('placement change — replicate_shard adds the target to the shard\'s holders and nothing else', () => {
    expect(changedPlacement(placement, { replicate_shard: { shard_id: 0, from_peer_id: 'q2', to_peer_id: 'q4' } }, live)).toEqual([['q1', 'q2', 'q4'], ['q2', 'q3']]);
    expect(placement).toEqual([['q1', 'q2'], ['q2', 'q3']]);
  });

  it('placement change — drop_replica removes the peer but never the last replica', () => {
    expect(changedPlacement(placement, { drop_replica: { shard_id: 1, peer_id: 'q2' } }, live)).toEqual([['q1', 'q2'], ['q3']]);
    expect(() => changedPlacement([['q1']], { drop_replica: { shard_id: 0, peer_id: 'q1' } }, live)).toThrow(/drop_replica.peer_id.*last replica/);
  });

  it('placement change — bad input names the field; other operations are not implemented', () => {
    expect(() => changedPlacement(placement, { replicate_shard: { shard_id: 2, from_peer_id: 'q1', to_peer_id: 'q4' } }, live)).toThrow(/replicate_shard.shard_id/);
    expect(() => changedPlacement(placement, { replicate_shard: { shard_id: -1, from_peer_id: 'q1', to_peer_id: 'q4' } }, live)).toThrow(/replicate_shard.shard_id/);
    expect(() => changedPlacement(placement, { replicate_shard: { shard_id: 0, from_peer_id: 'q3', to_peer_id: 'q4' } }, live)).toThrow(/from_peer_id/);
    expect(() => changedPlacement(placement, { replicate_shard: { shard_id: 0, from_peer_id: 'q1', to_peer_id: 'q9' } }, live)).toThrow(/to_peer_id.*not a live node/);
    expect(() => changedPlacement(placement, { replicate_shard: { shard_id: 0, from_peer_id: 'q1', to_peer_id: '' } }, live)).toThrow(/to_peer_id/);
    expect(() => changedPlacement(placement, {}, live)).toThrow(/exactly one/);
    expect(() => changedPlacement(placement, null, live)).toThrow(/body/);
    expect(() => changedPlacement(placement, { move_shard: { shard_id: 0 } }, live)).toThrow(/move_shard in cluster mode is not implemented/);
  });
});
