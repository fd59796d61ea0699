// `POST C/points/search` and its batch across shards (docs/api.md §3.4): a search is one
// nearest stage with inline vectors, so every shard runs the request as sent, asked for
// `limit + offset` from offset 0, and the lists merge by the vector's score order.
import { notInClusterMode } from './cluster-refusals.js';
import { everyShard } from './fan-out.js';
import type { CollectionShape } from './collection-shape.js';
import { mergeRanked } from './ranked-merge.js';
import type { ShardReader } from './shard-reader.js';
import { render } from './query-merge.js';
import { scoreOrderOf, type ScoreOrder } from '../../search/score-order.js';
import { storedScore, type WirePoint } from './wire-point.js';

type Body = Record<string, unknown>;

function windowOf(search: Body): { limit: number; offset: number } {
  const limit = typeof search.limit === 'number' ? search.limit : typeof search.top === 'number' ? search.top : 10;
  return { limit, offset: typeof search.offset === 'number' ? search.offset : 0 };
}

/** The search as each shard gets it: the first `limit + offset` points, under the field the client used. */
function shardSearch(search: Body): Body {
  const { limit, offset } = windowOf(search);
  const field = typeof search.limit === 'number' ? 'limit' : typeof search.top === 'number' ? 'top' : 'limit';
  return { ...search, [field]: limit + offset, offset: 0 };
}

function orderOf(search: Body, shape: CollectionShape): ScoreOrder {
  const distance = shape.distance(usingOf(search));
  return distance ? scoreOrderOf(distance) : 'larger_better';
}

function usingOf(search: Body): string {
  const vector = search.vector;
  return Array.isArray(vector) ? '' : String((vector as Body).name);
}

/** IDF weights come from the whole collection's statistics: refused (./cluster-refusals.ts). */
function checkSearch(search: Body, shape: CollectionShape): void {
  if (shape.usesIdf(usingOf(search))) throw notInClusterMode('a sparse vector with the idf modifier (its weights need the statistics of the whole collection)');
}

function mergeOne(search: Body, lists: WirePoint[][], shape: CollectionShape): WirePoint[] {
  const { limit, offset } = windowOf(search);
  const stored = lists.map((list) => list.map((point) => ({ ...point, score: storedScore(point) })));
  return mergeRanked(stored, orderOf(search, shape), limit + offset).slice(offset).map(render);
}

export async function searchAcrossShards(reader: ShardReader, body: Body, shape: () => Promise<CollectionShape>): Promise<unknown> {
  checkSearch(body, await shape());
  const answers = await everyShard<WirePoint[]>(reader, 'POST', '/points/search', shardSearch(body));
  return mergeOne(body, answers, await shape());
}

export async function searchBatchAcrossShards(reader: ShardReader, body: Body, shape: () => Promise<CollectionShape>): Promise<unknown> {
  const searches = (body.searches as Body[]) ?? [];
  const resolvedShape = await shape();
  for (const search of searches) checkSearch(search, resolvedShape);
  const answers = await everyShard<WirePoint[][]>(reader, 'POST', '/points/search/batch', { ...body, searches: searches.map(shardSearch) });
  return searches.map((search, position) => mergeOne(search, answers.map((answer) => answer[position]!), resolvedShape));
}
