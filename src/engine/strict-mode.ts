// Strict mode (docs/api.md §4.5): the limits a collection's `strict_mode_config` sets, checked in
// one place. The services call these checks before they do any work (search and query plans,
// scroll, facet, upserts, payload-index creation, filters); the request guard calls the timeout
// and rate checks. Nothing is checked unless `enabled` is true, as in Qdrant. A violation is the
// registry's 400 naming the limit (429 for the rate limits), so nothing is half-done.
import { errors } from '../errors.js';
import type { StrictModeConfig } from './collection-request-schemas.js';

/** What a parsed filter holds, as the filter module summarises it for the checks below. */
export interface FilterSummary {
  /** Every condition, nested ones included. */
  conditions: number;
  /** The largest `match.any` / `match.except` list, with the field it is on. */
  largestCondition: { size: number; field: string } | undefined;
  /** Conditions on fields no suitable payload index answers: field -> the index types that would. */
  unindexed: { field: string; types: readonly string[] }[];
}

/** What an upsert or vector update would leave in the collection. */
export interface WriteSizes {
  /** Points in this request. */
  batchSize: number;
  /** Points the collection would hold afterwards. */
  pointsAfter: number;
  /** Bytes of dense vectors the collection would hold afterwards (4 bytes per float). */
  vectorBytesAfter: number;
}

/** A search stage's knobs, as the query plan carries them. */
export interface SearchKnobs {
  limit: number;
  ef?: number;
  exact: boolean;
  oversampling?: number;
}

/** A token bucket refilled evenly over a minute: Qdrant's read/write_rate_limit are per minute. */
class MinuteBucket {
  private tokens: number;
  private updatedAt: number;

  constructor(
    readonly perMinute: number,
    private readonly now: () => number,
  ) {
    this.tokens = perMinute;
    this.updatedAt = now();
  }

  /** Takes `cost` tokens; the seconds to wait when there are not enough. */
  take(cost: number): number | undefined {
    const now = this.now();
    this.tokens = Math.min(this.perMinute, this.tokens + ((now - this.updatedAt) / 60_000) * this.perMinute);
    this.updatedAt = now;
    // A request dearer than the whole budget is allowed once the bucket is full, or it could never run.
    const needed = Math.min(cost, this.perMinute);
    if (this.tokens >= needed) {
      this.tokens -= needed;
      return undefined;
    }
    return Math.max(1, Math.ceil(((needed - this.tokens) / this.perMinute) * 60));
  }
}

function exceeded(name: string, value: number, maximum: number): Error {
  return errors.strictMode(`Limit exceeded ${value} > ${maximum} for "${name}"`, `Reduce the "${name}" parameter to or below ${maximum}.`);
}

/** The strict-mode checks of one collection; `config` is read at each check (PATCH changes it). */
export class StrictMode {
  private readBucket: MinuteBucket | undefined;
  private writeBucket: MinuteBucket | undefined;

  constructor(
    private readonly config: () => StrictModeConfig | undefined,
    private readonly now: () => number = Date.now,
  ) {}

  /** The configuration when strict mode is on, otherwise undefined (no check applies). */
  private get active(): StrictModeConfig | undefined {
    const config = this.config();
    return config?.enabled === true ? config : undefined;
  }

  /** `limit` (plus `offset`) of a read against max_query_limit. */
  checkLimit(limit: number, name = 'limit'): void {
    const maximum = this.active?.max_query_limit;
    if (maximum !== undefined && limit > maximum) throw exceeded(name, limit, maximum);
  }

  /** The `timeout` query parameter against max_timeout. */
  checkTimeout(timeout: number | undefined): void {
    const maximum = this.active?.max_timeout;
    if (maximum !== undefined && timeout !== undefined && timeout > maximum) throw exceeded('timeout', timeout, maximum);
  }

  /** One search stage: limit, hnsw_ef, exact and oversampling. */
  checkSearch(knobs: SearchKnobs): void {
    const config = this.active;
    if (!config) return;
    this.checkLimit(knobs.limit);
    if (config.search_max_hnsw_ef !== undefined && knobs.ef !== undefined && knobs.ef > config.search_max_hnsw_ef) {
      throw exceeded('hnsw_ef', knobs.ef, config.search_max_hnsw_ef);
    }
    if (config.search_allow_exact === false && knobs.exact) throw errors.strictMode('Exact search disabled', 'Set "exact" to false in your request.');
    if (config.search_max_oversampling !== undefined && knobs.oversampling !== undefined && knobs.oversampling > config.search_max_oversampling) {
      throw exceeded('oversampling', knobs.oversampling, config.search_max_oversampling);
    }
  }

  /** The number of searches in one batch request. */
  checkSearchBatch(count: number): void {
    const maximum = this.active?.search_max_batchsize;
    if (maximum !== undefined && count > maximum) throw exceeded('searches', count, maximum);
  }

  /**
   * A parsed filter: conditions, condition size, and (by purpose) unindexed fields. `summarize`
   * runs only when strict mode is on, so filters cost nothing extra otherwise.
   */
  checkFilter(summarize: () => FilterSummary, purpose: 'retrieve' | 'update'): void {
    const config = this.active;
    if (!config) return;
    const summary = summarize();
    if (config.filter_max_conditions !== undefined && summary.conditions > config.filter_max_conditions) {
      throw exceeded('conditions', summary.conditions, config.filter_max_conditions);
    }
    const largest = summary.largestCondition;
    if (config.condition_max_size !== undefined && largest !== undefined && largest.size > config.condition_max_size) {
      throw exceeded(`${largest.field}`, largest.size, config.condition_max_size);
    }
    const allowed = purpose === 'retrieve' ? config.unindexed_filtering_retrieve : config.unindexed_filtering_update;
    const first = summary.unindexed[0];
    if (allowed === false && first !== undefined) {
      throw errors.strictMode(
        `Index required but not found for "${first.field}" of one of the following types: [${first.types.join(', ')}]`,
        'Create an index for this key or use a different filter.',
      );
    }
  }

  /** An upsert or vector update: batch size, points count and vector storage size. */
  checkWrite(sizes: WriteSizes): void {
    const config = this.active;
    if (!config) return;
    if (config.upsert_max_batchsize !== undefined && sizes.batchSize > config.upsert_max_batchsize) {
      throw exceeded('upsert', sizes.batchSize, config.upsert_max_batchsize);
    }
    if (config.max_points_count !== undefined && sizes.pointsAfter > config.max_points_count) {
      throw errors.strictMode(
        `Max points count limit of ${config.max_points_count} reached`,
        'Reduce the number of points or delete some points.',
      );
    }
    if (config.max_collection_vector_size_bytes !== undefined && sizes.vectorBytesAfter > config.max_collection_vector_size_bytes) {
      throw errors.strictMode(
        `Max vector storage size limit of ${config.max_collection_vector_size_bytes} bytes reached`,
        'Reduce the number or size of the vectors, or delete some points.',
      );
    }
  }

  /** Creating one more payload index when `existing` exist (replacing one is not counted). */
  checkPayloadIndexCount(existing: number): void {
    const maximum = this.active?.max_payload_index_count;
    if (maximum !== undefined && existing + 1 > maximum) {
      throw errors.strictMode(`Collection already has the maximum number of payload indices (${maximum})`, 'Delete an index before creating another.');
    }
  }

  /** Takes `cost` from the read or write budget of this minute; 429 when it is spent. */
  checkRate(kind: 'read' | 'write', cost = 1): void {
    const config = this.active;
    const perMinute = kind === 'read' ? config?.read_rate_limit : config?.write_rate_limit;
    if (perMinute === undefined) return;
    let bucket = kind === 'read' ? this.readBucket : this.writeBucket;
    // A changed limit starts a fresh, full budget.
    if (bucket?.perMinute !== perMinute) {
      bucket = new MinuteBucket(perMinute, this.now);
      if (kind === 'read') this.readBucket = bucket;
      else this.writeBucket = bucket;
    }
    const retryAfter = bucket.take(cost);
    if (retryAfter !== undefined) throw errors.rateLimited(kind, retryAfter);
  }
}
