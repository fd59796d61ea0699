// The strict-mode checks on their own (docs/api.md §4.5): inactive unless enabled, each limit
// named when exceeded, and the per-minute budgets refilled evenly.
import { describe, expect, it } from 'vitest';
import type { StrictModeConfig } from './collection-request-schemas.js';
import { StrictMode, type FilterSummary } from './strict-mode.js';

const summary: FilterSummary = { conditions: 3, largestCondition: { size: 5, field: 'tags' }, unindexed: [{ field: 'city', types: ['keyword'] }] };

function strictWith(config: StrictModeConfig, now = () => 0): StrictMode {
  return new StrictMode(() => config, now);
}

describe('strict mode checks', () => {
  it('strict mode — nothing is checked unless enabled is true', () => {
    for (const config of [{ max_query_limit: 1 }, { enabled: false, max_query_limit: 1, read_rate_limit: 1 }]) {
      const strict = strictWith(config);
      expect(() => strict.checkLimit(100)).not.toThrow();
      expect(() => strict.checkFilter(() => summary, 'retrieve')).not.toThrow();
      strict.checkRate('read');
      expect(() => strict.checkRate('read')).not.toThrow();
    }
  });

  it('strict mode — each exceeded limit is a 400 naming it', () => {
    const strict = strictWith({ enabled: true, max_query_limit: 10, search_max_hnsw_ef: 8, filter_max_conditions: 2, upsert_max_batchsize: 4 });
    expect(() => strict.checkLimit(11)).toThrow('Limit exceeded 11 > 10 for "limit"');
    expect(() => strict.checkSearch({ limit: 5, exact: false, ef: 9 })).toThrow('for "hnsw_ef"');
    expect(() => strict.checkFilter(() => summary, 'retrieve')).toThrow('Limit exceeded 3 > 2 for "conditions"');
    expect(() => strict.checkWrite({ batchSize: 5, pointsAfter: 5, vectorBytesAfter: 0 })).toThrow('for "upsert"');
    expect(() => strict.checkWrite({ batchSize: 4, pointsAfter: 5, vectorBytesAfter: 0 })).not.toThrow();
  });

  it('strict mode — unindexed filtering is refused only for the purpose that forbids it', () => {
    const strict = strictWith({ enabled: true, unindexed_filtering_retrieve: true, unindexed_filtering_update: false });
    expect(() => strict.checkFilter(() => summary, 'retrieve')).not.toThrow();
    expect(() => strict.checkFilter(() => summary, 'update')).toThrow('Index required but not found for "city" of one of the following types: [keyword]');
  });

  it('strict mode — a rate budget refills evenly over the minute and answers 429 with the wait', () => {
    let now = 0;
    const strict = strictWith({ enabled: true, write_rate_limit: 2 }, () => now);
    strict.checkRate('write');
    strict.checkRate('write');
    expect(() => strict.checkRate('write')).toThrow(expect.objectContaining({ status: 429, message: expect.stringContaining('retry after 30 s') }));
    now = 30_000;
    expect(() => strict.checkRate('write')).not.toThrow();
    expect(() => strict.checkRate('write')).toThrow(expect.objectContaining({ status: 429 }));
  });
});
