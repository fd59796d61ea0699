// Query vectors given as point ids (docs/api.md §5.2: nearest by id, recommend, discover,
// context, relevance_feedback examples). A shard only holds some of the points, so the
// coordinator reads each example's vector from whichever shard has it, rewrites the request with
// the vectors inline, and leaves the example ids out of every result with a `has_id` clause in
// the root filter: the root filter applies to every prefetch, as one node's exclusion does
// (src/search/example-ids.ts).
import { parsePointId, pointIdKey } from '../../points/ids.js';
import type { ShardReader } from './shard-reader.js';

type Body = Record<string, unknown>;

function isPointId(value: unknown): boolean {
  return typeof value === 'number' || typeof value === 'bigint' || typeof value === 'string';
}

/** `field` is where the id sits, relative to the stage's `query` (`query.recommend.positive[1]`), as one node names it. */
type IdMapper = (id: unknown, field: string) => unknown;

function mapPairs(context: unknown, field: string, map: IdMapper): unknown {
  const pair = (item: unknown, at: string) => {
    const { positive, negative } = item as Body;
    return { ...(item as Body), positive: mapVector(positive, `${at}.positive`, map), negative: mapVector(negative, `${at}.negative`, map) };
  };
  if (Array.isArray(context)) return context.map((item, position) => pair(item, `${field}[${position}]`));
  return context && typeof context === 'object' ? pair(context, field) : context;
}

function mapVector(value: unknown, field: string, map: IdMapper): unknown {
  return isPointId(value) ? map(value, field) : value;
}

/** The query with `map` applied to every example given as an id. */
export function mapQueryIds(query: unknown, map: IdMapper): unknown {
  if (isPointId(query)) return map(query, 'query');
  if (!query || typeof query !== 'object' || Array.isArray(query)) return query;
  const form = query as Body;
  if ('nearest' in form) return { ...form, nearest: mapVector(form.nearest, 'query', map) };
  if ('recommend' in form) {
    const recommend = form.recommend as Body;
    const list = (items: unknown, field: string) => (Array.isArray(items) ? items.map((item, position) => mapVector(item, `${field}[${position}]`, map)) : items);
    return { ...form, recommend: { ...recommend, positive: list(recommend.positive, 'query.recommend.positive'), negative: list(recommend.negative, 'query.recommend.negative') } };
  }
  if ('discover' in form) {
    const discover = form.discover as Body;
    return { ...form, discover: { ...discover, target: mapVector(discover.target, 'query.discover.target', map), context: mapPairs(discover.context, 'query.discover.context', map) } };
  }
  if ('context' in form) return { ...form, context: mapPairs(form.context, 'query.context', map) };
  if ('relevance_feedback' in form) {
    const feedback = form.relevance_feedback as Body;
    const items = Array.isArray(feedback.feedback)
      ? feedback.feedback.map((item: Body, position) => ({ ...item, example: mapVector(item.example, `query.relevance_feedback.feedback[${position}].example`, map) }))
      : feedback.feedback;
    return { ...form, relevance_feedback: { ...feedback, target: mapVector(feedback.target, 'query.relevance_feedback.target', map), feedback: items } };
  }
  return query;
}

function prefetchesOf(stage: Body): Body[] {
  const prefetch = stage.prefetch;
  if (prefetch === undefined || prefetch === null) return [];
  return Array.isArray(prefetch) ? (prefetch as Body[]) : [prefetch as Body];
}

/** Every example id of the stage tree, with the vector name its stage reads. */
export function exampleIds(stage: Body, into: { id: unknown; using: string }[] = []): { id: unknown; using: string }[] {
  const using = typeof stage.using === 'string' ? stage.using : '';
  mapQueryIds(stage.query, (id) => {
    into.push({ id, using });
    return id;
  });
  for (const child of prefetchesOf(stage)) exampleIds(child, into);
  return into;
}

/** The stage tree with each example id replaced by its vector under the stage's `using`. */
function inlineStage(stage: Body, vectorOf: (id: unknown, using: string) => unknown): Body {
  const using = typeof stage.using === 'string' ? stage.using : '';
  const rewritten: Body = { ...stage };
  if (stage.query !== undefined) rewritten.query = mapQueryIds(stage.query, (id) => vectorOf(id, using));
  if (stage.prefetch !== undefined && stage.prefetch !== null) {
    rewritten.prefetch = Array.isArray(stage.prefetch) ? prefetchesOf(stage).map((child) => inlineStage(child, vectorOf)) : inlineStage(stage.prefetch as Body, vectorOf);
  }
  return rewritten;
}

/** `filter` with one more `must_not` clause, the original clauses left where they were. */
export function withExcludedIds(filter: unknown, ids: readonly unknown[]): unknown {
  const clause = { has_id: ids };
  if (filter === undefined || filter === null) return { must_not: [clause] };
  const original = filter as Body;
  const mustNot = original.must_not;
  const clauses = mustNot === undefined || mustNot === null ? [] : Array.isArray(mustNot) ? mustNot : [mustNot];
  return { ...original, must_not: [...clauses, clause] };
}

export interface StoredRecord {
  id: unknown;
  vector?: unknown;
}

/** The vector a record holds under `using`, as a query may send it inline; undefined when it has none. */
export function vectorUnder(record: StoredRecord, using: string): unknown {
  const vector = record.vector;
  if (Array.isArray(vector)) return using === '' ? vector : undefined;
  if (vector && typeof vector === 'object') return (vector as Body)[using];
  return undefined;
}

export type Resolution = { kind: 'none' } | { kind: 'inlined'; body: Body } | { kind: 'missing'; shard: number };

/**
 * Reads every example's vector from the shard holding it. `missing` names the shard to replay
 * the original request on, so the client gets one node's own error for that example: the shard
 * holding the point when it lacks the vector, else shard 0 (where it is absent too).
 */
export async function inlineExamples(reader: ShardReader, body: Body): Promise<Resolution> {
  const examples = exampleIds(body);
  if (examples.length === 0) return { kind: 'none' };
  const ids = examples.map((example) => example.id);
  const found = new Map<string, { record: StoredRecord; shard: number }>();
  const answers = await Promise.all(
    Array.from({ length: reader.shardCount }, (_, shard) => reader.call<StoredRecord[]>(shard, 'POST', '/points', { ids, with_payload: false, with_vector: true })),
  );
  answers.forEach((records, shard) => {
    for (const record of records) found.set(pointIdKey(parsePointId(record.id)), { record, shard });
  });
  for (const example of examples) {
    const held = found.get(pointIdKey(parsePointId(example.id)));
    if (!held) return { kind: 'missing', shard: 0 };
    if (vectorUnder(held.record, example.using) === undefined) return { kind: 'missing', shard: held.shard };
  }
  const inlined = inlineStage(body, (id, using) => vectorUnder(found.get(pointIdKey(parsePointId(id)))!.record, using));
  inlined.filter = withExcludedIds(body.filter, ids);
  return { kind: 'inlined', body: inlined };
}
