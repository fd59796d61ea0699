// A formula stage (docs/api.md §5.5) over prefetches, at the coordinator: the formula is parsed
// and evaluated by src/search/formula.ts exactly as one node evaluates it, on the children's
// merged scores (`$score[i]`), the candidates' payloads read from their shards, and each
// condition answered by the shards' filter modules (`has_id` + the condition).
import { evaluateFormula, parseFormula } from '../../search/formula.js';
import { TopK } from '../../search/top-k.js';
import type { Payload } from '../../points/selectors.js';
import { chunksOf } from './candidate-chunks.js';
import { everyShard } from './fan-out.js';
import type { ShardReader } from './shard-reader.js';
import { keyOf, type WirePoint } from './wire-point.js';

type Body = Record<string, unknown>;

interface ChildOutput {
  points: WirePoint[];
}

async function keysMatching(reader: ShardReader, candidates: readonly WirePoint[], condition: unknown): Promise<Set<string>> {
  const matching = new Set<string>();
  for (const chunk of chunksOf(candidates)) {
    const answers = await everyShard<{ points: WirePoint[] }>(reader, 'POST', '/points/query', {
      filter: { must: [{ has_id: chunk.map((point) => point.id) }, { must: [condition] }] },
      limit: chunk.length,
    });
    for (const point of answers.flatMap((answer) => answer.points)) matching.add(keyOf(point));
  }
  return matching;
}

/** The best `limit` candidates by the formula's value, larger first, ties in candidate order. */
export async function formulaAcrossShards(
  reader: ShardReader,
  query: Body,
  children: readonly ChildOutput[],
  candidates: readonly WirePoint[],
  payloads: ReadonlyMap<string, WirePoint>,
  limit: number,
): Promise<WirePoint[]> {
  const formula = parseFormula(query.formula, query.defaults as Record<string, unknown> | null | undefined, 'query');
  const scores = children.map((child) => new Map(child.points.map((point) => [keyOf(point), point.score ?? 0])));
  const matching = await Promise.all(formula.conditions.map((condition) => keysMatching(reader, candidates, condition)));
  const selector = new TopK(limit, 'larger_better');
  candidates.forEach((point, position) => {
    const key = keyOf(point);
    const value = evaluateFormula(
      formula,
      { score: (index) => scores[index]?.get(key), payload: (payloads.get(key)?.payload ?? {}) as Payload, matches: (index) => matching[index]!.has(key) },
      'query.formula',
    );
    selector.offer(position, value);
  });
  return selector.drain().map((selected) => ({ id: candidates[selected.position]!.id, version: candidates[selected.position]!.version, score: selected.score }));
}
