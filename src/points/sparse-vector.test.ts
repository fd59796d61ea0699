import { describe, expect, it } from 'vitest';
import { parseSparseInput, parseSparseVector } from './sparse-vector.js';
import { parsePointVectors, sparseVectorToJson, type VectorLayout } from './vectors.js';

const layout: VectorLayout = { shape: 'named', dimensions: new Map([['dense', 2]]), sparseNames: new Set(['text']) };

describe('sparse vectors', () => {
  it('sparse vector — entries are sorted by index, values kept with their index', () => {
    const vector = parseSparseVector({ indices: [9, 2, 4294967295], values: [0.5, -1, 3] }, 'v');
    expect([...vector.indices]).toEqual([2, 9, 4294967295]);
    expect([...vector.values]).toEqual([-1, 0.5, 3]);
    expect(sparseVectorToJson(parseSparseVector({ indices: [], values: [] }, 'v'))).toEqual({ indices: [], values: [] });
  });

  it('sparse vector — every bad entry is a 400 naming its field', () => {
    expect(() => parseSparseVector({ indices: [1, 2], values: [1] }, 'v')).toThrow('v: indices and values must have the same length');
    expect(() => parseSparseVector({ indices: [1, 1], values: [1, 2] }, 'v')).toThrow('v.indices[1]: index 1 appears more than once');
    expect(() => parseSparseVector({ indices: [4294967296], values: [1] }, 'v')).toThrow('v.indices[0]: expected an unsigned 32-bit integer');
    expect(() => parseSparseVector({ indices: [2n ** 40n], values: [1] }, 'v')).toThrow('v.indices[0]');
    expect(() => parseSparseVector({ indices: [-1], values: [1] }, 'v')).toThrow('v.indices[0]');
    expect(() => parseSparseVector({ indices: [1.5], values: [1] }, 'v')).toThrow('v.indices[0]');
    expect(() => parseSparseVector({ indices: [1], values: [Number.NaN] }, 'v')).toThrow('v.values[0]: expected a finite number');
    expect(() => parseSparseVector({ indices: [1], values: [1e39] }, 'v')).toThrow('v.values[0]: 1e+39 is outside the 32-bit float range');
    expect(() => parseSparseVector({ indices: [1], values: [1], extra: 1 }, 'v')).toThrow('v.extra');
    expect(() => parseSparseVector([1, 2], 'v')).toThrow('v: expected a sparse vector');
  });

  it('document — a BM25 Document becomes its sparse vector; an unknown model lists the supported ones', () => {
    const stored = parseSparseInput({ text: 'the quick brown fox', model: 'qdrant/bm25' }, 'v', 'document');
    expect(stored.indices.length).toBe(3);
    const query = parseSparseInput({ text: 'quick fox', model: 'Qdrant/bm25' }, 'v', 'query');
    expect([...query.values]).toEqual([1, 1]);
    expect(() => parseSparseInput({ text: 'x', model: 'openai/ada' }, 'v', 'document')).toThrow(/v\.model: unsupported model "openai\/ada" \(supported: qdrant\/bm25\)/);
  });

  it('point vectors — sparse names go to the sparse map; dense and sparse shapes are not interchangeable', () => {
    const sparse = new Map();
    const dense = parsePointVectors({ dense: [1, 2], text: { indices: [3], values: [1] } }, 'vector', layout, sparse);
    expect([...dense.keys()]).toEqual(['dense']);
    expect([...sparse.keys()]).toEqual(['text']);
    expect(() => parsePointVectors({ dense: { indices: [1], values: [1] } }, 'vector', layout, new Map())).toThrow('vector.dense: "dense" is a dense vector');
    expect(() => parsePointVectors({ text: [1, 2] }, 'vector', layout, new Map())).toThrow('vector.text: "text" is a sparse vector');
    expect(() => parsePointVectors({ other: [1] }, 'vector', layout, new Map())).toThrow('this collection has dense, text');
  });
});
