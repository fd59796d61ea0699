// The one error handler: every failure leaves as the contract's envelope with the registry's
// status. Unknown errors become 500 and are logged; client errors are not logged as errors.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errors, isQuiverError, QuiverError, QuiverErrorWithRetry, type ErrorKind, type FailedOperation } from '../errors.js';
import type { AuthErrorEnvelope, ErrorEnvelope } from './envelope.js';

const kindByStatus: Record<number, ErrorKind> = {
  400: 'invalid_input',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  412: 'precondition_failed',
  429: 'too_many_requests',
  501: 'not_implemented',
};

/**
 * The operation a route performs, for the spec's 500 wording (`Search failed: ...`): a failure
 * nobody anticipated (a bug, a kernel error) still names what was being done.
 */
export function failedOperationOf(method: string, routeUrl: string | undefined): FailedOperation | undefined {
  if (routeUrl === undefined || !routeUrl.startsWith('/collections')) return routeUrl?.startsWith('/auth') ? 'Authentication' : undefined;
  const tail = routeUrl.replace(/^\/collections(\/:collection_name)?/, '');
  if (tail === '' || tail === '/exists') return 'Collection operation';
  if (tail === '/points' || tail === '/points/vectors') return method === 'PUT' ? 'Upsert' : 'Search';
  if (tail === '/points/delete') return 'Delete';
  if (tail.startsWith('/points/payload')) return 'Payload operation';
  if (tail.startsWith('/index')) return 'Field index';
  if (tail.startsWith('/points')) return 'Search';
  return undefined;
}

/** Maps anything thrown to a registry error; framework client errors become 400s. */
export function toQuiverError(error: unknown, bodyLimitBytes: number, operation?: FailedOperation): QuiverError {
  if (isQuiverError(error)) return error;
  const framework = error as Partial<FastifyError>;
  switch (framework.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return errors.bodyTooLarge(bodyLimitBytes);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return errors.invalidInput('Unsupported Content-Type: send application/json');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return errors.malformedJson(framework.message ?? 'invalid body');
    default:
      break;
  }
  const status = framework.statusCode;
  if (status !== undefined && status >= 400 && status < 500) {
    return new QuiverError(kindByStatus[status] ?? 'invalid_input', framework.message ?? 'Bad request');
  }
  if (operation) return errors.internal(operation, error);
  return new QuiverError('internal', `Internal error: ${framework.message ?? String(error)}`, { cause: error });
}

export function errorBody(error: QuiverError, request: FastifyRequest, reply: FastifyReply): ErrorEnvelope | AuthErrorEnvelope {
  if (request.routeOptions.config?.quiver?.envelope === 'auth') return { status: 'error', message: error.message };
  return { time: reply.elapsedTime / 1000, status: { error: error.message } };
}

/**
 * Fastify's `frameworkErrors`: a malformed or over-long URL is refused before any route runs,
 * and would otherwise leave in fastify's own body (and as a 414). Same envelope, 400.
 */
export function frameworkErrorHandler(maxParamLength: number) {
  return (error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void => {
    const quiverError = error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? errors.pathParameterTooLong(maxParamLength) : errors.badUrl(error.message);
    const body: ErrorEnvelope = { time: reply.elapsedTime / 1000, status: { error: quiverError.message } };
    void reply.status(quiverError.status).send(body);
  };
}

export function registerErrorHandling(app: FastifyInstance, bodyLimitBytes: number): void {
  app.setErrorHandler((error, request, reply) => {
    const quiverError = toQuiverError(error, bodyLimitBytes, failedOperationOf(request.method, request.routeOptions.url));
    // A 503 is load shedding (a full write queue), expected under load: not logged as a failure.
    if (quiverError.status >= 500 && quiverError.kind !== 'not_implemented' && quiverError.kind !== 'unavailable') {
      request.log.error({ err: error, method: request.method, url: request.url }, quiverError.message);
    }
    if (quiverError instanceof QuiverErrorWithRetry) void reply.header('retry-after', String(quiverError.retryAfterSeconds));
    return reply.status(quiverError.status).send(errorBody(quiverError, request, reply));
  });
  app.setNotFoundHandler((request) => {
    throw errors.routeNotFound(request.method, request.url.split('?')[0] ?? request.url);
  });
}
