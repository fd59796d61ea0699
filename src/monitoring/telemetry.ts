// GET /telemetry (docs/api.md §13.3): the part of Qdrant v1.19's TelemetryData that dashboards
// read — the app, the collections with their configuration and counts, and the REST request
// statistics — at the requested details level, anonymized on request (anonymize.ts).
import { existsSync } from 'node:fs';
import { availableParallelism, endianness, release, totalmem, type as osType } from 'node:os';
import type { Collection, CollectionStatistics } from '../engine/collection.js';
import { describeCollectionConfig } from '../engine/collection-config.js';
import { anonymizeCount, anonymizeName, anonymizeTimestamp } from './anonymize.js';
import type { RequestStatistics, ResponseStatistics } from './request-statistics.js';

export interface TelemetryCollection {
  name: string;
  /** The collection's configuration as GET C describes it (describeCollectionConfig). */
  config: Record<string, unknown>;
  statistics: CollectionStatistics;
}

export interface TelemetrySources {
  /** This server's telemetry id: random per process. */
  id: string;
  name: string;
  version: string;
  /** ISO time the server started. */
  startup: string;
  authEnabled: boolean;
  collections: () => readonly TelemetryCollection[];
  requests: RequestStatistics;
}

export interface TelemetryRequest {
  /** 0: counts only; 1: + system and one aggregate per collection; 2 and above: + each collection's config and counts. */
  detailsLevel: number;
  anonymize: boolean;
}

/** What telemetry reads of each collection; one caught closing an index is left out of this read. */
export function telemetryCollections(collections: readonly Collection[]): TelemetryCollection[] {
  const described: TelemetryCollection[] = [];
  for (const collection of collections) {
    try {
      described.push({ name: collection.name, config: describeCollectionConfig(collection.config) as Record<string, unknown>, statistics: collection.statistics() });
    } catch {
      // Closing an index (a vector name or the collection going away): the next read has it.
    }
  }
  return described;
}

function systemTelemetry(): Record<string, unknown> {
  return {
    distribution: osType(),
    distribution_version: release(),
    // The usual marker of a Docker container; a guess, as in Qdrant.
    is_docker: existsSync('/.dockerenv'),
    cores: availableParallelism(),
    ram_size: Math.floor(totalmem() / 1024),
    cpu_flags: '',
    cpu_endian: endianness() === 'LE' ? 'little' : 'big',
  };
}

function vectorCount(statistics: CollectionStatistics): number {
  return statistics.vectors.reduce((sum, vector) => sum + vector.count, 0);
}

function optimizersStatus(statistics: CollectionStatistics): unknown {
  return statistics.kernelFault ? { error: 'a kernel update failed; the next start replays the log' } : 'ok';
}

function describeCollection(collection: TelemetryCollection, anonymize: boolean, detailsLevel: number): Record<string, unknown> {
  const count = anonymize ? anonymizeCount : (value: number) => value;
  const { statistics } = collection;
  if (detailsLevel < 2) {
    // Qdrant's CollectionsAggregatedTelemetry.
    return { vectors: count(vectorCount(statistics)), optimizers_status: optimizersStatus(statistics), params: collection.config.params };
  }
  const config = { ...collection.config };
  // The metadata is the user's own data: anonymized telemetry leaves it out (Qdrant drops uuid likewise).
  if (anonymize) delete config.metadata;
  const indexed = statistics.vectors.filter((vector) => vector.kind === 'sparse' || vector.graphInUse).reduce((sum, vector) => sum + vector.indexed, 0);
  return {
    id: anonymize ? anonymizeName(collection.name) : collection.name,
    config,
    points_count: count(statistics.points),
    vectors_count: count(vectorCount(statistics)),
    indexed_vectors_count: count(indexed),
    optimizers_status: optimizersStatus(statistics),
  };
}

function anonymizeResponses(responses: Record<string, Record<string, ResponseStatistics>>): Record<string, Record<string, ResponseStatistics>> {
  const result: Record<string, Record<string, ResponseStatistics>> = {};
  for (const [route, statuses] of Object.entries(responses)) {
    result[route] = {};
    for (const [status, figures] of Object.entries(statuses)) {
      result[route][status] = { ...figures, count: anonymizeCount(figures.count), last_responded: anonymizeTimestamp(figures.last_responded) };
    }
  }
  return result;
}

export function buildTelemetry(sources: TelemetrySources, request: TelemetryRequest): Record<string, unknown> {
  const { detailsLevel, anonymize } = request;
  const app: Record<string, unknown> = {
    name: sources.name,
    version: sources.version,
    features: { debug: false, service_debug_feature: false, recovery_mode: false, gpu: false, rocksdb: false, staging: false },
    jwt_rbac: sources.authEnabled,
    startup: anonymize ? anonymizeTimestamp(sources.startup) : sources.startup,
  };
  if (detailsLevel >= 1) app.system = systemTelemetry();
  const collections = sources.collections();
  const collectionsTelemetry: Record<string, unknown> = { number_of_collections: anonymize ? anonymizeCount(collections.length) : collections.length };
  if (detailsLevel >= 1) {
    const ordered = [...collections].sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
    collectionsTelemetry.collections = ordered.map((collection) => describeCollection(collection, anonymize, detailsLevel));
  }
  const responses = sources.requests.snapshot();
  return {
    id: sources.id,
    app,
    collections: collectionsTelemetry,
    requests: { rest: { responses: anonymize ? anonymizeResponses(responses) : responses }, grpc: { responses: {} } },
  };
}
