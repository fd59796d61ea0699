// Rules for the multivector sub-slot map file (multi-vector-checkpoint.ts) and the checkpoint of
// a MultiVectorIndex: the map survives encode/decode unchanged, every kind of damage is refused
// with a reason (never a crash, never a half-read map), and an index saved and loaded back
// answers exactly as before and keeps reusing its free sub-slots.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { xorshiftVectors } from '../../test/support/seeded-random.js';
import { loadVectorIndex } from '../native/index.js';
import { crc32c } from '../storage/crc32c.js';
import { decodeMultivectorMap, encodeMultivectorMap, multivectorMapFormat, multivectorMapPath, MultivectorMapError, noParent, type MultivectorMap } from './multi-vector-checkpoint.js';
import { MultiVectorIndex } from './multi-vector-index.js';

const directories: string[] = [];
afterAll(async () => {
  for (const directory of directories) await rm(directory, { recursive: true, force: true });
});

/** Points 7 (rows 0, 3, 1) and 2 (row 4); sub-slot 2 free. */
function sampleMap(): MultivectorMap {
  return {
    lastOperationId: 2 ** 40 + 17,
    binding: 'database-1/incarnation-é',
    parents: Uint32Array.from([7, 7, noParent, 7, 2]),
    points: new Map([
      [7, Uint32Array.from([0, 3, 1])],
      [2, Uint32Array.from([4])],
    ]),
    free: Uint32Array.from([2]),
  };
}

function refusal(bytes: Uint8Array): string {
  try {
    decodeMultivectorMap(bytes);
  } catch (error) {
    expect(error).toBeInstanceOf(MultivectorMapError);
    return (error as Error).message;
  }
  throw new Error('the map was accepted');
}

/** `bytes` with its trailing CRC recomputed, so only the structure checks can refuse it. */
function resealed(bytes: Uint8Array): Buffer {
  const copy = Buffer.from(bytes);
  copy.writeUInt32LE(crc32c(copy.subarray(0, copy.length - 4)), copy.length - 4);
  return copy;
}

describe('multivector map file', () => {
  it('map file — decode(encode(map)) is the map: operation id, binding, parents, rows in order, free list', () => {
    const map = sampleMap();
    const decoded = decodeMultivectorMap(encodeMultivectorMap(map));
    expect(decoded.lastOperationId).toBe(map.lastOperationId);
    expect(decoded.binding).toBe(map.binding);
    expect([...decoded.parents]).toEqual([...map.parents]);
    expect([...decoded.points].map(([slot, own]) => [slot, [...own]])).toEqual([...map.points].map(([slot, own]) => [slot, [...own]]));
    expect([...decoded.free]).toEqual([2]);
    const empty = decodeMultivectorMap(encodeMultivectorMap({ lastOperationId: 0, binding: '', parents: new Uint32Array(0), points: new Map(), free: new Uint32Array(0) }));
    expect(empty.points.size).toBe(0);
  });

  it('map file — the format byte follows the magic, and an unknown format is refused by number', () => {
    const bytes = Buffer.from(encodeMultivectorMap(sampleMap()));
    expect(bytes.subarray(0, 8).toString('latin1')).toBe('QUIVERMV');
    expect(bytes[8]).toBe(multivectorMapFormat);
    bytes[8] = 9;
    expect(refusal(resealed(bytes))).toMatch(/unknown multivector map format 9/);
  });

  it('map file — bad magic, truncation at every length and any flipped byte are refused', () => {
    const bytes = Buffer.from(encodeMultivectorMap(sampleMap()));
    const wrongMagic = Buffer.from(bytes);
    wrongMagic[0] = 0x51 ^ 0xff;
    expect(refusal(wrongMagic)).toMatch(/bad magic/);
    for (let length = 0; length < bytes.length; length += 1) expect(refusal(bytes.subarray(0, length))).toMatch(/magic|truncated|checksum/);
    for (let position = 9; position < bytes.length; position += 1) {
      const flipped = Buffer.from(bytes);
      flipped[position] = flipped[position]! ^ 0x10;
      expect(refusal(flipped)).toMatch(/checksum/);
    }
  });

  it('map file — a well-sealed map whose parts disagree is refused, naming the part', () => {
    const encode = (change: (map: MultivectorMap & { points: Map<number, Uint32Array> }) => void) => {
      const map = sampleMap() as MultivectorMap & { points: Map<number, Uint32Array> };
      change(map);
      return encodeMultivectorMap(map);
    };
    expect(refusal(encode((map) => map.points.set(2, Uint32Array.from([3]))))).toMatch(/sub-slot 3 of point slot 2 disagrees/);
    expect(refusal(encode((map) => map.points.set(2, Uint32Array.from([4, 4]))))).toMatch(/sub-slot 4 of point slot 2 disagrees/);
    expect(refusal(encode((map) => map.points.set(2, Uint32Array.from([9]))))).toMatch(/sub-slot 9 of point slot 2 disagrees/);
    expect(refusal(encode((map) => map.points.set(2, new Uint32Array(0))))).toMatch(/point slot 2 has no rows/);
    expect(refusal(encode((map) => (map.free = Uint32Array.from([2, 4]))))).toMatch(/free sub-slot 4 is in use/);
    expect(refusal(encode((map) => (map.free = Uint32Array.from([2, 2]))))).toMatch(/free sub-slot 2 is in use or listed twice/);
    expect(refusal(encode((map) => (map.free = new Uint32Array(0))))).toMatch(/sub-slot 2 is neither a row of a point nor free/);
    expect(refusal(encode((map) => map.points.delete(2)))).toMatch(/sub-slot 4 is neither/);
    // Point 2 relabelled 7 in the bytes: the same slot listed twice.
    const bytes = Buffer.from(encodeMultivectorMap(sampleMap()));
    const second = bytes.length - 4 - 4 - 4 - 4 - 4 - 4;
    expect(bytes.readUInt32LE(second)).toBe(2);
    bytes.writeUInt32LE(7, second);
    expect(refusal(resealed(bytes))).toMatch(/point slot 7 listed twice/);
    // Bytes after the free list, inside the checksum.
    // (4 extra bytes, then the 4 of the new checksum)
    const padded = Buffer.concat([Buffer.from(encodeMultivectorMap(sampleMap())).subarray(0, -4), Buffer.alloc(8)]);
    expect(refusal(resealed(padded))).toMatch(/4 unexpected bytes/);
    // A count larger than the file.
    const huge = Buffer.from(encodeMultivectorMap(sampleMap()));
    huge.writeUInt32LE(0xffff_fff0, 8 + 1 + 2 + Buffer.byteLength(sampleMap().binding) + 8);
    expect(refusal(resealed(huge))).toMatch(/truncated in the parents/);
  });

  it('map file — a binding longer than 256 bytes is refused at encode', () => {
    expect(() => encodeMultivectorMap({ ...sampleMap(), binding: 'x'.repeat(257) })).toThrow(/at most 256/);
  });

  it('map file — it sits beside the rows checkpoint: vector-<hex>.qvi -> vector-<hex>.qvm', () => {
    expect(multivectorMapPath('/data/c/vector-636f6c62657274.qvi')).toBe('/data/c/vector-636f6c62657274.qvm');
  });
});

describe('multivector index checkpoint', () => {
  const dimension = 8;
  const options = { dimension, distance: 'Dot' as const, m: 16, efConstruct: 100, fullScanThreshold: 1, indexingThreads: 1 };

  function matrixOf(seed: number, rows: number): Float32Array {
    return xorshiftVectors(rows, dimension, seed);
  }

  it('checkpoint — saved after replacements and deletes, loaded back it answers exactly as before and reuses its free sub-slots', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'quiver-mvcheckpoint-'));
    directories.push(directory);
    const index = new MultiVectorIndex(options);
    const slots = Uint32Array.from({ length: 40 }, (_, slot) => slot);
    await index.upsertMatrices(slots, Array.from(slots, (slot) => matrixOf(slot + 1, 1 + (slot % 5))));
    await index.delete(Uint32Array.from([3, 9, 27]));
    await index.upsertMatrices(Uint32Array.from([4, 41]), [matrixOf(100, 6), matrixOf(101, 2)]);
    await index.waitIndexed();
    const query = matrixOf(200, 3);
    const before = await index.search(query, 10, { exact: true });
    const path = join(directory, 'vector-00.qvi');
    await index.save(path, 123, 'bound');
    const files = await readdir(directory);
    expect(files.sort()).toEqual(['vector-00.qvi', 'vector-00.qvm']);

    const loaded = await loadVectorIndex(path);
    expect(loaded.lastOperationId).toBe(123);
    const map = decodeMultivectorMap(await readFile(multivectorMapPath(path)));
    expect(map.lastOperationId).toBe(123);
    expect(map.binding).toBe('bound');
    const restored = new MultiVectorIndex(options, loaded.index);
    restored.restoreMap(map);
    try {
      const after = await restored.search(query, 10, { exact: true });
      expect([...after.slots]).toEqual([...before.slots]);
      expect([...after.scores]).toEqual([...before.scores]);
      expect(restored.liveCount()).toBe(index.liveCount());
      expect(restored.has(3)).toBe(false);
      expect([...restored.matrix(4)!]).toEqual([...index.matrix(4)!]);
      // New rows take the freed sub-slots first: the row count grows only by what is new.
      const rowsBefore = restored.rowStats().count;
      await restored.upsertMatrices(Uint32Array.from([50]), [matrixOf(300, 2)]);
      expect(restored.rowStats().count).toBe(rowsBefore + 2);
      expect([...restored.matrix(50)!]).toEqual([...matrixOf(300, 2)]);
      expect([...restored.matrix(4)!]).toEqual([...index.matrix(4)!]);
      const found = await restored.search(matrixOf(300, 2), 1, { exact: true });
      expect([...found.slots]).toEqual([50]);
    } finally {
      restored.close();
      index.close();
    }
  });

  it('checkpoint — restoreMap refuses a map that places another number of rows than the kernel holds', async () => {
    const index = new MultiVectorIndex(options);
    try {
      await index.upsertMatrices(Uint32Array.from([1]), [matrixOf(1, 3)]);
      expect(() => index.restoreMap({ lastOperationId: 0, binding: '', parents: Uint32Array.from([1]), points: new Map([[1, Uint32Array.from([0])]]), free: new Uint32Array(0) })).toThrow(/holds 3 rows, the map places 1/);
    } finally {
      index.close();
    }
  });
});
