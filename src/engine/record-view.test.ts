import { afterEach, describe, expect, it } from 'vitest';
import { serializeJson } from '../json/serialize.js';
import { payloadSelection } from '../points/selectors.js';
import { preparedPoint, TemporaryCollection } from './temporary-collection.js';

let temporary: TemporaryCollection | undefined;

afterEach(async () => {
  await temporary?.remove();
  temporary = undefined;
});

/** Records as an answer writes them: dense rows stay float32 until serialised (points/float32-row.ts). */
function written(value: unknown): unknown {
  return JSON.parse(serializeJson(value));
}

function namedPoint(id: number, vectors: Record<string, number[]>, payload: Record<string, unknown> = {}) {
  return { ...preparedPoint(id, [], payload), vectors: new Map(Object.entries(vectors).map(([name, values]) => [name, Float32Array.from(values)])) };
}

describe('record view', () => {
  it('records — a single unnamed vector is returned bare, a named selection as an object', async () => {
    temporary = await TemporaryCollection.create();
    const { collection } = temporary;
    await collection.upsert([preparedPoint(1, [1, 2], { a: 1, b: { c: 2 } })], 'upsert', true);
    expect(written(collection.retrieve([1, 404], { kind: 'all' }, { kind: 'all' }))).toEqual([{ id: 1, payload: { a: 1, b: { c: 2 } }, vector: [1, 2] }]);
    expect(collection.retrieve([1], payloadSelection(['b.c'], true), { kind: 'none' })).toEqual([{ id: 1, payload: { b: { c: 2 } } }]);
    expect(written(collection.retrieve([1], { kind: 'none' }, { kind: 'named', names: [''] }))).toEqual([{ id: 1, vector: [1, 2] }]);
  });

  it('records — named vectors come back by name; a point without one of them omits it', async () => {
    temporary = await TemporaryCollection.create({ request: { vectors: { image: { size: 2, distance: 'Dot' }, text: { size: 3, distance: 'Euclid' } } } });
    const { collection } = temporary;
    await collection.upsert([namedPoint(1, { image: [1, 2], text: [1, 2, 3] }), namedPoint(2, { text: [4, 5, 6] })], 'upsert', true);
    const records = collection.toRecords([collection.pointById(2)!, collection.pointById(1)!], { kind: 'none' }, { kind: 'all' });
    expect(written(records)).toEqual([
      { id: 2, vector: { text: [4, 5, 6] } },
      { id: 1, vector: { image: [1, 2], text: [1, 2, 3] } },
    ]);
  });

  it('records — an unknown vector name in with_vector is a 400 naming the known ones', async () => {
    temporary = await TemporaryCollection.create({ request: { vectors: { image: { size: 2, distance: 'Dot' } } } });
    const { collection } = temporary;
    expect(() => collection.checkVectorSelection({ kind: 'named', names: ['missing'] })).toThrow(/missing.*image/);
    expect(() => collection.retrieve([1], { kind: 'none' }, { kind: 'named', names: ['missing'] })).toThrow(/missing/);
  });

  it('stored vector — Cosine vectors are stored normalised, also while the write is in flight', async () => {
    temporary = await TemporaryCollection.create({ request: { vectors: { size: 2, distance: 'Cosine' } } });
    const { collection } = temporary;
    await collection.upsert([preparedPoint(1, [3, 4])], 'upsert', false);
    const inFlight = collection.storedVector(collection.pointById(1)!, '')!;
    expect([...inFlight].map((value) => Number(value.toFixed(5)))).toEqual([0.6, 0.8]);
    await collection.drain();
    const stored = collection.storedVector(collection.pointById(1)!, '')!;
    expect([...stored].map((value) => Number(value.toFixed(5)))).toEqual([0.6, 0.8]);
    expect(collection.storedVector(collection.pointById(1)!, 'unknown')).toBeUndefined();
  });
});
