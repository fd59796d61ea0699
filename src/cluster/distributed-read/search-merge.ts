// `POST C/points/search` and its batch across shards (docs/api.md §3.4): a search is one
// nearest stage with inline vectors, so every shard runs the request as sent, asked for
// `limit + offset` from offset 0, and the lists merge by the vector's score order. A sparse
// vector with the IDF modifier is weighed by the whole collection's statistics (./idf-statistics.ts).
import { everyShard } from './fan-out.js';
import { IdfStatisticsGathering, type IdfStatisticsByName } from './idf-statistics.js';
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
function shardSearch(search: Body, statistics: IdfStatisticsByName | undefined): Body {
  const { limit, offset } = windowOf(search);
  const field = typeof search.limit === 'number' ? 'limit' : typeof search.top === 'number' ? 'top' : 'limit';
  const sent: Body = { ...search, [field]: limit + offset, offset: 0 };
  if (statistics?.[usingOf(search)]) sent.cluster_idf_statistics = { [usingOf(search)]: statistics[usingOf(search)] };
  return sent;
}

function orderOf(search: Body, shape: CollectionShape): ScoreOrder {
  const distance = shape.distance(usingOf(search));
  return distance ? scoreOrderOf(distance) : 'larger_better';
}

function usingOf(search: Body): string {
  const vector = search.vector;
  return Array.isArray(vector) || !vector || typeof vector !== 'object' ? '' : String((vector as Body).name);
}

/** The whole collection's IDF statistics for the searches that need them. */
function statisticsFor(reader: ShardReader, searches: readonly Body[], shape: CollectionShape): Promise<IdfStatisticsByName | undefined> {
  const gathering = new IdfStatisticsGathering(shape);
  for (const search of searches) {
    if (!search || typeof search !== 'object') continue;
    const vector = search.vector;
    if (vector && typeof vector === 'object' && !Array.isArray(vector)) gathering.add(usingOf(search), (vector as Body).vector);
  }
  return gathering.read(reader);
}

function mergeOne(search: Body, lists: WirePoint[][], shape: CollectionShape): WirePoint[] {
  const { limit, offset } = windowOf(search);
  const stored = lists.map((list) => list.map((point) => ({ ...point, score: storedScore(point) })));
  return mergeRanked(stored, orderOf(search, shape), limit + offset).slice(offset).map(render);
}

export async function searchAcrossShards(reader: ShardReader, body: Body, shape: () => Promise<CollectionShape>): Promise<unknown> {
  const statistics = await statisticsFor(reader, [body], await shape());
  const answers = await everyShard<WirePoint[]>(reader, 'POST', '/points/search', shardSearch(body, statistics));
  return mergeOne(body, answers, await shape());
}

export async function searchBatchAcrossShards(reader: ShardReader, body: Body, shape: () => Promise<CollectionShape>): Promise<unknown> {
  const searches = (body.searches as Body[]) ?? [];
  const resolvedShape = await shape();
  const statistics = await statisticsFor(reader, searches, resolvedShape);
  const answers = await everyShard<WirePoint[][]>(reader, 'POST', '/points/search/batch', { ...body, searches: searches.map((search) => shardSearch(search, statistics)) });
  return searches.map((search, position) => mergeOne(search, answers.map((answer) => answer[position]!), resolvedShape));
}
