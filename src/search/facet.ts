// Facet counts (docs/api.md §3): how many of the points a filter accepts hold each value of an
// indexed keyword, integer, bool or uuid field. A point counts once per distinct value it holds,
// however often the value repeats in its payload. Hits come by count descending, then value
// ascending, the order Qdrant gives them.
//
// `exact: false` asks Qdrant for a cheaper estimate; here both forms count exactly (the walk below
// is already bounded by the points holding the field), so an "approximate" answer is never less
// correct than an exact one.
import type { Collection } from '../engine/collection.js';
import { errors } from '../errors.js';
import { filtersOf, requestAllowedSlots } from '../filter/collection-filters.js';
import type { FieldIndex } from '../payload/indexes/field-indexes.js';
import { parsePath, PathSyntaxError, valuesAt, type PayloadPath } from '../payload/path.js';
import { integerKey } from '../payload/values.js';
import { canonicalUuid } from '../points/ids.js';
import type { FacetRequest } from './facet-schema.js';

export type FacetValue = string | number | bigint | boolean;

export interface FacetHit {
  value: FacetValue;
  count: number;
}

export interface FacetResponse {
  hits: FacetHit[];
}

/** The index kinds that map a value to its points, which is what faceting needs. */
type FacetKind = 'keyword' | 'integer' | 'bool' | 'uuid';

function facetKindOf(field: FieldIndex | undefined): FacetKind | undefined {
  if (!field) return undefined;
  const type = field.definition.type;
  if (type === 'keyword' || type === 'bool' || type === 'uuid') return type;
  // An integer index built with `lookup: false` keeps only ranges: no value -> points map.
  if (type === 'integer' && field.definition.params?.lookup !== false) return 'integer';
  return undefined;
}

function parseKey(key: string): PayloadPath {
  try {
    return parsePath(key);
  } catch (error) {
    if (error instanceof PathSyntaxError) throw errors.invalidField('key', error.message);
    throw error;
  }
}

/**
 * The value a payload value stands for under a facet kind, with a map key that is the same for
 * equal values (5 and 5.0; a UUID in any accepted form), or undefined when the index would not
 * hold it.
 */
function facetValueOf(kind: FacetKind, raw: unknown): { key: string; value: FacetValue } | undefined {
  switch (kind) {
    case 'keyword':
      return typeof raw === 'string' ? { key: raw, value: raw } : undefined;
    case 'uuid': {
      const uuid = typeof raw === 'string' ? canonicalUuid(raw) : undefined;
      return uuid === undefined ? undefined : { key: uuid, value: uuid };
    }
    case 'bool':
      return typeof raw === 'boolean' ? { key: String(raw), value: raw } : undefined;
    case 'integer': {
      if (typeof raw === 'boolean') return undefined;
      const key = integerKey(raw);
      if (key === undefined) return undefined;
      const number = Number(key);
      // Beyond 2^53 the value stays a bigint so it prints back exactly (docs/api.md §2).
      return { key, value: Number.isSafeInteger(number) ? number : BigInt(key) };
    }
  }
}

/** Value order within one field: numbers numerically, strings by code point, false before true. */
export function compareFacetValues(left: FacetValue, right: FacetValue): number {
  if (typeof left === 'string' && typeof right === 'string') {
    // Code point order (UTF-8 byte order), not UTF-16 unit order, as Rust compares strings.
    return Buffer.compare(Buffer.from(left, 'utf8'), Buffer.from(right, 'utf8'));
  }
  if (typeof left === 'boolean' && typeof right === 'boolean') return Number(left) - Number(right);
  if ((typeof left === 'number' || typeof left === 'bigint') && (typeof right === 'number' || typeof right === 'bigint')) {
    if (typeof left === 'number' && typeof right === 'number') return left - right;
    const leftBig = BigInt(left);
    const rightBig = BigInt(right);
    return leftBig < rightBig ? -1 : leftBig > rightBig ? 1 : 0;
  }
  // Mixed kinds cannot come from one field; keep the order total anyway.
  return typeof left < typeof right ? -1 : typeof left > typeof right ? 1 : 0;
}

/** Count descending, then value ascending. */
export function compareFacetHits(left: FacetHit, right: FacetHit): number {
  return right.count - left.count || compareFacetValues(left.value, right.value);
}

export function facetCounts(collection: Collection, request: FacetRequest): FacetResponse {
  collection.strictMode.checkLimit(request.limit);
  collection.assertOperable();
  const path = parseKey(request.key);
  const filters = filtersOf(collection);
  const field = filters.indexes.forPath(path.text);
  const kind = facetKindOf(field);
  if (!field || !kind) {
    throw errors.invalidField(
      'key',
      `No appropriate index for faceting: \`${request.key}\`. Please create one to facet on this field (a keyword, integer with lookup, bool or uuid index)`,
    );
  }
  const allowed = requestAllowedSlots(collection, request.filter);

  const counts = new Map<string, FacetHit>();
  const seen = new Set<string>();
  // The index keeps which slots hold a value of the field: only those can add to a count.
  for (const slot of field.slots) {
    if (allowed && !allowed.has(slot)) continue;
    const entry = collection.pointBySlot(slot);
    if (!entry) continue;
    seen.clear();
    for (const raw of valuesAt(entry.payload, path)) {
      const found = facetValueOf(kind, raw);
      if (!found || seen.has(found.key)) continue;
      seen.add(found.key);
      const hit = counts.get(found.key);
      if (hit) hit.count += 1;
      else counts.set(found.key, { value: found.value, count: 1 });
    }
  }
  const hits = [...counts.values()].sort(compareFacetHits);
  return { hits: hits.slice(0, request.limit) };
}
