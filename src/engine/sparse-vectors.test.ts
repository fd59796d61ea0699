import { describe, expect, it } from 'vitest';
import type { CollectionConfig } from './collection-config.js';
import { packVectors, SparseVectors, sparseCheckpointPath } from './sparse-vectors.js';

const config = { sparse_vectors: { text: {}, weighted: { modifier: 'idf' } } } as unknown as CollectionConfig;
const vector = (indices: number[], values: number[]) => ({ indices: Uint32Array.from(indices), values: Float32Array.from(values) });

describe('sparse vectors of a collection', () => {
  it('packVectors — slots, offsets and entries back to back, as the kernel upsert takes them', () => {
    const [slots, offsets, indices, values] = packVectors([
      { slot: 4, vector: vector([1, 2], [0.5, 1]) },
      { slot: 0, vector: vector([], []) },
      { slot: 9, vector: vector([7], [3]) },
    ]);
    expect([...slots]).toEqual([4, 0, 9]);
    expect([...offsets]).toEqual([0, 2, 2, 3]);
    expect([...indices]).toEqual([1, 2, 7]);
    expect([...values]).toEqual([0.5, 1, 3]);
  });

  it('in flight — a committed write is visible before the kernel has it, removals included, and the kernel answers after', async () => {
    const sparse = new SparseVectors(() => config);
    sparse.initializeEmpty();
    try {
      expect(sparse.names()).toEqual(['text', 'weighted']);
      expect(sparse.usesIdf('weighted')).toBe(true);
      expect(sparse.usesIdf('text')).toBe(false);
      const first = [{ slot: 3, vectors: new Map([['text', vector([5], [2])]]) }];
      sparse.commit(first);
      expect(sparse.stored(3, 'text')?.values).toEqual(Float32Array.of(2));
      expect(sparse.indexes.get('text')!.has(3)).toBe(false);
      await sparse.apply(first);
      expect(sparse.indexes.get('text')!.vector(3)?.indices).toEqual(Uint32Array.of(5));
      const removal = [{ slot: 3, vectors: new Map([['text', null]]) }];
      sparse.commit(removal);
      expect(sparse.has(3, 'text')).toBe(false);
      await sparse.apply(removal);
      expect(sparse.indexes.get('text')!.has(3)).toBe(false);
    } finally {
      sparse.close();
    }
  });

  it('checkpoint path — one file per sparse name, hex-encoded beside the dense ones', () => {
    expect(sparseCheckpointPath('/data/7', 'text-sparse')).toBe(`/data/7/sparse-${Buffer.from('text-sparse').toString('hex')}.qsi`);
  });
});
