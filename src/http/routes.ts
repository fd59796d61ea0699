// Registers every route module. Each resource has one file in src/http; add it here.
import type { FastifyInstance } from 'fastify';
import { registerAuthRoutes } from './auth.js';
import { registerHealthRoutes } from './health.js';
import { registerNotImplementedRoutes } from './not-implemented.js';

export function registerRoutes(app: FastifyInstance): void {
  registerHealthRoutes(app);
  registerAuthRoutes(app);
  registerNotImplementedRoutes(app);
}
