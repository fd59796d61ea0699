// The one error handler: every failure leaves as the contract's envelope with the registry's
// status. Unknown errors become 500 and are logged; client errors are not logged as errors.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errors, isQuiverError, publicCause, QuiverError, QuiverErrorWithRetry, type ErrorKind, type FailedOperation } from '../errors.js';
import type { Socket } from 'node:net';
import { serializeJson } from '../json/serialize.js';
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
  return new QuiverError('internal', `Internal error: ${publicCause(error)}`, { cause: error });
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

/** What a connection-level failure (node's HTTP parser, a timeout) says to the client. */
function clientErrorMessage(code: string | undefined): string {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return 'Bad request: the request line and headers are too large';
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return 'Bad request: the request did not arrive in time';
    case 'HPE_INVALID_METHOD':
      return 'Bad request: unknown HTTP method';
    case 'HPE_INVALID_URL':
      return 'Bad request: malformed URL';
    case 'HPE_INVALID_HEADER_TOKEN':
    case 'HPE_INVALID_CONSTANT':
    case 'HPE_LF_EXPECTED':
    case 'HPE_CR_EXPECTED':
      return 'Bad request: malformed header';
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
    case 'HPE_INVALID_CONTENT_LENGTH':
    case 'HPE_INVALID_TRANSFER_ENCODING':
    case 'HPE_INVALID_CHUNK_SIZE':
      return 'Bad request: malformed message framing (Content-Length or Transfer-Encoding)';
    default:
      return 'Bad request: malformed HTTP request';
  }
}

/**
 * Fastify's `clientErrorHandler`: a request node's HTTP parser refuses (bad request line, header
 * problems, oversized headers, a timeout) never reaches a route and would get fastify's own body.
 * It gets the contract's envelope instead, as a 400 (docs/api.md §1.2), in the auth group's shape
 * when the raw request names an `/auth` path; then the connection is closed, as node does.
 */
export function clientErrorHandler(error: Error & { code?: string; rawPacket?: unknown }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const message = clientErrorMessage(error.code);
  const requestLine = Buffer.isBuffer(error.rawPacket) ? error.rawPacket.subarray(0, 64).toString('latin1') : '';
  const isAuth = /^[A-Z]+ \/auth(\/|\?| |$)/.test(requestLine);
  const body = serializeJson(isAuth ? { status: 'error', message } : { time: 0, status: { error: message } });
  if (socket.writable) {
    socket.write(`HTTP/1.1 400 Bad Request\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n${body}`);
  }
  socket.destroy(error);
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
