import { describe, expect, it } from 'vitest';
import { fnv1a32, shardOfPointId, splitOperations, splitSelected, splitUpsert } from './shard-routing.js';

describe('shard routing', () => {
  it('routing — FNV-1a 32 matches its published test vectors', () => {
    expect(fnv1a32('')).toBe(0x811c9dc5);
    expect(fnv1a32('a')).toBe(0xe40c292c);
    expect(fnv1a32('foobar')).toBe(0xbf9cf968);
  });

  it('routing — a UUID lands on the same shard in its simple, upper-case and hyphenated forms', () => {
    const hyphenated = '5c56c793-69f3-4fbf-87e6-c4bf54c28c26';
    const shards = [hyphenated, hyphenated.toUpperCase(), hyphenated.replaceAll('-', '')].map((id) => splitSelected({ points: [id] }, 7).findIndex((part) => part !== undefined));
    expect(new Set(shards).size).toBe(1);
    expect(shards[0]).toBe(shardOfPointId(hyphenated, 7));
  });

  it('routing — an upsert is split without losing, duplicating or reordering a point', () => {
    const points = Array.from({ length: 100 }, (_, id) => ({ id, vector: [id, 1], payload: { id } }));
    const parts = splitUpsert({ points }, 3);
    const rejoined = parts.flatMap((part) => (part?.points as typeof points | undefined) ?? []);
    expect(rejoined.map((point) => point.id).sort((left, right) => left - right)).toEqual(points.map((point) => point.id));
    parts.forEach((part, shard) => {
      const ids = (part?.points as typeof points).map((point) => point.id);
      expect(ids).toEqual([...ids].sort((left, right) => left - right));
      for (const id of ids) expect(shardOfPointId(id, 3)).toBe(shard);
    });
  });

  it('routing — the column form keeps each id with its own vector and payload, named vectors included', () => {
    const ids = [1, 2, 3, 4, 5, 6];
    const parts = splitUpsert({ batch: { ids, vectors: { image: ids.map((id) => [id, id]) }, payloads: ids.map((id) => ({ id })) } }, 2);
    for (const part of parts) {
      const batch = part!.batch as { ids: number[]; vectors: { image: number[][] }; payloads: { id: number }[] };
      batch.ids.forEach((id, row) => {
        expect(batch.vectors.image[row]).toEqual([id, id]);
        expect(batch.payloads[row]).toEqual({ id });
      });
    }
  });

  it('routing — a filter-selected write goes whole to every shard', () => {
    const body = { filter: { must: [{ key: 'city', match: { value: 'Oslo' } }] } };
    expect(splitSelected(body, 3)).toEqual([body, body, body]);
  });

  it('routing — a batch keeps each shard its part of every operation, in order', () => {
    const parts = splitOperations({ operations: [{ upsert: { points: [{ id: 1, vector: [1] }, { id: 2, vector: [2] }] } }, { delete: { filter: {} } }, { delete: { points: [1] } }] }, 2);
    const shardOfOne = shardOfPointId(1, 2);
    const operationsOf = (shard: number) => (parts[shard]?.operations as Record<string, unknown>[]).map((operation) => Object.keys(operation)[0]);
    expect(operationsOf(shardOfOne)).toEqual(['upsert', 'delete', 'delete']);
  });
});
