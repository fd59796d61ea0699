// buildApp(config): one fastify instance with every plugin and route registered. It never
// listens and never starts loading: main.ts (or a test) decides when.
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { installAuth } from './auth/install.js';
import type { Config } from './config.js';
import { CollectionRegistry } from './engine/collection-registry.js';
import { Engine } from './engine/engine.js';
import { filterHooks } from './filter/collection-filters.js';
import { clientErrorHandler, frameworkErrorHandler, registerErrorHandling } from './http/error-handler.js';
import { registerJsonBody } from './http/json-body.js';
import { registerReadinessGuard } from './http/readiness.js';
import { registerRoutes } from './http/routes.js';
import { typeboxValidatorCompiler } from './http/validation.js';
import { createLogger } from './logging.js';
import { GrpcServer } from './grpc/server.js';

declare module 'fastify' {
  interface FastifyInstance {
    engine: Engine;
    quiverConfig: Config;
    collections: CollectionRegistry;
    grpc: GrpcServer;
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

  const engine = new Engine({ dataDirectory: config.storage.path, logger });
  app.decorate('engine', engine);
  app.decorate('quiverConfig', config);
  // The filter module reaches each collection only through these hooks (payload indexes, filters).
  const collections = new CollectionRegistry({ config, logger, hooks: filterHooks(config, logger) });
  engine.addStep(collections.lifecycleStep());
  app.decorate('collections', collections);

  // A route without settings would escape the readiness and permission checks: refuse it.
  app.addHook('onRoute', (route) => {
    if (!route.config?.quiver) throw new Error(`route ${String(route.method)} ${route.url} has no quiver settings`);
  });

  app.setValidatorCompiler(typeboxValidatorCompiler(logger));
  registerJsonBody(app);
  registerErrorHandling(app, bodyLimitBytes);
  registerReadinessGuard(app, engine);
  installAuth(app, engine, config, logger, options.now);

  registerRoutes(app);

  // ---- gRPC door (docs/api.md §12) ----
  // Built here, listening only when main.ts (or a test) calls listen(); it is closed first on
  // shutdown so its in-flight calls finish through the REST routes before fastify closes.
  const grpc = new GrpcServer(app, config, logger);
  app.decorate('grpc', grpc);
  app.addHook('preClose', async () => {
    await grpc.close();
  });

  app.addHook('onClose', async () => {
    await engine.close();
  });
  return app;
}
