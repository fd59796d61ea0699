import { describe, expect, it } from 'vitest';
import { placeShards, shardSettings } from './placement.js';

describe('placement', () => {
  it('placement — one live node: one shard, one replica', () => {
    expect(shardSettings({}, 1)).toEqual({ shard_number: 1, replication_factor: 1, write_consistency_factor: 1 });
    expect(placeShards(['a'], shardSettings({}, 1))).toEqual([['a']]);
  });

  it('placement — three live nodes: three shards, two replicas each, every node holding two', () => {
    const settings = shardSettings({}, 3);
    expect(settings).toEqual({ shard_number: 3, replication_factor: 2, write_consistency_factor: 1 });
    const placement = placeShards(['c', 'a', 'b'], settings);
    expect(placement).toEqual([['a', 'b'], ['b', 'c'], ['c', 'a']]);
    for (const node of ['a', 'b', 'c']) expect(placement.filter((replicas) => replicas.includes(node)).length).toBe(2);
  });

  it('placement — a replication factor above the node count places each node once per shard', () => {
    expect(placeShards(['a', 'b'], shardSettings({ shard_number: 2, replication_factor: 3 }, 2))).toEqual([['a', 'b'], ['b', 'a']]);
  });

  it('placement — write_consistency_factor above replication_factor and too many shards are 400s naming the field', () => {
    expect(() => shardSettings({ replication_factor: 1, write_consistency_factor: 2 }, 3)).toThrow(/write_consistency_factor/);
    expect(() => shardSettings({ shard_number: 1000 }, 3)).toThrow(/shard_number/);
  });
});
