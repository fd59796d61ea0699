// The search matrix across shards (`POST C/points/search/matrix/pairs|offsets`, docs/api.md §3,
// docs/architecture.md §13). One node's sample is deterministic (src/search/search-matrix.ts):
// the `sample` candidates (accepted by the filter, holding the vector) whose id keys rank lowest
// by sampleRank. The global lowest `sample` are among the union of every shard's own lowest
// `sample`, so:
// 1. every shard answers the request as sent (its 4xx is the answer); its `ids` are its sample
//    (a shard with a single candidate answers none: it is found with a two-row scroll);
// 2. the coordinator ranks the union with the same sampleRank and keeps the lowest `sample`, in
//    id order: one node's sample;
// 3. every sampled point's vector is read, and each shard searches it exactly among the sampled
//    points it holds (`limit + 1`, as one node asks, since a point finds itself); the rows merge
//    by score and the point itself is dropped: one node's neighbours and scores.
import { parsePointId, pointIdKey, type PointId } from '../../points/ids.js';
import { scoreOrderOf } from '../../search/score-order.js';
import { defaultMatrixLimit, defaultMatrixSample } from '../../search/search-matrix-schema.js';
import { sampleRank } from '../../search/search-matrix.js';
import { chunksOf } from './candidate-chunks.js';
import type { CollectionShape } from './collection-shape.js';
import { everyShard } from './fan-out.js';
import { vectorOf } from './mmr-merge.js';
import { mergeRanked } from './ranked-merge.js';
import type { ShardReader } from './shard-reader.js';
import { byId, keyOf, storedScore, wireScore, type WirePoint } from './wire-point.js';

type Body = Record<string, unknown>;

interface Offsets {
  offsets_row: number[];
  offsets_col: number[];
  scores: number[];
  ids: PointId[];
}

/** Sampled points searched per shard request: well under the default `max_batch_searches`. */
const searchesPerRequest = 256;

/** The sample one node draws, from the shards' own samples. */
async function globalSample(reader: ShardReader, body: Body, sample: number, using: string): Promise<WirePoint[]> {
  const answers = await everyShard<Offsets>(reader, 'POST', '/points/search/matrix/offsets', body);
  const candidates: WirePoint[] = [];
  for (let shard = 0; shard < answers.length; shard++) {
    const ids = answers[shard]!.ids;
    if (ids.length > 0) {
      for (const id of ids) candidates.push({ id: parsePointId(id) });
      continue;
    }
    // Fewer than two candidates answer no sample: a single one still counts across shards.
    const filter = { must: [...(body.filter === undefined || body.filter === null ? [] : [body.filter]), { has_vector: using }] };
    const single = await reader.call<{ points: WirePoint[] }>(shard, 'POST', '/points/scroll', { filter, limit: 2, with_payload: false, with_vector: false });
    if (single.points.length === 1) candidates.push({ id: parsePointId(single.points[0]!.id) });
  }
  return candidates
    .map((point) => ({ point, rank: sampleRank(pointIdKey(point.id)) }))
    .sort((left, right) => left.rank - right.rank)
    .slice(0, sample)
    .map((entry) => entry.point)
    .sort(byId);
}

/** The sampled points' vectors under `using`, read from the shards holding them. */
async function sampleVectors(reader: ShardReader, sampled: readonly WirePoint[], using: string): Promise<Map<string, number[]>> {
  const vectors = new Map<string, number[]>();
  for (const chunk of chunksOf(sampled)) {
    const answers = await everyShard<WirePoint[]>(reader, 'POST', '/points', { ids: chunk.map((point) => point.id), with_payload: false, with_vector: using === '' ? true : [using] });
    for (const record of answers.flat()) {
      const vector = vectorOf(record, using);
      if (vector) vectors.set(keyOf(record), vector);
    }
  }
  return vectors;
}

/** The matrix as offsets: one node's sample, and each point's `limit` nearest among it. */
export async function matrixAcrossShards(reader: ShardReader, body: Body, shape: CollectionShape): Promise<Offsets> {
  const sample = typeof body.sample === 'number' ? body.sample : defaultMatrixSample;
  const limit = typeof body.limit === 'number' ? body.limit : defaultMatrixLimit;
  const using = typeof body.using === 'string' ? body.using : '';
  const sampled = await globalSample(reader, body, sample, using);
  const offsets: Offsets = { offsets_row: [], offsets_col: [], scores: [], ids: [] };
  if (sampled.length < 2) return offsets;
  offsets.ids = sampled.map((point) => point.id);
  const position = new Map(sampled.map((point, index) => [keyOf(point), index]));
  const vectors = await sampleVectors(reader, sampled, using);
  const order = scoreOrderOf(shape.distance(using) ?? 'Cosine');
  const onlySample = { must: [{ has_id: sampled.map((point) => point.id) }] };
  const rows = sampled.map((point, index) => ({ index, vector: vectors.get(keyOf(point)) })).filter((row) => row.vector !== undefined);
  for (let start = 0; start < rows.length; start += searchesPerRequest) {
    const block = rows.slice(start, start + searchesPerRequest);
    const searches = block.map((row) => ({ vector: using === '' ? row.vector : { name: using, vector: row.vector }, filter: onlySample, limit: limit + 1, params: { exact: true } }));
    const answers = await everyShard<WirePoint[][]>(reader, 'POST', '/points/search/batch', { searches });
    block.forEach((row, number) => {
      const lists = answers.map((answer) => answer[number]!.map((point) => ({ ...point, score: storedScore(point) })));
      let kept = 0;
      for (const neighbour of mergeRanked(lists, order, limit + 1)) {
        const column = position.get(keyOf(neighbour));
        if (column === undefined || column === row.index || kept === limit) continue;
        offsets.offsets_row.push(row.index);
        offsets.offsets_col.push(column);
        offsets.scores.push(wireScore(neighbour.score!));
        kept++;
      }
    });
  }
  return offsets;
}

/** The same matrix as pairs. */
export function offsetsToPairs(offsets: Offsets): { pairs: { a: PointId; b: PointId; score: number }[] } {
  return {
    pairs: offsets.offsets_row.map((row, index) => ({ a: offsets.ids[row]!, b: offsets.ids[offsets.offsets_col[index]!]!, score: offsets.scores[index]! })),
  };
}
