// Exact distributed reads: one collection-scoped REST read answered across shards exactly as one
// node holding all the points would (docs/architecture.md §13+, "distributed reads"). Each route
// has its merge; what cannot be merged exactly is a 400 naming it (./cluster-refusals.ts).
//
// Errors: a shard's 4xx is answered once, as is. When the coordinator rewrote the request
// (examples inlined, prefetches split into shard requests), a 4xx is answered in one node's
// words by replaying the request, as rewritten, on shard 0: every shard validates the same way.
import { isQuiverError } from '../../errors.js';
import { notInClusterMode } from './cluster-refusals.js';
import { inlineExamples } from './example-vectors.js';
import { facetAcrossShards } from './facet-merge.js';
import { matrixAcrossShards, offsetsToPairs } from './matrix-merge.js';
import { refuseClientStatistics } from './idf-statistics.js';
import { hasLookups, resolveLookups, type DistributedReadOptions } from './lookup-examples.js';
import { countPoints, retrieveMany, retrieveOne, scrollPoints } from './point-reads.js';
import { QueryMerge } from './query-merge.js';
import { searchAcrossShards, searchBatchAcrossShards } from './search-merge.js';
import { prefetchesOf } from './stage-forms.js';
import type { ShardReader } from './shard-reader.js';

export type { ShardReader } from './shard-reader.js';
export type { DistributedReadOptions } from './lookup-examples.js';

type Body = Record<string, unknown>;

const postPaths = new Set([
  '/points',
  '/points/count',
  '/points/scroll',
  '/points/search',
  '/points/search/batch',
  '/points/query',
  '/points/query/batch',
  '/facet',
  '/points/search/matrix/pairs',
  '/points/search/matrix/offsets',
]);

/** `/points/{id}` with one path segment after it. */
function isPointPath(path: string): boolean {
  return /^\/points\/[^/]+$/.test(path) && !postPaths.has(path);
}

function withoutQueryString(path: string): string {
  const mark = path.indexOf('?');
  return mark < 0 ? path : path.slice(0, mark);
}

export function isDistributedReadPath(method: string, path: string): boolean {
  const bare = withoutQueryString(path);
  if (method === 'GET') return isPointPath(bare);
  return method === 'POST' && postPaths.has(bare);
}

/** Runs `run`; a 4xx is replaced by what shard 0 answers to `replay` (one node's wording), when it fails too. */
async function inOneNodesWords<Result>(reader: ShardReader, path: string, replay: () => unknown, run: () => Promise<Result>, replayShard = 0): Promise<Result> {
  try {
    return await run();
  } catch (error) {
    if (!isQuiverError(error) || error.status >= 500) throw error;
    try {
      await reader.call(replayShard, 'POST', path, replay());
    } catch (replayed) {
      if (isQuiverError(replayed) && replayed.status < 500) throw replayed;
    }
    throw error;
  }
}

/** One query request: examples inlined (or one node's error for a missing one), then the merge. */
async function queryOne(reader: ShardReader, merge: QueryMerge, original: Body, options: DistributedReadOptions | undefined, field = ''): Promise<{ points: unknown[] }> {
  // Examples from other collections first: their 404s and refusals are answered as they are.
  const body = await resolveLookups(original, options, field);
  // A malformed example id is refused by the shards' retrieve: answered in the query's words.
  const resolution = await inOneNodesWords(reader, '/points/query', () => body, () => inlineExamples(reader, body));
  if (resolution.kind === 'missing') {
    // The shard without the point (or without its vector) answers one node's error.
    await reader.call(resolution.shard, 'POST', '/points/query', body);
    throw notInClusterMode('an example point that no shard could resolve');
  }
  const rewritten = resolution.kind === 'inlined' ? resolution.body : body;
  const merged = inOneNodesWords(reader, '/points/query', () => rewritten, () => merge.run(rewritten));
  if (prefetchesOf(rewritten).length === 0) return merged;
  // A plan's own refusals (a query needed to merge prefetches, order_by with score_threshold, ...)
  // are one node's 400s that no split request would raise: shard 0 runs the whole request
  // alongside the merge, and its 4xx is the answer.
  const [validation, answer] = await Promise.allSettled([reader.call(0, 'POST', '/points/query', rewritten), merged]);
  if (validation.status === 'rejected' && isQuiverError(validation.reason) && validation.reason.status < 500) throw validation.reason;
  if (answer.status === 'rejected') throw answer.reason;
  return answer.value;
}

async function queryBatch(reader: ShardReader, merge: QueryMerge, body: Body, options: DistributedReadOptions | undefined): Promise<unknown> {
  const searches = (body.searches as Body[]) ?? [];
  const run = () => Promise.all(searches.map((search, position) => queryOne(reader, merge, search, options, `searches[${position}]`)));
  // A lookup_from names a collection no shard holds: its errors are the answer, not a replay's.
  if (searches.some(hasLookups)) return run();
  return inOneNodesWords(reader, '/points/query/batch', () => body, run);
}

/** Answers one collection-scoped REST read across shards exactly as one node holding all the
 * points would (same ids, order, scores). `path` is collection-relative, e.g. '/points/search'.
 * `options.readerOf` gives other collections' shards, for `lookup_from` (without it, a 400). */
export async function distributedRead(reader: ShardReader, method: 'GET' | 'POST', path: string, body: unknown, options?: DistributedReadOptions): Promise<unknown> {
  const bare = withoutQueryString(path);
  const request = (body ?? {}) as Body;
  if (method === 'GET' && isPointPath(bare)) return retrieveOne(reader, path);
  if (method !== 'POST' || !postPaths.has(bare)) throw notInClusterMode(`${method} ${bare} as a distributed read`);
  // The coordinator's own option to its shards: forwarded from a client, it would change answers.
  refuseClientStatistics(request);
  const merge = new QueryMerge(reader);
  const shape = () => merge.shape();
  switch (bare) {
    case '/points':
      return retrieveMany(reader, request);
    case '/points/count':
      return countPoints(reader, body);
    case '/points/scroll':
      return scrollPoints(reader, request);
    case '/points/search':
      return searchAcrossShards(reader, request, shape);
    case '/points/search/batch':
      return searchBatchAcrossShards(reader, request, shape);
    case '/points/query':
      return queryOne(reader, merge, request, options);
    case '/points/query/batch':
      return queryBatch(reader, merge, request, options);
    case '/facet':
      return facetAcrossShards(reader, request);
    case '/points/search/matrix/offsets':
      return matrixAcrossShards(reader, request, await shape());
    default:
      return offsetsToPairs(await matrixAcrossShards(reader, request, await shape()));
  }
}
