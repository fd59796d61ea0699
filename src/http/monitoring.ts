// GET /metrics and GET /telemetry (docs/api.md §13.2, §13.3), and the two hooks that feed them:
// every finished response is counted once (method, route template, status, duration, and the
// error kind for a failure). The handlers only translate: the figures come from src/monitoring.
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { routeTemplateLabel, unmatchedRoute, type ServerMetrics } from '../monitoring/metrics.js';
import type { RequestStatistics } from '../monitoring/request-statistics.js';
import { buildTelemetry, type TelemetrySources } from '../monitoring/telemetry.js';
import { success } from './envelope.js';
import { toQuiverError } from './error-handler.js';
import { routeSettings } from './route-config.js';

export interface MonitoringParts {
  metrics: ServerMetrics;
  requests: RequestStatistics;
  telemetry: TelemetrySources;
  /** `service.metrics_public`: /metrics needs no credential even with auth on. */
  metricsPublic: boolean;
}

const TelemetryQuerySchema = Type.Object({
  anonymize: Type.Optional(Type.Boolean()),
  details_level: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
  // Accepted as Qdrant does; a single node has no per-collection request split (docs/api.md §13.3).
  per_collection: Type.Optional(Type.Boolean()),
  timeout: Type.Optional(Type.Integer({ minimum: 1 })),
});
type TelemetryQuery = Static<typeof TelemetryQuerySchema>;

const MetricsQuerySchema = Type.Object({
  anonymize: Type.Optional(Type.Boolean()),
  per_collection: Type.Optional(Type.Boolean()),
  timeout: Type.Optional(Type.Integer({ minimum: 1 })),
});

export function registerMonitoring(app: FastifyInstance, parts: MonitoringParts): void {
  // The error's kind is known where it is thrown, the status only once the reply is sent.
  const errorKinds = new WeakMap<FastifyRequest, string>();
  app.addHook('onError', async (request, _reply, error) => {
    // The kind the error handler will answer with (a framework error maps as it does there).
    errorKinds.set(request, toQuiverError(error, 0).kind);
  });
  // A callback hook: counting never waits, and an async hook costs every response a promise.
  app.addHook('onResponse', (request, reply, done) => {
    const route = routeTemplateLabel(request.is404 ? undefined : request.routeOptions.url);
    const status = reply.statusCode;
    const milliseconds = reply.elapsedTime;
    // A 4xx/5xx sent without an error (`/readyz` saying 503) is an answer, not an error.
    const errorKind = errorKinds.get(request);
    parts.metrics.recordResponse({ method: request.method, route, status, seconds: milliseconds / 1000, ...(errorKind ? { errorKind } : {}) });
    if (route !== unmatchedRoute) parts.requests.record(request.method, route, status, milliseconds * 1000);
    done();
  });

  app.get(
    '/metrics',
    // Scrapers may read it while collections load (quiverdb_ready says so).
    { config: routeSettings({ permission: parts.metricsPublic ? 'public' : 'read', beforeReady: true }), schema: { querystring: MetricsQuerySchema } },
    async (_request, reply) => {
      const text = await parts.metrics.scrape();
      return reply.type(parts.metrics.contentType).send(text);
    },
  );

  app.get<{ Querystring: TelemetryQuery }>(
    '/telemetry',
    { config: routeSettings({ permission: 'read' }), schema: { querystring: TelemetryQuerySchema } },
    async (request, reply) =>
      success(reply, buildTelemetry(parts.telemetry, { detailsLevel: request.query.details_level ?? 0, anonymize: request.query.anonymize ?? false })),
  );
}
