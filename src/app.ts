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

declare module 'fastify' {
  interface FastifyInstance {
    engine: Engine;
    quiverConfig: Config;
    collections: CollectionRegistry;
  }
}

export interface BuildOptions {
  logger?: Logger;
  /** Clock for auth expiry (milliseconds since the epoch); tests move it. */
  now?: () => number;
}

export function buildApp(config: Config, options: BuildOptions = {}): FastifyInstance {
  const logger = options.logger ?? createLogger(config);
  const bodyLimitBytes = Math.floor(config.service.max_request_size_mb * 1024 * 1024);
  const maxParamLength = 1024;
  const app = Fastify({
    loggerInstance: logger,
    // Per-request logs would cost more than a search; failures are still logged.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: bodyLimitBytes,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength },
    frameworkErrors: frameworkErrorHandler(maxParamLength),
    clientErrorHandler,
    return503OnClosing: true,
  }) as unknown as FastifyInstance;

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

  app.addHook('onClose', async () => {
    await engine.close();
  });
  return app;
}
