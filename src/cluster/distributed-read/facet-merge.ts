// `POST C/facet` across shards (docs/api.md §3): a value's count is the sum of its per-shard
// counts, so the merge is exact only from complete per-shard counts. Each shard is asked for
// more values, doubling, until every shard has listed all of its values; past the bound a
// clear 400 rather than a top list that could miss a value.
import { compareFacetHits, type FacetHit } from '../../search/facet.js';
import { notInClusterMode } from './cluster-refusals.js';
import { everyShard } from './fan-out.js';
import type { ShardReader } from './shard-reader.js';

/** The most distinct values per shard a cluster facet reads (the default `max_search_limit`). */
export const maxFacetValuesPerShard = 10_000;

function valueKey(value: unknown): string {
  return `${typeof value}:${String(value)}`;
}

export async function facetAcrossShards(reader: ShardReader, body: Record<string, unknown>): Promise<unknown> {
  const limit = typeof body.limit === 'number' ? body.limit : 10;
  for (let asked = limit; ; asked *= 2) {
    // The first call carries the request's own limit, so a bad one is the shard's 400, as on one node.
    const wanted = asked === limit ? limit : Math.min(asked, maxFacetValuesPerShard);
    const answers = await everyShard<{ hits: FacetHit[] }>(reader, 'POST', '/facet', { ...body, limit: wanted });
    const complete = answers.every((answer) => answer.hits.length < wanted);
    if (!complete) {
      if (wanted >= maxFacetValuesPerShard) throw notInClusterMode(`facet over more than ${maxFacetValuesPerShard} distinct values per shard (key)`);
      continue;
    }
    const totals = new Map<string, FacetHit>();
    for (const answer of answers) {
      for (const hit of answer.hits) {
        const key = valueKey(hit.value);
        const seen = totals.get(key);
        totals.set(key, { value: hit.value, count: (seen?.count ?? 0) + hit.count });
      }
    }
    return { hits: [...totals.values()].sort(compareFacetHits).slice(0, limit) };
  }
}
