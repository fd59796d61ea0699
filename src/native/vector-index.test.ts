// Rules for vector-index.ts over crates/quiver-node/src/vector_index.rs: the contract's
// arguments, results, errors and checkpoints (the HNSW graph itself: vector-index-graph.test.ts).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { nativeErrorCode } from './errors.js';
import { createVectorIndex, type Distance, loadVectorIndex, type VectorIndex, type VectorIndexOptions } from './vector-index.js';
import { rejection } from '../../test/support/rejection.js';
import { xorshiftVectors } from '../../test/support/seeded-random.js';

const directory = mkdtempSync(join(tmpdir(), 'quiver-vector-index-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

function options(dimension: number, distance: Distance, extra: Partial<VectorIndexOptions> = {}): VectorIndexOptions {
  return { dimension, distance, m: 16, efConstruct: 100, fullScanThreshold: 10_000, indexingThreads: 1, ...extra };
}


function slotsUpTo(count: number): Uint32Array {
  return Uint32Array.from({ length: count }, (_, index) => index);
}

function thrownBy(call: () => unknown): unknown {
  try {
    call();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to throw');
}

function bitset(slots: number[], size: number): Uint8Array {
  const bytes = new Uint8Array(Math.ceil(size / 8));
  for (const slot of slots) bytes[slot >> 3]! |= 1 << (slot & 7);
  return bytes;
}

/** The slow twin: wire scores computed in plain TypeScript. */
function wireScore(distance: Distance, left: Float32Array, right: Float32Array): number {
  let sum = 0;
  for (let index = 0; index < left.length; index += 1) {
    const a = left[index]!;
    const b = right[index]!;
    if (distance === 'Euclid') sum += (a - b) * (a - b);
    else if (distance === 'Manhattan') sum += Math.abs(a - b);
    else sum += a * b;
  }
  return distance === 'Euclid' ? Math.sqrt(sum) : sum;
}

function normalised(vector: Float32Array): Float32Array {
  const norm = Math.sqrt(vector.reduce((total, value) => total + value * value, 0));
  return vector.map((value) => value / norm);
}

describe('vector index', () => {
  for (const distance of ['Cosine', 'Dot', 'Euclid', 'Manhattan'] as const) {
    it(`search — ${distance} returns the exact best first in the wire convention`, async () => {
      const dimension = 17;
      const count = 300;
      const index = createVectorIndex(options(dimension, distance));
      const data = xorshiftVectors(count, dimension, 7);
      await index.upsert(slotsUpTo(count), data);
      const query = xorshiftVectors(1, dimension, 99);
      const result = await index.search(query, 10);
      const preparedQuery = distance === 'Cosine' ? normalised(query) : query;
      const expected = Array.from({ length: count }, (_, slot) => {
        const row = data.subarray(slot * dimension, (slot + 1) * dimension);
        return { slot, score: wireScore(distance, preparedQuery, distance === 'Cosine' ? normalised(row) : row) };
      }).sort((a, b) => (distance === 'Cosine' || distance === 'Dot' ? b.score - a.score : a.score - b.score));
      expect(Array.from(result.slots)).toEqual(expected.slice(0, 10).map((hit) => hit.slot));
      result.scores.forEach((score, position) => expect(score).toBeCloseTo(expected[position]!.score, 4));
      index.close();
    });
  }

  for (const distance of ['Cosine', 'Dot', 'Euclid', 'Manhattan'] as const) {
    it(`scoreSlots — ${distance} gives each slot the very score search gives it, NaN without a vector`, async () => {
      const dimension = 31;
      const index = createVectorIndex(options(dimension, distance));
      await index.upsert(slotsUpTo(200), xorshiftVectors(200, dimension, 5));
      await index.delete(Uint32Array.of(9));
      const query = xorshiftVectors(1, dimension, 77);
      const found = await index.search(query, 20, { exact: true });
      const scores = await index.scoreSlots(query, found.slots);
      expect(Array.from(scores)).toEqual(Array.from(found.scores));
      const missing = await index.scoreSlots(query, Uint32Array.of(9, 5000));
      expect(Array.from(missing).every(Number.isNaN)).toBe(true);
      index.close();
    });
  }

  it('mmrSelect — positions in pick order; a lambda outside 0..1 is refused', async () => {
    const index = createVectorIndex(options(2, 'Cosine'));
    await index.upsert(Uint32Array.of(0, 1, 2), Float32Array.of(1, 0, 0.99, 0.1, 0, 1));
    // Full diversity: after the best, the point least like it.
    expect(Array.from(await index.mmrSelect(Float32Array.of(1, 0), Uint32Array.of(0, 1, 2), 0, 3))).toEqual([0, 2, 1]);
    expect(Array.from(await index.mmrSelect(Float32Array.of(1, 0), Uint32Array.of(2, 1, 0), 1, 2))).toEqual([2, 1]);
    expect(nativeErrorCode(await rejection(index.mmrSelect(Float32Array.of(1, 0), Uint32Array.of(0), 1.5, 1)))).toBe('INVALID_ARGUMENT');
    index.close();
  });

  it('cosine — vectors are stored normalised and returned so', async () => {
    const index = createVectorIndex(options(2, 'Cosine'));
    await index.upsert(Uint32Array.of(3), Float32Array.of(3, 4));
    expect(Array.from(index.vectors(Uint32Array.of(3)))).toEqual([Math.fround(0.6), Math.fround(0.8)]);
    const result = await index.search(Float32Array.of(30, 40), 1);
    expect(result.scores[0]).toBeCloseTo(1, 5);
    index.close();
  });

  it('vectors — NaN rows for slots without a live vector', async () => {
    const index = createVectorIndex(options(2, 'Dot'));
    await index.upsert(Uint32Array.of(0), Float32Array.of(1, 2));
    const rows = index.vectors(Uint32Array.of(0, 5, 1_000_000));
    expect(Array.from(rows.subarray(0, 2))).toEqual([1, 2]);
    expect(Array.from(rows.subarray(2)).every(Number.isNaN)).toBe(true);
    index.close();
  });

  it('filter — only allowed slots are returned, and slots past the bitset are not allowed', async () => {
    const index = createVectorIndex(options(8, 'Euclid'));
    await index.upsert(slotsUpTo(100), xorshiftVectors(100, 8, 3));
    const allowedSlots = [4, 17, 33, 60, 99];
    const result = await index.search(xorshiftVectors(1, 8, 5), 10, { allowed: bitset(allowedSlots, 100) });
    expect(Array.from(result.slots).sort((a, b) => a - b)).toEqual(allowedSlots);
    const short = await index.search(xorshiftVectors(1, 8, 5), 10, { allowed: bitset([4], 8) });
    expect(Array.from(short.slots)).toEqual([4]);
    index.close();
  });

  it('delete — tombstoned slots are never returned and stats count them', async () => {
    const index = createVectorIndex(options(4, 'Dot'));
    await index.upsert(slotsUpTo(10), xorshiftVectors(10, 4, 11));
    await index.delete(Uint32Array.of(2, 3, 500));
    expect(index.has(2)).toBe(false);
    expect(index.has(4)).toBe(true);
    const result = await index.search(xorshiftVectors(1, 4, 1), 10);
    expect(Array.from(result.slots).sort((a, b) => a - b)).toEqual([0, 1, 4, 5, 6, 7, 8, 9]);
    expect(index.stats()).toMatchObject({ count: 8, deletedCount: 2 });
    index.close();
  });

  it('upsert — a re-upserted slot answers with its new vector', async () => {
    const index = createVectorIndex(options(2, 'Euclid'));
    await index.upsert(Uint32Array.of(0, 1), Float32Array.of(0, 0, 10, 10));
    await index.upsert(Uint32Array.of(0), Float32Array.of(20, 20));
    const result = await index.search(Float32Array.of(0, 0), 2);
    expect(Array.from(result.slots)).toEqual([1, 0]);
    expect(index.stats().count).toBe(2);
    index.close();
  });

  it('upsert — a batch with the wrong length is refused whole with DIMENSION_MISMATCH', async () => {
    const index = createVectorIndex(options(3, 'Dot'));
    const error = await rejection(index.upsert(Uint32Array.of(0, 1), new Float32Array(5)));
    expect(nativeErrorCode(error)).toBe('DIMENSION_MISMATCH');
    expect(index.stats().count).toBe(0);
    expect(nativeErrorCode(await rejection(index.search(new Float32Array(4), 1)))).toBe('DIMENSION_MISMATCH');
    index.close();
  });

  it('search — k and ef must be non-negative integers', async () => {
    const index = createVectorIndex(options(2, 'Dot'));
    expect(nativeErrorCode(await rejection(index.search(new Float32Array(2), -1)))).toBe('INVALID_ARGUMENT');
    expect(nativeErrorCode(await rejection(index.search(new Float32Array(2), 1, { ef: 1.5 })))).toBe('INVALID_ARGUMENT');
    index.close();
  });

  it('searchBatch — one best-first result per query, in order', async () => {
    const index = createVectorIndex(options(2, 'Euclid'));
    await index.upsert(Uint32Array.of(0, 1, 2), Float32Array.of(0, 0, 5, 5, 10, 10));
    const results = await index.searchBatch(Float32Array.of(10, 10, 0, 1), 2);
    expect(results.map((result) => Array.from(result.slots))).toEqual([
      [2, 1],
      [0, 1],
    ]);
    expect(results[1]!.scores[0]).toBeCloseTo(1, 5);
    index.close();
  });

  it('waitIndexed — resolves with every live vector indexed', async () => {
    const index = createVectorIndex(options(4, 'Cosine'));
    await index.upsert(slotsUpTo(50), xorshiftVectors(50, 4, 2));
    await index.waitIndexed();
    expect(index.stats()).toMatchObject({ count: 50, indexedCount: 50, deletedCount: 0 });
    expect(index.stats().memoryBytes).toBeGreaterThan(50 * 4 * 4);
    index.close();
  });

  it('close — later calls fail with INDEX_CLOSED', async () => {
    const index = createVectorIndex(options(2, 'Dot'));
    index.close();
    index.close();
    expect(nativeErrorCode(await rejection(index.search(new Float32Array(2), 1)))).toBe('INDEX_CLOSED');
    expect(nativeErrorCode(await rejection(index.upsert(Uint32Array.of(0), new Float32Array(2))))).toBe('INDEX_CLOSED');
    expect(nativeErrorCode(thrownBy(() => index.stats()))).toBe('INDEX_CLOSED');
  });

  it('create — impossible options are refused with INVALID_ARGUMENT', () => {
    expect(nativeErrorCode(thrownBy(() => createVectorIndex(options(0, 'Dot'))))).toBe('INVALID_ARGUMENT');
    expect(nativeErrorCode(thrownBy(() => createVectorIndex(options(2, 'Hamming' as Distance))))).toBe('INVALID_ARGUMENT');
    expect(nativeErrorCode(thrownBy(() => createVectorIndex(options(2, 'Dot', { m: 1 }))))).toBe('INVALID_ARGUMENT');
  });
});

describe('vector index checkpoint', () => {
  async function savedIndex(name: string): Promise<{ path: string; index: VectorIndex; data: Float32Array }> {
    const index = createVectorIndex(options(6, 'Manhattan'));
    const data = xorshiftVectors(40, 6, 21);
    await index.upsert(slotsUpTo(40), data);
    await index.delete(Uint32Array.of(5));
    const path = join(directory, name);
    await index.save(path, 1234);
    return { path, index, data };
  }

  it('save/load — round-trips vectors, tombstones and the last operation id', async () => {
    const { path, index } = await savedIndex('round-trip.qvx');
    const loaded = await loadVectorIndex(path);
    expect(loaded.lastOperationId).toBe(1234);
    expect(loaded.index.dimension).toBe(6);
    expect(loaded.index.distance).toBe('Manhattan');
    expect(loaded.index.stats()).toMatchObject({ count: 39, deletedCount: 1 });
    expect(loaded.index.has(5)).toBe(false);
    const query = xorshiftVectors(1, 6, 8);
    const before = await index.search(query, 5);
    const after = await loaded.index.search(query, 5);
    expect(Array.from(after.slots)).toEqual(Array.from(before.slots));
    expect(Array.from(loaded.index.vectors(slotsUpTo(40)))).toEqual(Array.from(index.vectors(slotsUpTo(40))));
    index.close();
    loaded.index.close();
  });

  it('load — a flipped byte is refused with CHECKPOINT_CORRUPT', async () => {
    const { path, index } = await savedIndex('flipped.qvx');
    index.close();
    const bytes = readFileSync(path);
    bytes[Math.floor(bytes.length / 2)]! ^= 0x40;
    writeFileSync(path, bytes);
    expect(nativeErrorCode(await rejection(loadVectorIndex(path)))).toBe('CHECKPOINT_CORRUPT');
  });

  it('load — a truncated file is refused with CHECKPOINT_CORRUPT', async () => {
    const { path, index } = await savedIndex('truncated.qvx');
    index.close();
    const bytes = readFileSync(path);
    for (const length of [bytes.length - 1, Math.floor(bytes.length / 2), 10, 0]) {
      writeFileSync(path, bytes.subarray(0, length));
      expect(nativeErrorCode(await rejection(loadVectorIndex(path)))).toBe('CHECKPOINT_CORRUPT');
    }
  });

  it('load — an unknown format version is refused with CHECKPOINT_VERSION', async () => {
    const { path, index } = await savedIndex('future.qvx');
    index.close();
    const bytes = readFileSync(path);
    bytes.writeUInt32LE(999, 8);
    writeFileSync(path, bytes);
    expect(nativeErrorCode(await rejection(loadVectorIndex(path)))).toBe('CHECKPOINT_VERSION');
  });

  it('load — a missing file is refused with CHECKPOINT_MISSING', async () => {
    expect(nativeErrorCode(await rejection(loadVectorIndex(join(directory, 'absent.qvx'))))).toBe('CHECKPOINT_MISSING');
  });

  it('load — a path that cannot be read as a file is refused with IO_ERROR', async () => {
    expect(nativeErrorCode(await rejection(loadVectorIndex(directory)))).toBe('IO_ERROR');
  });
});
