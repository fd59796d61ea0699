// The write rule: every write is one atomic batch of the store (its records, its log entry and
// the new last operation id); a refused write leaves no trace; acknowledged means in the store.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { jsonShaped } from '../json/json-shaped.js';
import { preparedPoint, TemporaryCollection } from './temporary-collection.js';

let temporary: TemporaryCollection;

beforeEach(async () => {
  temporary = await TemporaryCollection.create();
});

afterEach(async () => {
  await temporary.remove();
});

async function storedIds(): Promise<unknown[]> {
  const ids: unknown[] = [];
  for await (const chunk of temporary.collection.store.points()) for (const point of chunk) ids.push(point.id);
  return ids.sort();
}

describe('write path', () => {
  it('write — an acknowledged write (wait=false) is already in the store: records, log entry and last operation id', async () => {
    const { collection } = temporary;
    const result = await collection.upsert([preparedPoint(1, [1, 0], { color: 'red' }), preparedPoint(2, [0, 1])], 'upsert', false);
    expect(result).toEqual({ operation_id: 1, status: 'acknowledged' });
    // Read the store before the kernel update can have been awaited by anyone.
    expect(await collection.store.lastOperationId()).toBe(1);
    expect(await collection.store.loggedOperationIds()).toEqual([1]);
    expect(await storedIds()).toEqual([1, 2]);
    expect(await collection.store.point(1)).toMatchObject({ version: 1, payloadJson: '{"color":"red"}' });
    const records = await collection.store.vectorRecords([collection.pointById(1)!.slot, collection.pointById(2)!.slot], '');
    expect(records.every((record) => record !== undefined)).toBe(true);
    await collection.drain();
  });

  it('write — each write is one operation: ids are consecutive and each is logged once', async () => {
    const { collection } = temporary;
    await collection.upsert([preparedPoint(1, [1, 0])], 'upsert', true);
    await collection.updatePayloads({ kind: 'ids', ids: [1] }, () => ({ seen: true }), { wait: true, missing: 'skip' });
    await collection.updateVectors([{ id: 1, vectors: new Map([['', Float32Array.of(3, 4)]]) }], true);
    const deleted = await collection.deletePoints({ kind: 'ids', ids: [1] }, true);
    expect(deleted).toEqual({ operation_id: 4, status: 'completed' });
    expect(await collection.store.loggedOperationIds()).toEqual([1, 2, 3, 4]);
    expect(await collection.store.slotsTouchedAfter(0)).toEqual(new Map([[0, 4]]));
    expect(collection.lastOperationId).toBe(4);
  });

  it('write — a refused write (unknown id) leaves no trace and uses no operation id', async () => {
    const { collection } = temporary;
    await collection.upsert([preparedPoint(1, [1, 0])], 'upsert', true);
    await expect(collection.updateVectors([{ id: 1, vectors: new Map([['', Float32Array.of(5, 5)]]) }, { id: 99, vectors: new Map([['', Float32Array.of(1, 1)]]) }], true)).rejects.toMatchObject({ status: 404 });
    expect(collection.lastOperationId).toBe(1);
    expect(await collection.store.lastOperationId()).toBe(1);
    expect(await collection.store.loggedOperationIds()).toEqual([1]);
    expect([...collection.storedVector(collection.pointById(1)!, '')!]).toEqual([1, 0]);
    const next = await collection.upsert([preparedPoint(2, [0, 1])], 'upsert', true);
    expect(next.operation_id).toBe(2);
  });

  it('write — a payload over the size limit is refused before anything is written', async () => {
    await temporary.remove();
    temporary = await TemporaryCollection.create({ settings: { maxPayloadBytes: 16 } });
    const { collection } = temporary;
    await collection.upsert([preparedPoint(1, [1, 0], { a: 1 })], 'upsert', true);
    await expect(collection.updatePayloads({ kind: 'ids', ids: [1] }, () => ({ text: 'much longer than sixteen bytes' }), { wait: true, missing: 'skip' })).rejects.toMatchObject({ status: 400 });
    expect(collection.pointById(1)!.payload).toEqual({ a: 1 });
    expect(await collection.store.point(1)).toMatchObject({ payloadJson: '{"a":1}' });
    expect(await collection.store.loggedOperationIds()).toEqual([1]);
  });

  it('write — a store that refuses the batch fails the write and changes nothing in memory', async () => {
    const { collection } = temporary;
    await collection.upsert([preparedPoint(1, [1, 0])], 'upsert', true);
    await temporary.database.close();
    await expect(collection.upsert([preparedPoint(2, [0, 1])], 'upsert', true)).rejects.toMatchObject({ status: 500 });
    expect(collection.pointById(2)).toBeUndefined();
    expect(collection.pointCount).toBe(1);
    expect(collection.lastOperationId).toBe(1);
    await temporary.database.open();
  });

  it('write — a filter selector without filter hooks is a 400, never "nothing selected"', async () => {
    const { collection } = temporary;
    await collection.upsert([preparedPoint(1, [1, 0])], 'upsert', true);
    await expect(collection.deletePoints({ kind: 'filter', filter: { must: [] } }, true)).rejects.toMatchObject({ status: 400 });
    expect(collection.pointCount).toBe(1);
    expect(await collection.store.loggedOperationIds()).toEqual([1]);
  });

  it('write — the hooks select the points of a filter and hear every payload change in order', async () => {
    await temporary.remove();
    const changes: string[] = [];
    temporary = await TemporaryCollection.create({
      hooks: (owner) => ({
        selectByFilter: () => [...owner.livePoints()].filter((entry) => entry.payload.drop === true),
        payloadChanged: ({ id, before, after }) => changes.push(`${String(id)}:${JSON.stringify(before)}->${JSON.stringify(after)}`),
        payloadSchema: () => ({ drop: { data_type: 'bool' } }),
        loaded: async () => undefined,
      }),
    });
    const { collection } = temporary;
    await collection.upsert([preparedPoint(1, [1, 0], { drop: true }), preparedPoint(2, [0, 1], { drop: false })], 'upsert', true);
    await collection.deletePoints({ kind: 'filter', filter: {} }, true);
    expect(collection.pointById(1)).toBeUndefined();
    expect(collection.pointById(2)).toBeDefined();
    expect(changes).toEqual(['1:undefined->{"drop":true}', '2:undefined->{"drop":false}', '1:{"drop":true}->undefined']);
    expect(collection.info().payload_schema).toEqual({ drop: { data_type: 'bool' } });
  });

  it('upsert — insert_only keeps an existing point, update_only skips a missing one', async () => {
    const { collection } = temporary;
    await collection.upsert([preparedPoint(1, [1, 0], { v: 1 })], 'upsert', true);
    await collection.upsert([preparedPoint(1, [9, 9], { v: 2 }), preparedPoint(2, [0, 1], { v: 2 })], 'insert_only', true);
    await collection.upsert([preparedPoint(3, [5, 5], { v: 3 })], 'update_only', true);
    expect(collection.pointById(1)!.payload).toEqual({ v: 1 });
    expect(collection.pointById(2)!.payload).toEqual({ v: 2 });
    expect(collection.pointById(3)).toBeUndefined();
    expect(await storedIds()).toEqual([1, 2]);
  });

  it('records — an acknowledged write shows its new vector and payload together before the kernel has it', async () => {
    const { collection } = temporary;
    await collection.upsert([preparedPoint(1, [1, 0], { v: 1 })], 'upsert', true);
    await collection.upsert([preparedPoint(1, [0, 2], { v: 2 })], 'upsert', false);
    const [record] = collection.retrieve([1], { kind: 'all' }, { kind: 'all' });
    // Rows are float32 until written out: compared as JSON gives them (json-shaped.ts).
    expect(jsonShaped(record)).toEqual({ id: 1, payload: { v: 2 }, vector: [0, 2] });
    await collection.drain();
    expect(jsonShaped(collection.retrieve([1], { kind: 'all' }, { kind: 'all' }))).toEqual([{ id: 1, payload: { v: 2 }, vector: [0, 2] }]);
  });
});
