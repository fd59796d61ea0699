// `lookup_from` across shards (docs/architecture.md §13): a stage's examples given as ids are
// points of another collection, read (with their vectors) from THAT collection's shards through
// the reader the cluster door passes (`readerOf`), and inlined as vectors under the stage's
// `lookup_from.vector`; the stage then runs as any stage with inline examples, without
// `lookup_from` (no shard holds the other collection). As on one node, the named collection must
// exist even when no example is an id, and ids looked up elsewhere are not left out of results
// unless the collection looked up is the queried one.
import { errors } from '../../errors.js';
import { formatPointId, parsePointId, pointIdKey } from '../../points/ids.js';
import { notInClusterMode } from './cluster-refusals.js';
import { mapQueryIds, vectorUnder, withExcludedIds, type StoredRecord } from './example-vectors.js';
import { everyShard } from './fan-out.js';
import type { ShardReader } from './shard-reader.js';
import { prefetchesOf } from './stage-forms.js';

type Body = Record<string, unknown>;

export interface DistributedReadOptions {
  /** The shards of another collection, for `lookup_from`; rejects with one node's 404 when it does not exist. */
  readerOf?(collection: string): Promise<ShardReader>;
  /** The queried collection's name: a `lookup_from` naming it leaves its example ids out of results, as one node does. */
  collection?: string;
}

interface Lookup {
  collection: string;
  vector: string;
}

interface LookupStage {
  stage: Body;
  lookup: Lookup;
  ids: unknown[];
}

function lookupOf(stage: Body): Lookup | undefined {
  const lookup = stage.lookup_from as { collection?: unknown; vector?: unknown } | null | undefined;
  if (lookup === undefined || lookup === null) return undefined;
  return { collection: String(lookup.collection), vector: typeof lookup.vector === 'string' ? lookup.vector : '' };
}

/** Every stage with `lookup_from`, with the ids its query names. */
function lookupStages(stage: Body, into: LookupStage[] = []): LookupStage[] {
  if (!stage || typeof stage !== 'object') return into;
  const lookup = lookupOf(stage);
  if (lookup) {
    const ids: unknown[] = [];
    mapQueryIds(stage.query, (id) => {
      ids.push(id);
      return id;
    });
    into.push({ stage, lookup, ids });
  }
  for (const child of prefetchesOf(stage)) lookupStages(child, into);
  return into;
}

/** Whether any stage of the query names `lookup_from`. */
export function hasLookups(body: unknown): boolean {
  return body !== null && typeof body === 'object' && !Array.isArray(body) && lookupStages(body as Body).length > 0;
}

/** The records of `ids` in the collection `reader` reads, by id key. */
async function recordsOf(reader: ShardReader, ids: readonly unknown[]): Promise<Map<string, StoredRecord>> {
  const found = new Map<string, StoredRecord>();
  if (ids.length === 0) return found;
  const answers = await everyShard<StoredRecord[]>(reader, 'POST', '/points', { ids, with_payload: false, with_vector: true });
  for (const records of answers) for (const record of records) found.set(pointIdKey(parsePointId(record.id)), record);
  return found;
}

type VectorOf = (stage: Body, id: unknown, field: string) => unknown;

/** `field` joined under `prefix` ('' at the root), as one node writes field paths. */
function under(prefix: string, field: string): string {
  return prefix === '' ? field : `${prefix}.${field}`;
}

/** The stage tree with every `lookup_from` stage's ids inlined and `lookup_from` dropped; `prefix` is the stage's field path. */
function rewrite(stage: Body, prefix: string, vectorOf: VectorOf): Body {
  const rewritten: Body = { ...stage };
  if (lookupOf(stage)) {
    rewritten.query = mapQueryIds(stage.query, (id, field) => vectorOf(stage, id, under(prefix, field)));
    delete rewritten.lookup_from;
  }
  if (stage.prefetch !== undefined && stage.prefetch !== null) {
    const child = (body: Body, position: number) => rewrite(body, `${under(prefix, 'prefetch')}[${position}]`, vectorOf);
    rewritten.prefetch = Array.isArray(stage.prefetch) ? prefetchesOf(stage).map(child) : child(stage.prefetch as Body, 0);
  }
  return rewritten;
}

/**
 * Resolves every `lookup_from` of a query through the other collections' shards. Without
 * `readerOf` a query naming one is refused (./cluster-refusals.ts). The body is returned as is
 * when it has none.
 */
export async function resolveLookups(body: Body, options: DistributedReadOptions | undefined, field = ''): Promise<Body> {
  const stages = lookupStages(body);
  if (stages.length === 0) return body;
  if (!options?.readerOf) throw notInClusterMode('lookup_from (examples from another collection)');
  const collections = [...new Set(stages.map((entry) => entry.lookup.collection))];
  const records = new Map<string, Map<string, StoredRecord>>();
  // Every named collection must exist, whatever the query form (one node's 404 first).
  const readers = await Promise.all(collections.map((name) => options.readerOf!(name)));
  await Promise.all(
    collections.map(async (name, position) => {
      const ids = stages.filter((entry) => entry.lookup.collection === name).flatMap((entry) => entry.ids);
      records.set(name, await recordsOf(readers[position]!, ids));
    }),
  );
  const excluded: unknown[] = [];
  const rewritten = rewrite(body, field, (stage, id, at) => {
    const lookup = lookupOf(stage)!;
    const key = pointIdKey(parsePointId(id));
    const record = records.get(lookup.collection)!.get(key);
    if (!record) throw errors.pointNotFound(formatPointId(parsePointId(id)));
    const vector = vectorUnder(record, lookup.vector);
    if (vector === undefined) throw errors.invalidField(at, `point ${formatPointId(parsePointId(id))} has no vector ${JSON.stringify(lookup.vector)}`);
    if (lookup.collection === options.collection) excluded.push(id);
    return vector;
  });
  if (excluded.length > 0) rewritten.filter = withExcludedIds(body.filter, excluded);
  return rewritten;
}
