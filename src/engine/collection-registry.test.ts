// Registry rules: a deletion a crash interrupted is finished at the next open, before anything
// can see the collection; every collection is built with the registry's hooks and they are
// told once its points are in memory.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../config.js';
import { encodeJsonRecord } from '../storage/codec.js';
import { openDatabase, type Database } from '../storage/database.js';
import { collectionDataRange, collectionRecordKey } from '../storage/keys.js';
import { checkpointPath } from './collection.js';
import { withoutFilterHooks, type CollectionHooks } from './collection-hooks.js';
import { CollectionRegistry } from './collection-registry.js';
import type { LifecycleStep } from './engine.js';
import { preparedPoint } from './temporary-collection.js';

let directory: string;
let config: Config;
let database: Database;
const logger = pino({ level: 'silent' });
const loadedCollections: string[] = [];

function hooks(name: string): CollectionHooks {
  return { ...withoutFilterHooks, loaded: async () => void loadedCollections.push(name) };
}

async function openRegistry(): Promise<{ registry: CollectionRegistry; step: LifecycleStep }> {
  database = await openDatabase({ directory });
  const registry = new CollectionRegistry({ config, logger, hooks: (collection) => hooks(collection.name) });
  const step = registry.lifecycleStep();
  await step.open(database);
  return { registry, step };
}

async function closeRegistry(step: LifecycleStep): Promise<void> {
  await step.close?.();
  await database.close();
}

async function keysOfCollection(collectionNumber: number): Promise<number> {
  let count = 0;
  for await (const _key of database.keys(collectionDataRange(collectionNumber))) count += 1;
  return count;
}

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'quiver-registry-'));
  config = loadConfig({ overrides: { storage: { path: directory, fsync: false } } });
  loadedCollections.length = 0;
});

afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

describe('collection registry', () => {
  it('deletion — a deletion interrupted by a crash is finished at the next open', async () => {
    const first = await openRegistry();
    await first.registry.create('doomed', { vectors: { size: 2, distance: 'Euclid' } });
    await first.registry.create('kept', { vectors: { size: 2, distance: 'Euclid' } });
    const doomed = first.registry.get('doomed');
    await doomed.upsert([preparedPoint(1, [1, 2])], 'upsert', true);
    await first.registry.get('kept').upsert([preparedPoint(1, [3, 4])], 'upsert', true);
    const doomedNumber = doomed.number;
    const doomedDirectory = doomed.directory;
    await closeRegistry(first.step);

    // The crash: the record says "deleting", but the data and the files are still there.
    database = await openDatabase({ directory });
    await database.put(collectionRecordKey(doomedNumber), encodeJsonRecord(1, { name: 'doomed', state: 'deleting', config: doomed.config }));
    expect(await keysOfCollection(doomedNumber)).toBeGreaterThan(0);
    await database.close();
    expect(existsSync(doomedDirectory)).toBe(true);

    const second = await openRegistry();
    expect(second.registry.names()).toEqual(['kept']);
    expect(second.registry.exists('doomed')).toBe(false);
    expect(await keysOfCollection(doomedNumber)).toBe(0);
    expect(await database.get(collectionRecordKey(doomedNumber))).toBeUndefined();
    expect(existsSync(doomedDirectory)).toBe(false);
    expect(second.registry.get('kept').pointCount).toBe(1);
    await closeRegistry(second.step);
  });

  it('deletion — a deleted collection leaves no key, no file and no record', async () => {
    const { registry, step } = await openRegistry();
    await registry.create('gone', { vectors: { size: 2, distance: 'Euclid' } });
    const gone = registry.get('gone');
    await gone.upsert([preparedPoint(1, [1, 2])], 'upsert', true);
    expect(await registry.delete('gone')).toBe(true);
    expect(await keysOfCollection(gone.number)).toBe(0);
    expect(existsSync(gone.directory)).toBe(false);
    expect(() => registry.get('gone')).toThrow(/not found/i);
    expect(gone.isMarkedForDeletion).toBe(true);
    await closeRegistry(step);
  });

  it('restart — collections recovered side by side each get their own points, payloads and vectors, and a flipped checkpoint byte costs only its own collection a rebuild', async () => {
    // Five collections of different dimensions and sizes, so a mix-up between concurrent loads
    // would show as a wrong count, payload or vector; the reference is what was written.
    const written = new Map<string, { dimension: number; points: Map<number, { vector: number[]; payload: Record<string, unknown> }> }>();
    const first = await openRegistry();
    for (let number = 0; number < 5; number += 1) {
      const name = `c${number}`;
      const dimension = 2 + number;
      await first.registry.create(name, { vectors: { size: dimension, distance: 'Euclid' } });
      const points = new Map<number, { vector: number[]; payload: Record<string, unknown> }>();
      for (let id = 1; id <= 40 + number * 25; id += 1) {
        points.set(id, { vector: Array.from({ length: dimension }, (_, axis) => id * 10 + axis + number / 10), payload: { collection: name, id } });
      }
      await first.registry.get(name).upsert([...points].map(([id, point]) => preparedPoint(id, point.vector, point.payload)), 'upsert', true);
      written.set(name, { dimension, points });
    }
    const corruptPath = checkpointPath(first.registry.get('c3').directory, '');
    await closeRegistry(first.step);
    const bytes = await readFile(corruptPath);
    const flipped = Math.floor(bytes.length / 2);
    bytes.writeUInt8(bytes[flipped]! ^ 0x20, flipped);
    await writeFile(corruptPath, bytes);

    const second = await openRegistry();
    expect(second.registry.names()).toEqual(['c0', 'c1', 'c2', 'c3', 'c4']);
    for (const [name, { points }] of written) {
      const collection = second.registry.get(name);
      expect(collection.pointCount, name).toBe(points.size);
      for (const [id, point] of points) {
        const entry = collection.pointById(id)!;
        expect(entry.payload, `${name} ${id}`).toEqual(point.payload);
        expect(Array.from(collection.storedVector(entry, '')!), `${name} ${id}`).toEqual(point.vector.map((value) => Math.fround(value)));
      }
    }
    await closeRegistry(second.step);
  });

  it('start — kernelBound resolves once the first collections wait only on their checkpoint loads, before the step ends; with none, and when the step fails, too', async () => {
    // No collection: resolved by the open itself.
    const empty = await openRegistry();
    await expect(empty.registry.kernelBound).resolves.toBeUndefined();
    for (const name of ['a', 'b', 'c']) {
      await empty.registry.create(name, { vectors: { size: 2, distance: 'Euclid' } });
      await empty.registry.get(name).upsert([preparedPoint(1, [1, 2]), preparedPoint(2, [3, 4])], 'upsert', true);
    }
    await closeRegistry(empty.step);

    // Three collections, two loading at a time: resolved while the step still waits on the kernel.
    database = await openDatabase({ directory });
    const registry = new CollectionRegistry({ config, logger, hooks: (collection) => hooks(collection.name) });
    const step = registry.lifecycleStep();
    const opening = step.open(database);
    await registry.kernelBound;
    // The first two load together: when both wait on the kernel, at most one has finished.
    expect(['a', 'b'].filter((name) => registry.names().includes(name)).length).toBeLessThan(2);
    await opening;
    expect(registry.names()).toEqual(['a', 'b', 'c']);
    await closeRegistry(step);

    // A step that fails before any collection loads (the store is closed under it) resolves it too.
    database = await openDatabase({ directory });
    await database.close();
    const failing = new CollectionRegistry({ config, logger, hooks: (collection) => hooks(collection.name) });
    await expect(failing.lifecycleStep().open(database)).rejects.toThrow();
    await expect(failing.kernelBound).resolves.toBeUndefined();
  });

  it('hooks — every collection created or loaded gets the registry\'s hooks, told once it is loaded', async () => {
    const first = await openRegistry();
    await first.registry.create('one', { vectors: { size: 2, distance: 'Euclid' } });
    expect(loadedCollections).toEqual(['one']);
    await first.registry.get('one').upsert([preparedPoint(1, [1, 2], { tag: 'x' })], 'upsert', true);
    await closeRegistry(first.step);
    const second = await openRegistry();
    expect(loadedCollections).toEqual(['one', 'one']);
    const collection = second.registry.get('one');
    // Without the filter module, a filter selector is refused, never ignored.
    await expect(collection.deletePoints({ kind: 'filter', filter: {} }, true)).rejects.toMatchObject({ status: 400 });
    expect(collection.pointCount).toBe(1);
    await closeRegistry(second.step);
  });
});
