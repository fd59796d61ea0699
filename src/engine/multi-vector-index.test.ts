// Rules for multi-vector-index.ts: the graph path (candidates from each query row's nearest rows)
// against its slow twin (the exact scan), MaxSim against a definition written here, and the
// sub-slot bookkeeping through replacements and deletes.
import { describe, expect, it } from 'vitest';
import { xorshiftVectors } from '../../test/support/seeded-random.js';
import type { Distance, VectorIndexOptions } from '../native/vector-index-contract.js';
import { MultiVectorIndex, normalizedRows, upsertRows } from './multi-vector-index.js';

const dimension = 16;

function options(distance: Distance): VectorIndexOptions {
  return { dimension, distance, m: 16, efConstruct: 100, fullScanThreshold: 64, indexingThreads: 1 };
}

/** Matrices of 2..9 rows, clustered per point so that MaxSim has clear winners. */
function matrices(count: number, seed: number): Float32Array[] {
  const values = xorshiftVectors(count * 9, dimension, seed);
  return Array.from({ length: count }, (_, point) => values.slice(point * 9 * dimension, (point * 9 + 2 + (point % 8)) * dimension));
}

function pairScore(distance: Distance, left: Float32Array, right: Float32Array): number {
  let sum = 0;
  for (let position = 0; position < dimension; position += 1) {
    const a = left[position]!;
    const b = right[position]!;
    if (distance === 'Euclid') sum += (a - b) ** 2;
    else if (distance === 'Manhattan') sum += Math.abs(a - b);
    else sum += a * b;
  }
  return distance === 'Euclid' ? Math.sqrt(sum) : sum;
}

function definitionMaxSim(distance: Distance, query: Float32Array, document: Float32Array): number {
  const larger = distance === 'Cosine' || distance === 'Dot';
  const rows = (matrix: Float32Array) => Array.from({ length: matrix.length / dimension }, (_, row) => matrix.subarray(row * dimension, (row + 1) * dimension));
  const q = distance === 'Cosine' ? normalizedRows(query, dimension) : query;
  const d = distance === 'Cosine' ? normalizedRows(document, dimension) : document;
  let total = 0;
  for (const queryRow of rows(q)) {
    let best = larger ? -Infinity : Infinity;
    for (const row of rows(d)) best = larger ? Math.max(best, pairScore(distance, queryRow, row)) : Math.min(best, pairScore(distance, queryRow, row));
    total += best;
  }
  return total;
}

describe('MultiVectorIndex', () => {
  it('multivector index — scoreSlots is MaxSim by its definition for every distance; NaN for a slot without a matrix', async () => {
    for (const distance of ['Cosine', 'Dot', 'Euclid', 'Manhattan'] as const) {
      const index = new MultiVectorIndex(options(distance));
      const documents = matrices(20, 3);
      await upsertRows(index, Uint32Array.from(documents.keys()), documents);
      const query = matrices(1, 99)[0]!;
      const scores = await index.scoreSlots(query, Uint32Array.of(0, 7, 19, 500));
      [0, 7, 19].forEach((slot, position) => expect(scores[position]).toBeCloseTo(definitionMaxSim(distance, query, documents[slot]!), 3));
      expect(scores[3]).toBeNaN();
      index.close();
    }
  });

  it('multivector index — the graph path finds what its slow twin, the exact scan, finds (recall ≥ 0.9), with and without allowed slots', async () => {
    const index = new MultiVectorIndex(options('Dot'));
    const documents = matrices(600, 5);
    await upsertRows(index, Uint32Array.from(documents.keys()), documents);
    await index.waitIndexed();
    const allowed = new Uint8Array(600 / 8);
    for (let slot = 0; slot < 600; slot += 3) allowed[slot >> 3]! |= 1 << (slot & 7);
    let hits = 0;
    let total = 0;
    for (const query of matrices(10, 77)) {
      for (const filter of [undefined, allowed]) {
        const exact = await index.search(query, 10, { exact: true, ...(filter ? { allowed: filter } : {}) });
        const graph = await index.search(query, 10, { ef: 128, ...(filter ? { allowed: filter } : {}) });
        if (filter) for (const slot of graph.slots) expect(slot % 3).toBe(0);
        const truth = new Set(exact.slots);
        hits += [...graph.slots].filter((slot) => truth.has(slot)).length;
        total += exact.slots.length;
      }
    }
    expect(hits / total).toBeGreaterThanOrEqual(0.9);
    index.close();
  });

  it('multivector index — a search that names no hnsw_ef walks each query row with the index’s ef_construct, as the kernel does', async () => {
    const index = new MultiVectorIndex({ ...options('Dot'), efConstruct: 40 });
    const documents = matrices(600, 5);
    await upsertRows(index, Uint32Array.from(documents.keys()), documents);
    await index.waitIndexed();
    const answers = async (ef: number | undefined) => {
      const found: number[][] = [];
      for (const query of matrices(20, 78)) found.push([...(await index.search(query, 5, ef === undefined ? {} : { ef })).slots]);
      return found;
    };
    const unnamed = await answers(undefined);
    expect(unnamed).toEqual(await answers(40));
    // Not a default any list would match: with each row's list cut to the limit, some answer differs.
    expect(unnamed).not.toEqual(await answers(5));
    index.close();
  });

  it('multivector index — replacing and deleting matrices frees their rows: the index holds exactly the live rows and answers from the new ones', async () => {
    const index = new MultiVectorIndex(options('Euclid'));
    const first = matrices(50, 8);
    await upsertRows(index, Uint32Array.from(first.keys()), first);
    const second = matrices(50, 9);
    await upsertRows(index, Uint32Array.from(second.keys()), second);
    await index.delete(Uint32Array.of(0, 1, 2));
    const liveRows = second.slice(3).reduce((sum, matrix) => sum + matrix.length / dimension, 0);
    expect(index.rowStats().count).toBe(liveRows);
    expect(index.stats().count).toBe(47);
    expect(index.has(1)).toBe(false);
    expect(index.matrix(10)).toEqual(second[10]);
    const top = await index.search(second[10]!, 1, { exact: true });
    expect(Array.from(top.slots)).toEqual([10]);
    expect(top.scores[0]).toBeCloseTo(0, 5);
    index.close();
  });
});
