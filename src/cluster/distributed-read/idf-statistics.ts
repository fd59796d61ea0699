// Sparse vectors with `modifier: "idf"` across shards (docs/architecture.md §13): a query's
// weights need the whole collection's statistics (src/search/idf.ts: N and each index's document
// frequency), which no shard holds. The coordinator reads each shard's counts for the query's
// indices (`POST C/points/sparse-statistics`, internal), sums them (every point lives on one
// shard), and sends the sums with each shard request as `cluster_idf_statistics`, which the
// shard's query path uses instead of its own counts: every shard then weighs the query as one
// node holding all the points would, so the scores, and therefore the merge, are one node's.
import { QuiverError } from '../../errors.js';
import { parseSparseInput } from '../../points/sparse-vector.js';
import type { CollectionShape } from './collection-shape.js';
import { everyShard } from './fan-out.js';
import type { ShardReader } from './shard-reader.js';

type Body = Record<string, unknown>;

export interface WireIdfStatistics {
  document_count: number;
  indices: number[];
  document_frequencies: number[];
}

export type IdfStatisticsByName = Record<string, WireIdfStatistics>;

/** A client may not send the coordinator's own option: refused in the words a shard uses for it. */
export function refuseClientStatistics(body: Body): void {
  const refuse = (field: string) => new QuiverError('invalid_input', `Validation error in body ${field}: set only by a cluster coordinator`);
  if (body.cluster_idf_statistics !== undefined) throw refuse('cluster_idf_statistics');
  const searches = Array.isArray(body.searches) ? (body.searches as Body[]) : [];
  searches.forEach((search, position) => {
    if (search && typeof search === 'object' && search.cluster_idf_statistics !== undefined) throw refuse(`searches[${position}].cluster_idf_statistics`);
  });
}

/** The indices of a sparse query as one node parses it (a BM25 Document included); none when malformed (the shards refuse it). */
export function sparseQueryIndices(value: unknown): number[] {
  try {
    return [...parseSparseInput(value, 'query', 'query').indices];
  } catch {
    return [];
  }
}

/** Gathers indices per IDF-weighted vector name, then reads and sums the shards' statistics for them. */
export class IdfStatisticsGathering {
  private readonly wanted = new Map<string, Set<number>>();

  constructor(private readonly shape: CollectionShape) {}

  /** Notes a stage scored by `using` with the sparse `query` (ignored unless `using` is IDF-weighted). */
  add(using: string, query: unknown): void {
    if (!this.shape.usesIdf(using)) return;
    const indices = this.wanted.get(using) ?? new Set<number>();
    for (const index of sparseQueryIndices(query)) indices.add(index);
    this.wanted.set(using, indices);
  }

  /** The summed statistics per name, or undefined when no stage needs them. */
  async read(reader: ShardReader): Promise<IdfStatisticsByName | undefined> {
    if (this.wanted.size === 0) return undefined;
    const statistics: IdfStatisticsByName = {};
    for (const [using, wanted] of this.wanted) {
      const indices = [...wanted].sort((left, right) => left - right);
      const answers = await everyShard<{ document_count: number; document_frequencies: number[] }>(reader, 'POST', '/points/sparse-statistics', { using, indices });
      statistics[using] = {
        document_count: answers.reduce((total, answer) => total + answer.document_count, 0),
        indices,
        document_frequencies: indices.map((_, position) => answers.reduce((total, answer) => total + answer.document_frequencies[position]!, 0)),
      };
    }
    return statistics;
  }
}

/** The sparse target of a query stage's `query`: `nearest`'s, or the query itself. */
export function nearestTarget(query: unknown): unknown {
  if (query && typeof query === 'object' && !Array.isArray(query) && 'nearest' in query) return (query as Body).nearest;
  return query;
}
