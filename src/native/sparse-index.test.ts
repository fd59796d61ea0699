import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mulberry32 } from '../../test/support/seeded-random.js';
import { nativeErrorCode } from './index.js';
import { createSparseIndex, loadSparseIndex, type SparseIndex } from './sparse-index.js';

const directory = mkdtempSync(join(tmpdir(), 'quiver-sparse-index-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

interface Entry {
  indices: number[];
  values: number[];
}

/**
 * Vectors over a skewed vocabulary (low dimensions far more common) with values in quarter
 * steps from -2 to 2: products and sums stay exact in f32, so the kernel's scores must equal
 * the reference's exactly, ties included.
 */
function randomEntries(count: number, seed: number, vocabulary = 200, most = 30): Entry[] {
  const next = mulberry32(seed);
  const entries: Entry[] = [];
  for (let number = 0; number < count; number += 1) {
    const dimensions = new Set<number>();
    const size = 1 + Math.floor(next() * most);
    for (let draw = 0; draw < size; draw += 1) dimensions.add(Math.floor(vocabulary * next() ** 3));
    const indices = [...dimensions];
    const values = indices.map(() => (Math.floor(next() * 17) - 8) / 4);
    entries.push({ indices, values });
  }
  return entries;
}

function batch(slots: number[], entries: Entry[]): [Uint32Array, Uint32Array, Uint32Array, Float32Array] {
  const offsets = [0];
  for (const entry of entries) offsets.push(offsets.at(-1)! + entry.indices.length);
  return [
    Uint32Array.from(slots),
    Uint32Array.from(offsets),
    Uint32Array.from(entries.flatMap((entry) => entry.indices)),
    Float32Array.from(entries.flatMap((entry) => entry.values)),
  ];
}

function query(entry: Entry): { indices: Uint32Array; values: Float32Array } {
  return { indices: Uint32Array.from(entry.indices), values: Float32Array.from(entry.values) };
}

/** The slow reference: every stored vector, dot product over shared dimensions. */
function reference(stored: Map<number, Entry>, probe: Entry, k: number, allowed?: Set<number>): Array<[number, number]> {
  const scored: Array<[number, number]> = [];
  for (const [slot, entry] of stored) {
    if (allowed !== undefined && !allowed.has(slot)) continue;
    let shared = false;
    let score = 0;
    probe.indices.forEach((dimension, position) => {
      const at = entry.indices.indexOf(dimension);
      if (at >= 0) {
        shared = true;
        score += probe.values[position]! * entry.values[at]!;
      }
    });
    if (shared) scored.push([slot, score]);
  }
  scored.sort((left, right) => right[1] - left[1] || left[0] - right[0]);
  return scored.slice(0, k);
}

async function pairs(index: SparseIndex, probe: Entry, k: number, options?: Parameters<SparseIndex['search']>[2]): Promise<Array<[number, number]>> {
  const result = await index.search(query(probe), k, options);
  return [...result.slots].map((slot, position) => [slot, result.scores[position]!]);
}

function bitset(slots: Iterable<number>, size: number): Uint8Array {
  const bytes = new Uint8Array(Math.ceil(size / 8));
  for (const slot of slots) bytes[slot >> 3]! |= 1 << (slot & 7);
  return bytes;
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the promise to reject');
}

async function filled(count: number, seed: number): Promise<{ index: SparseIndex; stored: Map<number, Entry> }> {
  const index = createSparseIndex();
  const entries = randomEntries(count, seed);
  const slots = entries.map((_, slot) => slot);
  await index.upsert(...batch(slots, entries));
  return { index, stored: new Map(entries.map((entry, slot) => [slot, entry])) };
}

describe('SparseIndex (through the addon)', () => {
  it('search — pruned and exact results both equal the slow reference, ties by smaller slot', async () => {
    const { index, stored } = await filled(400, 1);
    const probes = randomEntries(40, 2, 200, 12);
    for (const [number, probe] of probes.entries()) {
      const k = [1, 5, 10, 1000][number % 4]!;
      const expected = reference(stored, probe, k);
      expect(await pairs(index, probe, k)).toEqual(expected);
      expect(await pairs(index, probe, k, { exact: true })).toEqual(expected);
    }
    index.close();
  });

  it('search — only allowed slots are returned, and the filter does not change their order', async () => {
    const { index, stored } = await filled(300, 3);
    const next = mulberry32(4);
    const allowed = new Set([...stored.keys()].filter(() => next() < 0.1));
    for (const probe of randomEntries(20, 5, 200, 10)) {
      const expected = reference(stored, probe, 10, allowed);
      expect(await pairs(index, probe, 10, { allowed: bitset(allowed, 300) })).toEqual(expected);
    }
    index.close();
  });

  it('upsert — replacing and deleting change what scores; unknown deletes are ignored', async () => {
    const { index, stored } = await filled(200, 6);
    const replacements = randomEntries(50, 7);
    const replaced = replacements.map((_, position) => position * 3);
    await index.upsert(...batch(replaced, replacements));
    replaced.forEach((slot, position) => stored.set(slot, replacements[position]!));
    const removed = [1, 2, 4, 199, 5000];
    expect(await index.delete(Uint32Array.from(removed))).toBe(4);
    for (const slot of removed) stored.delete(slot);
    for (const probe of randomEntries(20, 8, 200, 10)) expect(await pairs(index, probe, 10)).toEqual(reference(stored, probe, 10));
    expect(index.stats().count).toBe(stored.size);
    expect(index.has(1)).toBe(false);
    expect(index.vector(1)).toBeUndefined();
    index.close();
  });

  it('vector — reads back with indices ascending; document frequencies count live vectors', async () => {
    const index = createSparseIndex();
    await index.upsert(...batch([7, 8], [{ indices: [30, 10, 20], values: [3, 1, 2] }, { indices: [10], values: [-1] }]));
    const vector = index.vector(7)!;
    expect([...vector.indices]).toEqual([10, 20, 30]);
    expect([...vector.values]).toEqual([1, 2, 3]);
    expect([...index.documentFrequencies(Uint32Array.from([10, 20, 99]))]).toEqual([2, 1, 0]);
    expect(index.stats()).toMatchObject({ count: 2, nonZeros: 4, dimensions: 3 });
    expect(index.stats().memoryBytes).toBeGreaterThan(0);
    index.close();
  });

  it('upsert — a repeated index, unequal lengths or a non-finite value reject with INVALID_ARGUMENT and change nothing', async () => {
    const index = createSparseIndex();
    const bad: Array<[Uint32Array, Uint32Array, Uint32Array, Float32Array]> = [
      batch([0, 1], [{ indices: [1], values: [1] }, { indices: [2, 2], values: [1, 1] }]),
      batch([0], [{ indices: [1], values: [Number.NaN] }]),
      [Uint32Array.from([0]), Uint32Array.from([0, 2]), Uint32Array.from([1, 2]), Float32Array.from([1])],
      [Uint32Array.from([0]), Uint32Array.from([0]), Uint32Array.from([]), Float32Array.from([])],
    ];
    for (const arguments_ of bad) expect(nativeErrorCode(await rejection(index.upsert(...arguments_)))).toBe('INVALID_ARGUMENT');
    expect(index.stats().count).toBe(0);
    const duplicate = { indices: [3, 3], values: [1, 1] };
    expect(nativeErrorCode(await rejection(index.search(query(duplicate), 3)))).toBe('INVALID_ARGUMENT');
    index.close();
  });

  it('save and load — the loaded index answers identically and reports its operation id', async () => {
    const { index, stored } = await filled(300, 9);
    const path = join(directory, 'round-trip.qsp');
    await index.save(path, 1234);
    const loaded = await loadSparseIndex(path);
    expect(loaded.lastOperationId).toBe(1234);
    for (const probe of randomEntries(15, 10, 200, 10)) expect(await pairs(loaded.index, probe, 10)).toEqual(reference(stored, probe, 10));
    expect(loaded.index.stats()).toMatchObject({ count: 300, nonZeros: index.stats().nonZeros });
    index.close();
    loaded.index.close();
  });

  it('load — a flipped byte or a truncated file is refused with CHECKPOINT_CORRUPT', async () => {
    const { index } = await filled(50, 11);
    const path = join(directory, 'damaged.qsp');
    await index.save(path, 1);
    const good = readFileSync(path);
    const flipped = Buffer.from(good);
    flipped[40]! ^= 0x10;
    for (const bytes of [flipped, good.subarray(0, good.length - 5)]) {
      writeFileSync(path, bytes);
      expect(nativeErrorCode(await rejection(loadSparseIndex(path)))).toBe('CHECKPOINT_CORRUPT');
    }
    index.close();
  });

  it('close — later calls reject with INDEX_CLOSED', async () => {
    const index = createSparseIndex();
    index.close();
    expect(nativeErrorCode(await rejection(index.search(query({ indices: [1], values: [1] }), 1)))).toBe('INDEX_CLOSED');
  });
});
