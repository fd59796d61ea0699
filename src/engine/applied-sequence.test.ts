import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/support/app.js';
import { appliedSequenceKey, appliedSequenceNamespace, withAppliedSequence } from './applied-sequence.js';

describe('applied sequence', () => {
  let test: TestApp | undefined;
  afterEach(async () => {
    await test?.dispose();
  });

  it('applied sequence — a write made under a log sequence stores it in its own batch; a refused one stores nothing', async () => {
    test = await createTestApp();
    const { app } = test;
    await app.inject({ method: 'PUT', url: '/collections/shard', payload: { vectors: { size: 2, distance: 'Dot' } } });
    const upsert = (vector: number[]) => app.inject({ method: 'PUT', url: '/collections/shard/points?wait=true', payload: { points: [{ id: 1, vector }] } });
    const stored = async () => (await app.collections.get('shard').store.extension(appliedSequenceNamespace)).get(appliedSequenceKey);
    expect(await stored()).toBeUndefined();
    expect((await withAppliedSequence('shard', 41, () => upsert([1, 2]))).statusCode).toBe(200);
    expect(await stored()).toBe(41);
    expect((await withAppliedSequence('shard', 42, () => upsert([1, 2, 3]))).statusCode).toBe(400);
    expect(await stored()).toBe(41);
    // Outside cluster mode nothing is recorded.
    expect((await upsert([3, 4])).statusCode).toBe(200);
    expect(await stored()).toBe(41);
  });
});
