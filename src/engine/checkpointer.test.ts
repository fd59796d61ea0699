// Checkpoint rules: the log is trimmed only after every index is durably saved, up to the
// operation the save covers; the checkpoint file records that operation id.
import { existsSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadVectorIndex } from '../native/index.js';
import { checkpointPath } from './checkpointer.js';
import { preparedPoint, TemporaryCollection } from './temporary-collection.js';

let temporary: TemporaryCollection;

beforeEach(async () => {
  temporary = await TemporaryCollection.create({ request: { vectors: { first: { size: 2, distance: 'Euclid' }, second: { size: 3, distance: 'Cosine' } } } });
});

afterEach(async () => {
  await temporary.remove();
});

function point(id: number) {
  return { ...preparedPoint(id, [id, 1]), vectors: new Map([['first', Float32Array.of(id, 1)], ['second', Float32Array.of(1, id, 0)]]) };
}

async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  const started = performance.now();
  while (!(await condition())) {
    if (performance.now() - started > 10_000) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('checkpointer', () => {
  it('checkpoint — every index is saved tagged with the last operation id, then the log is trimmed up to it', async () => {
    const { collection } = temporary;
    await collection.upsert([point(1)], 'upsert', true);
    await collection.upsert([point(2)], 'upsert', true);
    expect(await collection.store.loggedOperationIds()).toEqual([1, 2]);
    expect(await collection.checkpoint('test')).toBe(true);
    expect(collection.checkpointedOperationId).toBe(2);
    expect(await collection.store.loggedOperationIds()).toEqual([]);
    for (const name of ['first', 'second']) {
      const loaded = await loadVectorIndex(checkpointPath(collection.directory, name));
      expect(loaded.lastOperationId).toBe(2);
      expect(loaded.index.stats().count).toBe(2);
      loaded.index.close();
    }
  });

  it('checkpoint — a save that fails leaves the log and the checkpointed id untouched', async () => {
    const { collection } = temporary;
    await collection.upsert([point(1)], 'upsert', true);
    // The collection directory replaced by a file: no checkpoint can be written there.
    await rm(collection.directory, { recursive: true, force: true });
    await writeFile(collection.directory, 'not a directory');
    await expect(collection.checkpoint('test')).rejects.toThrow();
    expect(collection.checkpointedOperationId).toBe(0);
    expect(await collection.store.loggedOperationIds()).toEqual([1]);
    await rm(collection.directory, { force: true });
  });

  it('checkpoint — nothing written since the last one: nothing is saved', async () => {
    const { collection } = temporary;
    await collection.upsert([point(1)], 'upsert', true);
    await collection.waitIndexed();
    expect(await collection.checkpoint('first')).toBe(true);
    expect(await collection.checkpoint('second')).toBe(false);
  });

  it('checkpoint — later writes are logged again and covered by the next checkpoint only', async () => {
    const { collection } = temporary;
    await collection.upsert([point(1)], 'upsert', true);
    await collection.checkpoint('first');
    await collection.upsert([point(2)], 'upsert', true);
    await collection.deletePoints({ kind: 'ids', ids: [1] }, true);
    expect(await collection.store.loggedOperationIds()).toEqual([2, 3]);
    await collection.checkpoint('second');
    expect(collection.checkpointedOperationId).toBe(3);
    expect(await collection.store.loggedOperationIds()).toEqual([]);
  });

  it('checkpoint — one is taken on its own once checkpoint_operations writes have accumulated', async () => {
    await temporary.remove();
    temporary = await TemporaryCollection.create({ settings: { checkpointOperations: 3 } });
    const { collection } = temporary;
    for (let id = 1; id <= 2; id += 1) await collection.upsert([preparedPoint(id, [id, 0])], 'upsert', true);
    await collection.drain();
    expect(collection.checkpointedOperationId).toBe(0);
    await collection.upsert([preparedPoint(3, [3, 0])], 'upsert', true);
    await until(() => collection.checkpointedOperationId === 3);
    await until(async () => (await collection.store.loggedOperationIds()).length === 0);
    expect(existsSync(checkpointPath(collection.directory, ''))).toBe(true);
  });

  it('checkpoint — none is taken once the collection is marked for deletion', async () => {
    const { collection } = temporary;
    await collection.upsert([point(1)], 'upsert', true);
    collection.markForDeletion();
    expect(await collection.checkpoint('test')).toBe(false);
    expect(existsSync(checkpointPath(collection.directory, 'first'))).toBe(false);
  });
});
