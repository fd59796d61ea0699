import { describe, expect, it } from 'vitest';
import { exampleIdKeys } from './example-ids.js';
import type { QueryForm, QueryStage } from './plan.js';

function stage(query: QueryForm | undefined, prefetches: QueryStage[] = [], extra: Partial<QueryStage> = {}): QueryStage {
  return { field: '', ...(query ? { query } : {}), prefetches, using: '', tuning: { exact: false }, limit: 10, ...extra };
}

const point = (id: number | string) => ({ kind: 'point' as const, id });
const vector = { kind: 'vector' as const, values: [1, 0] };

describe('example ids', () => {
  it('example ids — every id a form names is collected; inline vectors are not', () => {
    const keys = exampleIdKeys(
      stage({ kind: 'recommend', strategy: 'best_score', positive: [point(1), vector], negative: [point(2)] }, [
        stage({ kind: 'nearest', target: point(3) }),
        stage({ kind: 'discover', target: point(4), pairs: [{ positive: point(5), negative: vector }] }),
        stage({ kind: 'context', pairs: [{ positive: point('0e8f2a3c-6d4b-4c1e-9a7f-2b5d8c1e4f6a'), negative: point(6) }] }),
        stage({ kind: 'order_by', orderBy: { key: 'rank', direction: 'asc' } }),
      ]),
      'things',
    );
    expect([...keys].sort()).toEqual(['0e8f2a3c-6d4b-4c1e-9a7f-2b5d8c1e4f6a', '1', '2', '3', '4', '5', '6']);
  });

  it('example ids — ids looked up in another collection are not excluded here, ids looked up in this one are', () => {
    const elsewhere = stage({ kind: 'nearest', target: point(7) }, [], { lookupFrom: { collection: 'other', vector: '' } });
    const here = stage({ kind: 'nearest', target: point(8) }, [], { lookupFrom: { collection: 'things', vector: '' } });
    expect([...exampleIdKeys(stage(undefined, [elsewhere, here]), 'things')]).toEqual(['8']);
  });

  it('example ids — a query without examples excludes nothing', () => {
    expect(exampleIdKeys(stage({ kind: 'nearest', target: vector }), 'things').size).toBe(0);
    expect(exampleIdKeys(stage(undefined), 'things').size).toBe(0);
  });
});
