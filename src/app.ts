// buildApp(config): one fastify instance with every plugin and route registered. It never
// listens and never starts loading: main.ts (or a test) decides when.
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { installAuth } from './auth/install.js';
import type { Config } from './config.js';
import { CollectionRegistry } from './engine/collection-registry.js';
import { Engine } from './engine/engine.js';
import { filterAnswersFor, filterHooks } from './filter/collection-filters.js';
import { registerDashboardRoutes } from './http/dashboard.js';
import { clientErrorHandler, frameworkErrorHandler, registerErrorHandling } from './http/error-handler.js';
import { registerJsonBody } from './http/json-body.js';
import { registerReadinessGuard } from './http/readiness.js';
import { registerRequestArrivals } from './http/request-arrivals.js';
import { requestBegun } from './native/index.js';
import { registerRoutes } from './http/routes.js';
import { typeboxValidatorCompiler } from './http/validation.js';
import { deferredRequestLogger } from './http/request-logger.js';
import { createLogger } from './logging.js';
// Monitoring (docs/api.md §13): probes, /metrics, /telemetry, progress logs.
import { randomUUID } from 'node:crypto';
import { IndexingWatch } from './engine/indexing-watch.js';
import { registerMonitoring } from './http/monitoring.js';
import { registerProbeRoutes } from './http/probes.js';
import { ServerMetrics } from './monitoring/metrics.js';
import { registerStorageMetrics } from './monitoring/storage-metrics.js';
import { registerFilterAnswerMetrics } from './monitoring/filter-answer-metrics.js';
import { RequestStatistics } from './monitoring/request-statistics.js';
import { telemetryCollections } from './monitoring/telemetry.js';
import { approximateDatabaseBytes } from './storage/storage-size.js';
import { packageVersion } from './version.js';
import { GrpcDoor } from './grpc/door.js';
import { installCluster } from './cluster/install.js';

declare module 'fastify' {
  interface FastifyInstance {
    engine: Engine;
    quiverConfig: Config;
    collections: CollectionRegistry;
    /** The Prometheus metrics; other modules add families with registerExtraCollector(). */
    metrics: ServerMetrics;
    grpc: GrpcDoor;
  }
}

export interface BuildOptions {
  logger?: Logger;
  /** Clock for auth expiry (milliseconds since the epoch); tests move it. */
  now?: () => number;
}

/** The HTTP server's deadlines in milliseconds, from config.service (docs/api.md §8). */
export function connectionTimeouts(config: Config): { idle: number; headers: number; request: number; keepAlive: number; checkingInterval: number } {
  const { idle_timeout_seconds, header_timeout_seconds, request_timeout_seconds, keep_alive_timeout_seconds } = config.service;
  const request = Math.round(request_timeout_seconds * 1000);
  // Node refuses a header deadline beyond the request deadline; the whole request bounds both.
  const headers = Math.min(Math.round(header_timeout_seconds * 1000), request);
  return {
    // Fastify reads 0 as "use my default" for keep-alive, so every value is at least 1 ms.
    idle: Math.round(idle_timeout_seconds * 1000),
    headers: Math.max(1, headers),
    request: Math.max(1, request),
    keepAlive: Math.max(1, Math.round(keep_alive_timeout_seconds * 1000)),
    checkingInterval: Math.max(100, Math.min(1000, Math.floor(headers / 2))),
  };
}

export function buildApp(config: Config, options: BuildOptions = {}): FastifyInstance {
  const logger = options.logger ?? createLogger(config);
  const bodyLimitBytes = Math.floor(config.service.max_request_size_mb * 1024 * 1024);
  const maxParamLength = 1024;
  const timeouts = connectionTimeouts(config);
  const app = Fastify({
    loggerInstance: logger,
    // Per-request logs would cost more than a search; failures are still logged.
    logController: new LogController({ disableRequestLogging: true }),
    // So each request's logger is made only if something is logged through it.
    childLoggerFactory: deferredRequestLogger,
    bodyLimit: bodyLimitBytes,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength },
    frameworkErrors: frameworkErrorHandler(maxParamLength),
    clientErrorHandler,
    // The readiness guard answers requests that arrive while closing (503 in the envelope).
    return503OnClosing: false,
    // Connection hygiene (docs/api.md §8): silent, slow and idle sockets are closed.
    connectionTimeout: timeouts.idle,
    keepAliveTimeout: timeouts.keepAlive,
    requestTimeout: timeouts.request,
    http: {
      headersTimeout: timeouts.headers,
      requestTimeout: timeouts.request,
      keepAliveTimeout: timeouts.keepAlive,
      // Node checks header and request deadlines on this timer (30 s by default), so a short
      // header timeout needs a tighter one; one pass over the open connections is cheap.
      connectionsCheckingInterval: timeouts.checkingInterval,
    },
  }) as unknown as FastifyInstance;
  // Connections beyond the cap are closed by Node as they arrive, before any byte is read.
  app.server.maxConnections = config.service.max_connections;

  const engine = new Engine({ dataDirectory: config.storage.path, freeSpaceReserveBytes: config.storage.free_space_reserve_bytes, logger });
  app.decorate('engine', engine);
  app.decorate('quiverConfig', config);
  // The filter module reaches each collection only through these hooks (payload indexes, filters).
  const filterAnswers = filterAnswersFor(config);
  const collections = new CollectionRegistry({ config, logger, hooks: filterHooks(config, logger, filterAnswers) });
  engine.addStep(collections.lifecycleStep());
  app.decorate('collections', collections);

  // A route without settings would escape the readiness and permission checks: refuse it.
  app.addHook('onRoute', (route) => {
    if (!route.config?.quiver) throw new Error(`route ${String(route.method)} ${route.url} has no quiver settings`);
  });

  app.setValidatorCompiler(typeboxValidatorCompiler(logger));
  registerRequestArrivals(app, requestBegun);
  registerJsonBody(app);
  registerErrorHandling(app, bodyLimitBytes);
  const isClosing = registerReadinessGuard(app, engine);
  installAuth(app, engine, config, logger, options.now);

  registerRoutes(app);

  // The web dashboard (docs/api.md §12): public static files from dist/dashboard.
  registerDashboardRoutes(app);
  // ---- Monitoring (docs/api.md §13): probes, /metrics, /telemetry, graph-build progress logs.
  const startup = new Date().toISOString();
  const metrics = new ServerMetrics({
    collections: () => collections.all(),
    isReady: () => engine.isReady,
    storageBytes: async () => (engine.isReady ? approximateDatabaseBytes(engine.database) : undefined),
  });
  app.decorate('metrics', metrics);
  registerStorageMetrics(metrics, () => engine.storageStatus());
  registerFilterAnswerMetrics(metrics, filterAnswers);
  engine.addStep(new IndexingWatch({ collections: () => collections.all(), logger, intervalMs: config.log.progress_interval_seconds * 1000 }).lifecycleStep());
  const requests = new RequestStatistics();
  registerProbeRoutes(app, engine, isClosing);
  registerMonitoring(app, {
    metrics,
    requests,
    metricsPublic: config.service.metrics_public,
    telemetry: {
      id: randomUUID(),
      name: 'quiverdb',
      version: packageVersion,
      startup,
      authEnabled: config.auth.enabled,
      collections: () => telemetryCollections(collections.all()),
      requests,
    },
  });
  // ---- end of monitoring.
  // ---- gRPC door (docs/api.md §14) ----
  // Built here, listening only when main.ts (or a test) calls listen(); it is closed first on
  // shutdown so its in-flight calls finish through the REST routes before fastify closes.
  const grpc = new GrpcDoor(app, config, logger);
  app.decorate('grpc', grpc);
  app.addHook('preClose', async () => {
    await grpc.close();
  });

  // ---- cluster mode (issue 17, docs/cluster.md): off by default; the NATS client loads only when on.
  if (config.cluster.enabled) installCluster(app, engine, config, logger);
  // ---- end of cluster mode.

  app.addHook('onClose', async () => {
    await engine.close();
  });
  return app;
}
