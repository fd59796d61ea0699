// Wires authentication into the app: the service (decorated as `authService`), its start-up
// step, and the permission hook. Called from app.ts right after the readiness guard.
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Engine } from '../engine/engine.js';
import type { Database } from '../storage/database.js';
import { registerPermissionHook, type RegisteredRoute } from './permission-hook.js';
import { AuthService } from './service.js';

declare module 'fastify' {
  interface FastifyInstance {
    authService: AuthService;
    /** Every route registered after auth was installed, with its declared permission. */
    registeredRoutes: readonly RegisteredRoute[];
  }
}

function databaseOrUndefined(engine: Engine): Database | undefined {
  try {
    return engine.database;
  } catch {
    return undefined; // not open yet
  }
}

export function installAuth(app: FastifyInstance, engine: Engine, config: Config, logger: Logger, now?: () => number): void {
  const service = new AuthService({
    settings: config.auth,
    dataDirectory: config.storage.path,
    fsync: config.storage.fsync,
    logger,
    database: () => (engine.state === 'initializing' || engine.state === 'ready' ? databaseOrUndefined(engine) : undefined),
    ...(now ? { now } : {}),
  });
  app.decorate('authService', service);
  engine.addStep(service.startupStep());
  app.decorate('registeredRoutes', registerPermissionHook(app, service));
}
