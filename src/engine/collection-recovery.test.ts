// Replay and recovery rules: at start each index comes from its checkpoint plus the slots the
// log says changed after it (re-applied from the stored state, so replay is idempotent); an
// index with no usable checkpoint is rebuilt from the stored vectors — time lost, never data.
import { rm, writeFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkpointPath } from './checkpointer.js';
import { preparedPoint, TemporaryCollection } from './temporary-collection.js';

let temporary: TemporaryCollection;

beforeEach(async () => {
  temporary = await TemporaryCollection.create();
});

afterEach(async () => {
  await temporary.remove();
});

/** Every live point as id -> [payload, stored vector], for comparing states. */
function snapshot(): Record<string, unknown> {
  const { collection } = temporary;
  const state: Record<string, unknown> = {};
  for (const entry of collection.livePoints()) {
    const vector = collection.storedVector(entry, '');
    state[String(entry.id)] = [entry.payload, vector ? [...vector] : null];
  }
  return state;
}

async function nearestIds(query: number[]): Promise<unknown[]> {
  const found = await temporary.collection.nearest('', Float32Array.from(query), 10, { exact: true });
  return found.points.map((entry) => entry.id);
}

async function writeHistory(): Promise<void> {
  const { collection } = temporary;
  await collection.upsert([preparedPoint(1, [1, 0], { n: 1 }), preparedPoint(2, [2, 0], { n: 2 }), preparedPoint(3, [3, 0], { n: 3 })], 'upsert', true);
  await collection.checkpoint('test');
  await collection.updateVectors([{ id: 1, vectors: new Map([['', Float32Array.of(10, 10)]]) }], true);
  await collection.deletePoints({ kind: 'ids', ids: [2] }, true);
  // Reuses the slot point 2 had: replay must give that slot point 4's vector, not none.
  await collection.upsert([preparedPoint(4, [4, 4], { n: 4 })], 'upsert', true);
  await collection.updatePayloads({ kind: 'ids', ids: [3] }, () => ({ n: 33 }), { wait: true, missing: 'skip' });
}

describe('collection recovery', () => {
  it('replay — operations after the checkpoint are re-applied: vector updates, deletes, slot reuse, payloads', async () => {
    await writeHistory();
    const before = snapshot();
    const nearestBefore = await nearestIds([4, 4]);
    expect(temporary.collection.pointById(4)!.slot).toBe(1);
    const report = await temporary.restart({ checkpoint: false });
    expect(report.lastOperationId).toBe(5);
    expect(report.points).toBe(3);
    expect(report.indexes['']).toMatchObject({ source: 'checkpoint', checkpointOperationId: 1, replayedSlots: 2 });
    expect(snapshot()).toEqual(before);
    expect(await nearestIds([4, 4])).toEqual(nearestBefore);
    expect(temporary.collection.lastOperationId).toBe(5);
    expect(temporary.collection.checkpointedOperationId).toBe(1);
  });

  it('replay — replaying the same log again (a crash before the next checkpoint) gives the same state', async () => {
    await writeHistory();
    const before = snapshot();
    await temporary.restart({ checkpoint: false });
    const report = await temporary.restart({ checkpoint: false });
    expect(report.indexes['']).toMatchObject({ source: 'checkpoint', checkpointOperationId: 1 });
    expect(snapshot()).toEqual(before);
  });

  it('replay — an operation already covered by the checkpoint is not applied twice', async () => {
    const { collection } = temporary;
    await collection.upsert([preparedPoint(1, [1, 0])], 'upsert', true);
    await collection.drain();
    // A crash between saving a checkpoint and trimming the log: entry 1 is both saved and logged.
    await collection.indexes.get('')!.save(checkpointPath(collection.directory, ''), 1);
    await collection.upsert([preparedPoint(2, [2, 0])], 'upsert', true);
    expect(await collection.store.loggedOperationIds()).toEqual([1, 2]);
    const report = await temporary.restart({ checkpoint: false });
    expect(report.indexes['']).toMatchObject({ source: 'checkpoint', checkpointOperationId: 1, replayedSlots: 1 });
    expect(snapshot()).toEqual({ '1': [{}, [1, 0]], '2': [{}, [2, 0]] });
  });

  it('recovery — a clean shutdown checkpoints: the next start replays nothing', async () => {
    await writeHistory();
    const before = snapshot();
    const report = await temporary.restart({ checkpoint: true });
    expect(report.indexes['']).toMatchObject({ source: 'checkpoint', checkpointOperationId: 5, replayedSlots: 0 });
    expect(await temporary.collection.store.loggedOperationIds()).toEqual([]);
    expect(snapshot()).toEqual(before);
  });

  it('recovery — a missing checkpoint rebuilds the index from the stored vectors', async () => {
    await writeHistory();
    const before = snapshot();
    await temporary.collection.close({ checkpoint: true });
    await rm(checkpointPath(temporary.collection.directory, ''));
    const report = await temporary.restart({ checkpoint: false });
    expect(report.indexes['']).toMatchObject({ source: 'rebuilt', checkpointOperationId: 0 });
    expect(snapshot()).toEqual(before);
    // A rebuilt index is in memory only: nothing is covered until the next checkpoint.
    expect(temporary.collection.checkpointedOperationId).toBe(0);
  });

  it('recovery — a corrupt checkpoint rebuilds the index from the stored vectors', async () => {
    await writeHistory();
    const before = snapshot();
    await temporary.collection.close({ checkpoint: true });
    await writeFile(checkpointPath(temporary.collection.directory, ''), Buffer.from('definitely not a checkpoint'));
    const report = await temporary.restart({ checkpoint: false });
    expect(report.indexes['']).toMatchObject({ source: 'rebuilt' });
    expect(snapshot()).toEqual(before);
    expect(await nearestIds([4, 4])).toEqual([4, 3, 1]);
  });

  it('recovery — a checkpoint covering more than the store holds is not trusted', async () => {
    const { collection } = temporary;
    await collection.upsert([preparedPoint(1, [1, 0])], 'upsert', true);
    await collection.drain();
    await collection.indexes.get('')!.save(checkpointPath(collection.directory, ''), 99);
    const report = await temporary.restart({ checkpoint: false });
    expect(report.indexes['']).toMatchObject({ source: 'rebuilt' });
    expect(report.indexes['']!.reason).toMatch(/99/);
    expect(snapshot()).toEqual({ '1': [{}, [1, 0]] });
  });

  it('recovery — acknowledged writes (wait=false) without any checkpoint survive a crash', async () => {
    const { collection } = temporary;
    for (let id = 1; id <= 20; id += 1) await collection.upsert([preparedPoint(id, [id, -id], { id })], 'upsert', false);
    const report = await temporary.restart({ checkpoint: false });
    expect(report.points).toBe(20);
    expect(report.lastOperationId).toBe(20);
    expect(temporary.collection.pointById(20)!.payload).toEqual({ id: 20 });
    expect([...temporary.collection.storedVector(temporary.collection.pointById(20)!, '')!]).toEqual([20, -20]);
  });

  it('recovery — operation ids continue after a restart and freed slots are reused', async () => {
    const { collection } = temporary;
    await collection.upsert([preparedPoint(1, [1, 0]), preparedPoint(2, [2, 0]), preparedPoint(3, [3, 0])], 'upsert', true);
    await collection.deletePoints({ kind: 'ids', ids: [2] }, true);
    await temporary.restart({ checkpoint: false });
    const result = await temporary.collection.upsert([preparedPoint(5, [5, 0])], 'upsert', true);
    expect(result.operation_id).toBe(3);
    expect(temporary.collection.pointById(5)!.slot).toBe(1);
    expect(temporary.collection.slotCapacity).toBe(3);
  });
});
