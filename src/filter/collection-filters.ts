// The filter module attached to the engine: each collection gets its payload indexes (definitions
// persisted as extension records, filled from the points at start, kept in step on every
// payload change), a live-slot bitset and an id-ordered view for scroll. Everything that turns
// a request's filter into slots for a collection goes through here. It reaches the engine only
// as each collection's hooks: app.ts gives `filterHooks(...)` to the collections registry.
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { PayloadChange, CollectionHooks } from '../engine/collection-hooks.js';
import type { Collection, CollectionHooksFactory, PointEntry } from '../engine/collection.js';
import { errors } from '../errors.js';
import { parsePointId, type PointId } from '../points/ids.js';
import { FieldIndexes } from '../payload/indexes/field-indexes.js';
import { parseIndexDefinition, type IndexDefinition } from '../payload/indexes/schema.js';
import { parsePath, PathSyntaxError, type PayloadPath } from '../payload/path.js';
import type { StagedPoint } from '../engine/write-draft.js';
import { matches, type PointView } from './evaluate.js';
import { FilterAnswers } from './filter-answers.js';
import { parseFilter, type FilterLimits } from './parse.js';
import { estimateCount, evaluationOptionsFor, filterSlots, type FilterTarget } from './plan.js';
import { summarizeFilter } from './strict-filter.js';
import { SlotSet } from '../points/slot-set.js';
import { IdOrder, type SortedIds } from './sorted-ids.js';
import type { Filter } from './types.js';

/** Extension namespace of the index definitions; each record carries its own format number. */
const indexNamespace = 'payload_index';
const indexRecordFormat = 1;

interface IndexRecord {
  format: number;
  field_name: string;
  definition: IndexDefinition;
}

export class CollectionFilters implements FilterTarget, CollectionHooks {
  readonly indexes = new FieldIndexes();
  private live = new SlotSet(64);
  /** Ids in id order, for scroll: kept across writes (src/filter/sorted-ids.ts). */
  private readonly idOrder = new IdOrder();
  /** Filters of writes being staged, parsed once per request body object (matchesPoint). */
  private readonly parsedFilters = new WeakMap<object, Filter | undefined>();
  /** This collection's prefix in the server's kept filter answers. */
  private answerOwner: string;

  constructor(
    readonly collection: Collection,
    readonly limits: FilterLimits,
    private readonly logger: Logger,
    private readonly answers: FilterAnswers,
  ) {
    this.answerOwner = answers.newOwner();
  }

  /** Hook: the collection's points are in memory; mark them live and rebuild the persisted indexes. */
  async loaded(): Promise<void> {
    // Slots, not points: a view per point cost a start ~50 ms of this thread and its collection
    // for 150k points, to read one number of each.
    for (const slot of this.collection.liveSlots()) this.markLive(slot);
    await this.restore(this.logger);
    // Indexes rebuilt here change no state number: answers kept before are made unreachable.
    this.answerOwner = this.answers.newOwner();
  }

  /** Hook: keeps the indexes, the live set and the id order in step with every payload write. */
  payloadChanged({ slot, id, before, after }: PayloadChange): void {
    this.indexes.replace(slot, before, after);
    if (after === undefined) this.live.delete(slot);
    else this.markLive(slot);
    if (before === undefined && after !== undefined) this.idOrder.added(id);
    else if (before !== undefined && after === undefined) this.idOrder.removed(id);
  }

  /** Hook: deletes and payload writes by filter; the engine calls this inside the write queue. */
  selectByFilter(filter: unknown, field: string): PointEntry[] {
    const slots = filterSlots(this.parse(filter, field, 'update'), this);
    const entries: PointEntry[] = [];
    slots.forEach((slot) => {
      const entry = this.collection.pointBySlot(slot);
      if (entry) entries.push(entry);
    });
    return entries;
  }

  /** Hook: whether the filter accepts one point as a write stages it (batches, update_filter). */
  matchesPoint(filter: unknown, point: StagedPoint, field: string): boolean {
    // One write asks this for every point it touched with the same filter object: parse it once.
    let parsed: Filter | undefined;
    if (typeof filter === 'object' && filter !== null) {
      if (!this.parsedFilters.has(filter)) this.parsedFilters.set(filter, this.parse(filter, field));
      parsed = this.parsedFilters.get(filter);
    } else parsed = this.parse(filter, field);
    if (!parsed) return true;
    return matches(parsed, { idKey: point.entry.key, payload: point.entry.payload, hasVector: (name) => point.hasVector(name) }, evaluationOptionsFor(this));
  }

  private markLive(slot: number): void {
    if (slot >= this.live.capacity) this.grow(slot + 1);
    this.live.add(slot);
  }

  private grow(minimum: number): void {
    let capacity = this.live.capacity;
    while (capacity < minimum) capacity *= 2;
    const grown = new SlotSet(capacity);
    grown.words.set(this.live.words);
    this.live = grown;
  }

  get slotCapacity(): number {
    if (this.collection.slotCapacity > this.live.capacity) this.grow(this.collection.slotCapacity);
    return this.live.capacity;
  }

  liveSlots(): SlotSet {
    if (this.collection.slotCapacity > this.live.capacity) this.grow(this.collection.slotCapacity);
    return this.live;
  }

  point(slot: number): PointView | undefined {
    const entry = this.collection.pointBySlot(slot);
    return entry ? this.viewOf(entry) : undefined;
  }

  points(slots: readonly number[]): (PointView | undefined)[] {
    return this.collection.pointsBySlots(slots).map((entry) => (entry ? this.viewOf(entry) : undefined));
  }

  viewOf(entry: PointEntry): PointView {
    return new EntryView(this.collection, entry);
  }

  slotOfIdKey(idKey: string): number | undefined {
    const id = parsePointId(/^\d+$/.test(idKey) ? BigInt(idKey) : idKey);
    return this.collection.pointById(id)?.slot;
  }

  /**
   * Parses a request's filter with the configured bounds; 400 naming `field` when malformed, or
   * when it breaks the collection's strict mode (`purpose`: a read, or a write by filter).
   */
  parse(filter: unknown, field = 'filter', purpose: 'retrieve' | 'update' = 'retrieve'): Filter | undefined {
    const parsed = parseFilter(filter, this.limits, field);
    this.checkStrictMode(parsed, purpose);
    return parsed;
  }

  private checkStrictMode(parsed: Filter | undefined, purpose: 'retrieve' | 'update'): void {
    if (parsed) this.collection.strictMode.checkFilter(() => summarizeFilter(parsed, this.indexes), purpose);
  }

  /**
   * The live slots a read's `filter` accepts. The set may be shared (src/filter/filter-answers.ts):
   * read it, never change it; `giveBack` is safe either way. Strict mode is checked on every call,
   * as its settings and the indexes it reads may have changed since the answer was kept.
   */
  allowed(filter: unknown, field: string): SlotSet {
    const key = this.answers.keyOf(this.answerOwner, filter);
    if (key === undefined) return this.resolve(this.parse(filter, field));
    const version = this.collection.stateVersion;
    const known = this.answers.find(key);
    let parsed: Filter | undefined;
    if (known === undefined) parsed = this.parse(filter, field);
    else {
      parsed = known.parsed;
      this.checkStrictMode(parsed, 'retrieve');
      if (known.version === version && known.slots !== undefined) {
        this.answers.reads.kept += 1;
        return known.slots;
      }
    }
    const slots = this.resolve(parsed);
    // Asked twice at this state: kept. Asked first at this state: noted, and the set stays the caller's.
    this.answers.remember(key, parsed, version, known?.version === version ? slots : undefined);
    return slots;
  }

  /** A read's filter resolved afresh (counted for /metrics). */
  private resolve(parsed: Filter | undefined): SlotSet {
    this.answers.reads.resolved += 1;
    return filterSlots(parsed, this);
  }

  /** Every live point id in id order (docs/api.md §2). */
  idsInOrder(): SortedIds {
    return this.idOrder.current(() => this.collection.liveIds(), this.collection.pointCount);
  }

  /** Position of the first id not below `id` in idsInOrder(). */
  idPosition(id: PointId): number {
    return this.idsInOrder().position(id);
  }

  payloadSchema(): Record<string, unknown> {
    const schema: Record<string, unknown> = {};
    for (const field of this.indexes.all()) {
      schema[field.path.text] = {
        data_type: field.definition.type,
        ...(field.definition.params ? { params: field.definition.params } : {}),
        points: field.slots.size,
      };
    }
    return schema;
  }

  /** Builds an index from the current points (inside the write queue, so nothing moves). */
  buildIndex(path: PayloadPath, definition: IndexDefinition): void {
    const payloads = (function* (collection: Collection): Generator<[number, PointEntry['payload']]> {
      for (const entry of collection.livePoints()) yield [entry.slot, entry.payload];
    })(this.collection);
    this.indexes.create(path.text, definition, payloads);
  }

  /** Loads the persisted definitions and fills each index (start-up). */
  async restore(logger: Logger): Promise<void> {
    const records = await this.collection.readExtension(indexNamespace);
    for (const [key, value] of records) {
      const record = value as IndexRecord;
      if (record.format !== indexRecordFormat) throw new Error(`payload index ${key}: unsupported record format ${record.format}`);
      const started = performance.now();
      this.buildIndex(parsePath(record.field_name), record.definition);
      logger.info({ collection: this.collection.name, field: record.field_name, elapsed_ms: Math.round(performance.now() - started) }, 'payload index built');
    }
  }
}

/** A point as filters see it; a class rather than a closure, since one is made per evaluated point. */
class EntryView implements PointView {
  readonly idKey: string;

  constructor(
    private readonly collection: Collection,
    private readonly entry: PointEntry,
  ) {
    this.idKey = entry.key;
  }

  /** Read only when a condition needs it: the payload is decoded then (docs/architecture.md §16). */
  get payload(): PointEntry['payload'] {
    return this.entry.payload;
  }

  hasVector(name: string): boolean {
    return this.collection.hasVector(this.entry, name);
  }
}

/** The filter state of a collection: its hooks, when the registry was given `filterHooks`. */
export function filtersOf(collection: Collection): CollectionFilters {
  const filters = collection.hooks;
  if (!(filters instanceof CollectionFilters)) throw errors.internal('Search', new Error(`collection ${collection.name} has no filter state`));
  return filters;
}

/**
 * For search and query: the slots of `collection` that a request's raw `filter` accepts, as a
 * bitset whose bytes are the kernel's `allowed` argument. A malformed filter is a 400 whose
 * message names `field` (e.g. `prefetch[0].filter.must[2].range: ...`).
 *
 *   allowedSlots(collection: Collection, filter: unknown, field: string): SlotSet
 */
export function allowedSlots(collection: Collection, filter: unknown, field = 'filter'): SlotSet {
  return filtersOf(collection).allowed(filter, field);
}

/**
 * allowedSlots for a request whose `filter` may be absent: undefined when it is (every point is
 * allowed), for the reads that walk points themselves (scroll, facets, the search matrix).
 */
export function requestAllowedSlots(collection: Collection, filter: unknown, field = 'filter'): SlotSet | undefined {
  return filter === undefined || filter === null ? undefined : allowedSlots(collection, filter, field);
}

/** `count`: exact, or estimated from the indexes and a sample when `exact` is false. */
export function countPoints(collection: Collection, filter: unknown, exact: boolean): number {
  const filters = filtersOf(collection);
  if (filter === undefined || filter === null) return collection.pointCount;
  if (exact) {
    // A repeated count (a dashboard's, a tenant's) reads a kept answer (filter-answers.ts).
    const slots = filters.allowed(filter, 'filter');
    const count = slots.size;
    slots.giveBack();
    return count;
  }
  return estimateCount(filters.parse(filter)!, filters);
}

function parseFieldName(fieldName: string): PayloadPath {
  try {
    return parsePath(fieldName);
  } catch (error) {
    if (error instanceof PathSyntaxError) throw errors.invalidField('field_name', error.message);
    throw error;
  }
}

/** `PUT .../index`: persists the definition and builds the index, replacing one on the same field. */
export function createFieldIndex(collection: Collection, fieldName: string, fieldSchema: unknown, wait: boolean) {
  const filters = filtersOf(collection);
  const path = parseFieldName(fieldName);
  const definition = parseIndexDefinition(fieldSchema);
  if (!filters.indexes.forPath(path.text)) collection.strictMode.checkPayloadIndexCount(filters.indexes.size);
  const record: IndexRecord = { format: indexRecordFormat, field_name: path.text, definition };
  return collection.writeExtension(indexNamespace, { put: { [path.text]: record } }, {
    wait,
    operation: 'Field index',
    apply: () => filters.buildIndex(path, definition),
  });
}

/** `DELETE .../index/{field_name}`: a field without an index is not an error. */
export function deleteFieldIndex(collection: Collection, fieldName: string, wait: boolean) {
  const filters = filtersOf(collection);
  const path = parseFieldName(fieldName);
  return collection.writeExtension(indexNamespace, { delete: [path.text] }, {
    wait,
    operation: 'Field index',
    apply: () => {
      filters.indexes.drop(path.text);
    },
  });
}

/**
 * The hooks factory app.ts gives the collections registry: every collection it builds gets its
 * filter state (payload indexes, live slots, id order), filled once its points are loaded.
 */
export function filterHooks(config: Config, logger: Logger, answers: FilterAnswers): CollectionHooksFactory {
  const limits: FilterLimits = { maxDepth: config.limits.max_filter_depth, maxConditions: config.limits.max_filter_conditions };
  return (collection) => new CollectionFilters(collection, limits, logger, answers);
}

/** The server's kept filter answers: one budget, `limits.filter_answer_cache_mb`, for all its collections. */
export function filterAnswersFor(config: Config): FilterAnswers {
  return new FilterAnswers(config.limits.filter_answer_cache_mb * 1024 * 1024);
}
