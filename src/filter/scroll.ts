// Scroll (docs/api.md §3): pages through the points a filter accepts, in id order (offset inclusive,
// next_page_offset the first id of the next page), or by a payload value with order_by (which
// needs a range index on the key; offset is refused and next_page_offset is null).
import type { Collection, PointEntry, PointRecord } from '../engine/collection.js';
import { errors } from '../errors.js';
import { comparePointIds, type PointId } from '../points/ids.js';
import type { PayloadSelection, VectorSelection } from '../points/selectors.js';
import { parseDatetime } from '../payload/datetime.js';
import { isOrderedIndex, type OrderedIndex } from '../payload/indexes/types.js';
import { NumericIndex } from '../payload/indexes/numeric.js';
import { parsePath, PathSyntaxError } from '../payload/path.js';
import { filtersOf, requestAllowedSlots } from './collection-filters.js';
import { describeJsonValue } from '../json/describe.js';

export interface OrderBy {
  key: string;
  direction: 'asc' | 'desc';
  startFrom: number | bigint | string | undefined;
}

export interface ScrollRequest {
  offset: PointId | undefined;
  limit: number;
  filter: unknown;
  orderBy: OrderBy | undefined;
  payload: PayloadSelection;
  vector: VectorSelection;
}

export interface ScrollResult {
  points: (PointRecord & { order_value?: number })[];
  next_page_offset: PointId | null;
}

export function scroll(collection: Collection, request: ScrollRequest): ScrollResult {
  collection.strictMode.checkLimit(request.limit);
  collection.assertOperable();
  collection.checkVectorSelection(request.vector);
  const filters = filtersOf(collection);
  // Paging through a filter asks it once a page: later pages read a kept answer (filter-answers.ts).
  const allowed = requestAllowedSlots(collection, request.filter);
  if (request.orderBy) return scrollOrdered(collection, request, request.orderBy, (slot) => allowed === undefined || allowed.has(slot));

  const ids = filters.idsInOrder();
  const found: PointEntry[] = [];
  let nextOffset: PointId | null = null;
  for (let position = request.offset === undefined ? 0 : filters.idPosition(request.offset); position < ids.length; position += 1) {
    const id = ids.at(position);
    // A selective filter passes over many ids: test the slot before making the point's view.
    if (allowed && !allowed.has(collection.slotOfId(id))) continue;
    const entry = collection.pointById(id);
    if (!entry) continue;
    if (found.length === request.limit) {
      nextOffset = entry.id;
      break;
    }
    found.push(entry);
  }
  return { points: collection.toRecords(found, request.payload, request.vector), next_page_offset: nextOffset };
}

function orderedIndexFor(collection: Collection, key: string): OrderedIndex {
  let pathText: string;
  try {
    pathText = parsePath(key).text;
  } catch (error) {
    if (error instanceof PathSyntaxError) throw errors.invalidField('order_by.key', error.message);
    throw error;
  }
  const index = filtersOf(collection).indexes.forPath(pathText)?.index;
  if (!index || !isOrderedIndex(index) || (index instanceof NumericIndex && !index.supportsRange)) {
    throw errors.invalidField('order_by.key', `no range index on "${key}": create an integer (with range), float or datetime index on it to order by it`);
  }
  return index;
}

function startValue(index: OrderedIndex, startFrom: OrderBy['startFrom']): number | undefined {
  if (startFrom === undefined) return undefined;
  if (typeof startFrom === 'number' && Number.isFinite(startFrom)) return startFrom;
  if (typeof startFrom === 'bigint') return Number(startFrom);
  if (typeof startFrom === 'string' && index.type === 'datetime') {
    const timestamp = parseDatetime(startFrom);
    if (timestamp !== undefined) return timestamp;
  }
  throw errors.invalidField('order_by.start_from', `expected ${index.type === 'datetime' ? 'an RFC 3339 datetime or a number' : 'a number'}, got ${describeJsonValue(startFrom)}`);
}

/**
 * Walks the range index from start_from. A point comes once per distinct value it holds at the
 * key (at or past start_from), each time with that value as its order_value, as Qdrant answers;
 * points with equal values come in id order. Paging is by start_from: the next page starts at
 * the last order_value seen, and a caller drops the (id, value) pairs it already has.
 */
function scrollOrdered(collection: Collection, request: ScrollRequest, orderBy: OrderBy, allowed: (slot: number) => boolean): ScrollResult {
  if (request.offset !== undefined) throw errors.invalidField('offset', 'cannot be combined with order_by: page with order_by.start_from instead');
  const index = orderedIndexFor(collection, orderBy.key);
  const start = startValue(index, orderBy.startFrom);
  const chosen: { entry: PointEntry; value: number }[] = [];
  let group: PointEntry[] = [];
  let groupValue = Number.NaN;
  const flush = () => {
    group.sort((left, right) => comparePointIds(left.id, right.id));
    for (const entry of group) {
      if (chosen.length === request.limit) break;
      chosen.push({ entry, value: groupValue });
    }
    group = [];
  };
  index.walk(orderBy.direction, start, (value, slot) => {
    if (value !== groupValue) {
      flush();
      if (chosen.length === request.limit) return false;
      groupValue = value;
    }
    if (!allowed(slot)) return true;
    const entry = collection.pointBySlot(slot);
    if (entry) group.push(entry);
    return true;
  });
  flush();
  const records = collection.toRecords(chosen.map((item) => item.entry), request.payload, request.vector);
  return {
    points: records.map((record, position) => ({ ...record, order_value: chosen[position]!.value })),
    next_page_offset: null,
  };
}
