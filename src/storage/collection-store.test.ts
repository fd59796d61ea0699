import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CollectionStore } from './collection-store.js';
import { openDatabase, type Database } from './database.js';
import { collectionDataRange } from './keys.js';
import { decodeVectorRecordInto } from './point-records.js';

let directory: string;
let database: Database;

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'quiver-store-'));
  database = await openDatabase({ directory });
});

afterEach(async () => {
  await database.close();
  await rm(directory, { recursive: true, force: true });
});

async function allPoints(store: CollectionStore) {
  const points = [];
  for await (const chunk of store.points()) points.push(...chunk);
  return points;
}

function vectorOf(record: Uint8Array | undefined, dimension: number): number[] | undefined {
  if (record === undefined) return undefined;
  const target = new Float32Array(dimension);
  decodeVectorRecordInto(record, target, 0);
  return [...target];
}

describe('collection store', () => {
  it('commit — the batch, its log entry and the last operation id land together', async () => {
    const store = new CollectionStore(database, 7, { fsync: false });
    const batch = store.newBatch();
    batch.putPoint(1, { slot: 0, version: 1, payloadJson: '{"a":1}' });
    batch.putPoint('c0ffee00-0000-4000-8000-000000000000', { slot: 1, version: 1, payloadJson: '{}' });
    batch.putVector(0, '', Float32Array.of(1, 2));
    await store.commit(batch, 1, { kind: 'upsert', slots: [0, 1] });

    expect(await store.lastOperationId()).toBe(1);
    expect(await store.loggedOperationIds()).toEqual([1]);
    expect(await store.slotsTouchedAfter(0)).toEqual(new Map([[0, 1], [1, 1]]));
    const points = await allPoints(store);
    expect(points.map((point) => point.id).sort()).toEqual([1, 'c0ffee00-0000-4000-8000-000000000000'].sort());
    expect(await store.point(1)).toEqual({ slot: 0, version: 1, payloadJson: '{"a":1}' });
    const [stored, absent] = await store.vectorRecords([0, 1], '');
    expect(vectorOf(stored, 2)).toEqual([1, 2]);
    expect(absent).toBeUndefined();
  });

  it('commit — a refused batch leaves nothing behind, not even its log entry', async () => {
    const store = new CollectionStore(database, 1, { fsync: false });
    const batch = store.newBatch();
    batch.putPoint(5, { slot: 0, version: 1, payloadJson: '{}' });
    await database.close();
    await expect(store.commit(batch, 1, { kind: 'upsert', slots: [0] })).rejects.toThrow();
    database = await openDatabase({ directory });
    const reopened = new CollectionStore(database, 1, { fsync: false });
    expect(await reopened.lastOperationId()).toBe(0);
    expect(await reopened.loggedOperationIds()).toEqual([]);
    expect(await allPoints(reopened)).toEqual([]);
  });

  it('deletes — a point and its vectors are removed by the next commit', async () => {
    const store = new CollectionStore(database, 1, { fsync: false });
    const first = store.newBatch();
    first.putPoint(3, { slot: 2, version: 1, payloadJson: '{}' });
    first.putVector(2, 'text', Float32Array.of(0.5));
    await store.commit(first, 1, { kind: 'upsert', slots: [2] });
    const second = store.newBatch();
    second.deletePoint(3);
    second.deleteVector(2, 'text');
    await store.commit(second, 2, { kind: 'delete', slots: [2] });
    expect(await allPoints(store)).toEqual([]);
    expect(await store.vectorRecords([2], 'text')).toEqual([undefined]);
    expect(await store.lastOperationId()).toBe(2);
  });

  it('vectors — only the records of the asked vector name are listed', async () => {
    const store = new CollectionStore(database, 1, { fsync: false });
    const batch = store.newBatch();
    batch.putVector(0, 'a', Float32Array.of(1));
    batch.putVector(0, 'b', Float32Array.of(2));
    batch.putVector(4, 'a', Float32Array.of(3));
    await store.commit(batch, 1, { kind: 'upsert', slots: [0, 4] });
    const listed: [number, number[] | undefined][] = [];
    for await (const chunk of store.vectors('a')) for (const { slot, record } of chunk) listed.push([slot, vectorOf(record, 1)]);
    expect(listed).toEqual([
      [0, [1]],
      [4, [3]],
    ]);
  });

  it('log — trimming removes entries up to the given id and keeps the later ones', async () => {
    const store = new CollectionStore(database, 1, { fsync: false });
    for (let operationId = 1; operationId <= 4; operationId += 1) await store.commit(store.newBatch(), operationId, { kind: 'payload', slots: [operationId] });
    await store.trimLog(2);
    expect(await store.loggedOperationIds()).toEqual([3, 4]);
    expect(await store.slotsTouchedAfter(3)).toEqual(new Map([[4, 4]]));
    expect(await store.lastOperationId()).toBe(4);
  });

  it('extensions — put and delete round-trip JSON values, big integers included', async () => {
    const store = new CollectionStore(database, 1, { fsync: false });
    const batch = store.newBatch();
    batch.putExtension('payload_index', 'city', { type: 'keyword', big: 12345678901234567890n });
    batch.putExtension('payload_index', 'size', { type: 'integer' });
    batch.putExtension('other', 'city', 1);
    await store.commit(batch, 1, { kind: 'payload', slots: [] });
    const removal = store.newBatch();
    removal.deleteExtension('payload_index', 'size');
    await store.commit(removal, 2, { kind: 'payload', slots: [] });
    expect(await store.extension('payload_index')).toEqual(new Map([['city', { type: 'keyword', big: 12345678901234567890n }]]));
  });

  it('collections — two collections in one database never see each other', async () => {
    const first = new CollectionStore(database, 1, { fsync: false });
    const second = new CollectionStore(database, 2, { fsync: false });
    const batch = first.newBatch();
    batch.putPoint(1, { slot: 0, version: 1, payloadJson: '{}' });
    await first.commit(batch, 1, { kind: 'upsert', slots: [0] });
    expect(await allPoints(second)).toEqual([]);
    expect(await second.lastOperationId()).toBe(0);
    await database.clear(collectionDataRange(1));
    expect(await allPoints(first)).toEqual([]);
  });
});
