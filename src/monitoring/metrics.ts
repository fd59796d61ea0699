// The Prometheus metrics of GET /metrics (docs/api.md §13.2), on a private prom-client Registry
// (one per app, so tests can build several). Requests are counted as they finish, in a plain
// tally the requests and duration families read when scraped (response-tally.ts); everything
// about collections, the kernel and storage is read only when scraped, through collect()
// callbacks, so the hot path pays nothing for it. Label values are bounded: route templates
// (never raw paths), a fixed set of methods, statuses, error kinds, and collection and vector
// names (bounded by the collections that exist).
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import type { CollectionStatistics } from '../engine/collection.js';
import { apiVersion, packageVersion } from '../version.js';
import { countFromTally, registerTallyHistogram, ResponseTally } from './response-tally.js';

/** What one response contributes. `route` is the template (`/collections/{collection_name}`). */
export interface ResponseRecord {
  method: string;
  route: string;
  status: number;
  seconds: number;
  /** The error registry's kind (src/errors.ts) when the response is an error; absent otherwise. */
  errorKind?: string;
}

export interface MetricsSources {
  /** Every operable collection's name and statistics, read at scrape time. */
  collections: () => readonly { name: string; statistics: () => CollectionStatistics }[];
  /** Whether the engine has finished loading. */
  isReady: () => boolean;
  /** The database's approximate size in bytes; undefined while it is not open. */
  storageBytes: () => Promise<number | undefined>;
  /** Epoch milliseconds; tests move it. */
  now?: () => number;
}

/** One sample of an extra family: label values and the value. */
export interface ExtraSample {
  labels?: Record<string, string>;
  value: number;
}

/**
 * An extra gauge family another module contributes (a storage health check, say): computed at
 * each scrape by `collect`. See ServerMetrics.registerExtraCollector.
 */
export interface ExtraCollector {
  /** The full metric name, e.g. `quiverdb_storage_healthy`. */
  name: string;
  help: string;
  labelNames?: readonly string[];
  collect(): ExtraSample[] | Promise<ExtraSample[]>;
}

const knownMethods = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** The method label: one of the HTTP methods the server serves, else OTHER (bounded). */
export function methodLabel(method: string): string {
  return knownMethods.has(method) ? method : 'OTHER';
}

/** The label of requests that matched no route, whatever their path. */
export const unmatchedRoute = 'unmatched';

/** Labels already worked out, by route URL: bounded by the routes the server registers. */
const templateLabels = new Map<string, string>();

/**
 * `/collections/:collection_name/points` -> `/collections/{collection_name}/points`. Asked once
 * per response, so each route's label is worked out once (a regex replace per request was ~1% of
 * the JS thread's time under load: docs/architecture.md §23).
 */
export function routeTemplateLabel(routeUrl: string | undefined): string {
  if (routeUrl === undefined) return unmatchedRoute;
  let label = templateLabels.get(routeUrl);
  if (label === undefined) {
    label = routeUrl.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    templateLabels.set(routeUrl, label);
  }
  return label;
}

// The storage size is read at most this often, and a read that takes longer than this is not
// waited for (the last known value is reported): a scrape never waits on the disk for long.
const storageCacheMs = 15_000;
const storageTimeoutMs = 2_000;

export class ServerMetrics {
  readonly registry = new Registry();
  /** Every finished response, read by the requests and durations families when scraped. */
  private readonly responses = new ResponseTally([0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]);
  private readonly errors: Counter<'kind' | 'status'>;
  private readonly authFailures: Counter<'reason'>;
  private readonly now: () => number;
  private storageCache: { atMs: number; bytes: number | undefined } | undefined;
  private storageRead: Promise<void> | undefined;
  /** Every collection's statistics, read once at the start of each scrape for all its families. */
  private snapshot: { name: string; statistics: CollectionStatistics }[] = [];

  constructor(private readonly sources: MetricsSources) {
    this.now = sources.now ?? Date.now;
    collectDefaultMetrics({ register: this.registry });
    const registers = [this.registry];

    new Gauge({ name: 'quiverdb_app_info', help: 'The server: 1, labelled with its version and the Qdrant API version it speaks', labelNames: ['version', 'api_version'], registers }).set(
      { version: packageVersion, api_version: apiVersion },
      1,
    );
    new Gauge({
      name: 'quiverdb_ready',
      help: '1 once the engine has loaded every collection (GET /readyz answers 200), 0 before',
      registers,
      collect() {
        this.set(sources.isReady() ? 1 : 0);
      },
    });

    const responses = this.responses;
    new Counter({
      name: 'quiverdb_http_requests_total',
      help: 'HTTP responses by method, route template and status',
      labelNames: ['method', 'route', 'status'],
      registers,
      collect() {
        countFromTally(this, responses);
      },
    });
    registerTallyHistogram(this.registry, 'quiverdb_http_request_duration_seconds', 'Time from a request arriving to its response, by method, route template and status', responses);
    this.errors = new Counter({ name: 'quiverdb_http_errors_total', help: 'Error responses by error kind (src/errors.ts) and status', labelNames: ['kind', 'status'], registers });
    this.authFailures = new Counter({
      name: 'quiverdb_auth_failures_total',
      help: 'Refused credentials: unauthorized (401, missing or bad), forbidden (403, lacking the permission), rate_limited (429 on /auth)',
      labelNames: ['reason'],
      registers,
    });
    for (const reason of ['unauthorized', 'forbidden', 'rate_limited']) this.authFailures.inc({ reason }, 0);

    this.registerCollectionFamilies();

    const storageBytes = () => this.storageBytes();
    new Gauge({
      name: 'quiverdb_storage_bytes',
      help: "Approximate on-disk size of the classic-level database (LevelDB's estimate, refreshed at most every 15 s)",
      registers,
      async collect() {
        const bytes = await storageBytes();
        if (bytes !== undefined) this.set(bytes);
      },
    });
  }

  /** One finished response: counts it, times it, and counts errors and refused credentials. */
  recordResponse(record: ResponseRecord): void {
    this.responses.record(methodLabel(record.method), record.route, record.status, record.seconds);
    if (record.errorKind !== undefined) this.errors.inc({ kind: record.errorKind, status: String(record.status) });
    if (record.status === 401) this.authFailures.inc({ reason: 'unauthorized' });
    else if (record.status === 403) this.authFailures.inc({ reason: 'forbidden' });
    else if (record.status === 429 && record.route.startsWith('/auth')) this.authFailures.inc({ reason: 'rate_limited' });
  }

  /**
   * The extension point for families owned by other modules (for instance a storage health
   * check): each becomes a gauge computed at every scrape. Register before the first scrape;
   * a name already taken is refused by prom-client.
   */
  registerExtraCollector(collector: ExtraCollector): void {
    new Gauge({
      name: collector.name,
      help: collector.help,
      labelNames: [...(collector.labelNames ?? [])],
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const sample of await collector.collect()) {
          if (sample.labels) this.set(sample.labels, sample.value);
          else this.set(sample.value);
        }
      },
    });
  }

  /** The text exposition (Prometheus text format 0.0.4). */
  async scrape(): Promise<string> {
    this.snapshot = [];
    for (const collection of this.sources.collections()) {
      try {
        this.snapshot.push({ name: collection.name, statistics: collection.statistics() });
      } catch {
        // Caught closing an index (a vector name or the collection going away): left out of this scrape.
      }
    }
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  private registerCollectionFamilies(): void {
    const registers = [this.registry];
    const now = this.now;
    // Every family below is rebuilt from the one read of each collection scrape() made.
    const read = () => this.snapshot;
    new Gauge({
      name: 'quiverdb_collections',
      help: 'Collections that exist and can be used',
      registers,
      collect() {
        this.set(read().length);
      },
    });
    const perCollection = (name: string, help: string, value: (statistics: CollectionStatistics) => number | undefined) =>
      new Gauge({
        name,
        help,
        labelNames: ['collection'],
        registers,
        collect() {
          this.reset();
          for (const { name: collection, statistics } of read()) {
            const figure = value(statistics);
            if (figure !== undefined) this.set({ collection }, figure);
          }
        },
      });
    const perVector = (name: string, help: string, value: (vector: CollectionStatistics['vectors'][number]) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['collection', 'vector', 'kind'],
        registers,
        collect() {
          this.reset();
          for (const { name: collection, statistics } of read()) {
            for (const vector of statistics.vectors) this.set({ collection, vector: vector.name, kind: vector.kind }, value(vector));
          }
        },
      });
    perCollection('quiverdb_collection_points', 'Points in the collection', (statistics) => statistics.points);
    perCollection('quiverdb_collection_update_queue_length', 'Writes queued or running in the collection', (statistics) => statistics.updateQueueLength);
    perCollection('quiverdb_collection_kernel_fault', '1 when a kernel update failed (the collection is red until restart), else 0', (statistics) => (statistics.kernelFault ? 1 : 0));
    perVector('quiverdb_collection_vectors', 'Live vectors per vector name (the vector label is "" for the unnamed vector)', (vector) => vector.count);
    perVector('quiverdb_collection_indexed_vectors', 'Live vectors linked into the graph (a sparse vector counts as indexed)', (vector) => vector.indexed);
    perVector('quiverdb_collection_graph_build_queue', 'Vectors still to link into the graph: the exact-scan tail', (vector) => Math.max(0, vector.count - vector.indexed));
    perCollection('quiverdb_collection_checkpoint_age_seconds', 'Seconds since this process last saved a checkpoint of the collection (absent before the first)', (statistics) =>
      statistics.lastCheckpoint ? Math.max(0, (now() - statistics.lastCheckpoint.atMs) / 1000) : undefined,
    );
    perCollection('quiverdb_collection_checkpoint_duration_seconds', 'How long the last checkpoint took to save (absent before the first)', (statistics) =>
      statistics.lastCheckpoint ? statistics.lastCheckpoint.durationMs / 1000 : undefined,
    );
    perCollection('quiverdb_collection_checkpoints_saved', 'Checkpoints this process saved for the collection', (statistics) => statistics.checkpointsSaved);
    new Gauge({
      name: 'quiverdb_collection_kernel_memory_bytes',
      help: 'Kernel memory of the collection\'s vector indexes: resident (heap bytes of every index), mapped (bytes of on_disk vector files and of always_ram: false quantized codes mapped) and mapped_resident (the part of those in RAM now)',
      labelNames: ['collection', 'type'],
      registers,
      collect() {
        this.reset();
        for (const { name: collection, statistics } of read()) {
          this.set({ collection, type: 'resident' }, statistics.vectors.reduce((sum, vector) => sum + vector.memoryBytes, 0));
          this.set({ collection, type: 'mapped' }, statistics.kernelMemory.mapped_bytes);
          this.set({ collection, type: 'mapped_resident' }, statistics.kernelMemory.mapped_resident_bytes);
        }
      },
    });
  }

  /** The cached storage size, refreshed when stale; a slow read leaves the last value. */
  private async storageBytes(): Promise<number | undefined> {
    const cached = this.storageCache;
    if (cached && this.now() - cached.atMs < storageCacheMs) return cached.bytes;
    this.storageRead ??= this.sources
      .storageBytes()
      .then(
        (bytes) => {
          this.storageCache = { atMs: this.now(), bytes };
        },
        () => {
          this.storageCache = { atMs: this.now(), bytes: cached?.bytes };
        },
      )
      .finally(() => {
        this.storageRead = undefined;
      });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, storageTimeoutMs);
      timer.unref();
    });
    await Promise.race([this.storageRead, timeout]);
    clearTimeout(timer);
    return this.storageCache?.bytes ?? cached?.bytes;
  }
}
