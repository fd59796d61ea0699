// Staged writes (write-draft.ts): several operations become one store batch with one operation
// id and one log entry; later operations see earlier ones; a refusal anywhere leaves no trace.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { preparedPoint, TemporaryCollection } from './temporary-collection.js';
import type { DraftOperation } from './write-draft.js';

let temporary: TemporaryCollection;

beforeEach(async () => {
  temporary = await TemporaryCollection.create();
});

afterEach(async () => {
  await temporary.remove();
});

const upsert = (...points: ReturnType<typeof preparedPoint>[]): DraftOperation => ({ kind: 'upsert', points, mode: 'upsert', field: 'upsert.' });

describe('write draft', () => {
  it('draft — a batch of operations is one operation id, one log entry and one store write', async () => {
    const { collection } = temporary;
    const result = await collection.applyOperations(
      [
        upsert(preparedPoint(1, [1, 0]), preparedPoint(2, [0, 1])),
        { kind: 'payload', selector: { kind: 'ids', ids: [1] }, transform: (payload) => ({ ...payload, seen: true }), missing: 'not_found', field: 'set_payload.' },
        { kind: 'delete', selector: { kind: 'ids', ids: [2] }, field: 'delete.' },
      ],
      true,
      true,
    );
    expect(result).toEqual({ operation_id: 1, status: 'completed' });
    expect(await collection.store.loggedOperationIds()).toEqual([1]);
    expect(await collection.store.point(1)).toMatchObject({ version: 1, payloadJson: '{"seen":true}' });
    expect(await collection.store.point(2)).toBeUndefined();
    expect(collection.pointCount).toBe(1);
  });

  it('draft — a refused operation leaves no trace, uses no operation id and gives its slots back', async () => {
    const { collection } = temporary;
    await collection.upsert([preparedPoint(1, [1, 0])], 'upsert', true);
    const refused = collection.applyOperations(
      [upsert(preparedPoint(5, [5, 5]), preparedPoint(6, [6, 6])), { kind: 'update_vectors', points: [{ id: 99, vectors: new Map([['', Float32Array.of(1, 1)]]) }], field: 'update_vectors.' }],
      true,
      true,
    );
    await expect(refused).rejects.toMatchObject({ status: 404, message: expect.stringMatching(/^operations\[1\]: /) });
    expect(collection.lastOperationId).toBe(1);
    expect(await collection.store.loggedOperationIds()).toEqual([1]);
    expect(collection.pointById(5)).toBeUndefined();
    const capacity = collection.slotCapacity;
    await collection.upsert([preparedPoint(7, [7, 7]), preparedPoint(8, [8, 8])], 'upsert', true);
    expect(collection.slotCapacity).toBe(capacity);
  });

  it('draft — a point created and deleted in one batch is not written and frees its slot', async () => {
    const { collection } = temporary;
    await collection.applyOperations([upsert(preparedPoint(3, [1, 1])), { kind: 'delete', selector: { kind: 'ids', ids: [3] }, field: 'delete.' }], true, true);
    expect(await collection.store.point(3)).toBeUndefined();
    expect(collection.pointCount).toBe(0);
    await collection.upsert([preparedPoint(4, [2, 2])], 'upsert', true);
    expect(collection.pointById(4)!.slot).toBe(0);
  });

  it('draft — without the filter module a filter or an update_filter is a 400 naming the field', async () => {
    const { collection } = temporary;
    await collection.upsert([preparedPoint(1, [1, 0])], 'upsert', true);
    const conditional: DraftOperation = { kind: 'upsert', points: [preparedPoint(1, [0, 1])], mode: 'upsert', updateFilter: { must: [] }, field: 'upsert.' };
    await expect(collection.applyOperations([conditional], true, false)).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/^upsert\.update_filter: /),
    });
    expect([...collection.storedVector(collection.pointById(1)!, '')!]).toEqual([1, 0]);
  });
});
