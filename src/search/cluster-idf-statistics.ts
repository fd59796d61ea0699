// The `cluster_idf_statistics` option of a search or query request (docs/architecture.md §13):
// a cluster coordinator's whole-collection IDF statistics, turned into the plan's form. Only a
// coordinator may send it (src/http/cluster-options.ts refuses it from clients).
import { errors } from '../errors.js';
import type { IdfStatistics } from './idf.js';

interface StatisticsInput {
  document_count: number;
  indices: number[];
  document_frequencies: number[];
}

export function idfStatisticsOf(input: Record<string, StatisticsInput> | undefined, field: string): ReadonlyMap<string, IdfStatistics> | undefined {
  if (input === undefined) return undefined;
  const statistics = new Map<string, IdfStatistics>();
  for (const [using, entry] of Object.entries(input)) {
    if (entry.indices.length !== entry.document_frequencies.length) {
      throw errors.invalidBodyField(`${field}.${using}.document_frequencies`, 'must hold one count per index');
    }
    statistics.set(using, { documentCount: entry.document_count, documentFrequencies: new Map(entry.indices.map((index, position) => [index, entry.document_frequencies[position]!])) });
  }
  return statistics;
}
