// The error registry: every error the server answers with is built here, so each kind has one
// HTTP status and one message pattern (docs/api.md §1). Services throw these; the one error handler
// in http/error-handler.ts turns them into the contract's envelopes.

/** Error kinds and the HTTP status each one answers with. */
export const errorStatus = {
  invalid_input: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  precondition_failed: 412,
  too_many_requests: 429,
  internal: 500,
  not_implemented: 501,
  unavailable: 503,
} as const;

export type ErrorKind = keyof typeof errorStatus;

export class QuiverError extends Error {
  override name = 'QuiverError';
  readonly status: number;

  constructor(
    readonly kind: ErrorKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.status = errorStatus[kind];
  }
}

/** An error whose answer tells the client when to try again (the `Retry-After` header, seconds). */
export class QuiverErrorWithRetry extends QuiverError {
  constructor(
    kind: ErrorKind,
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(kind, message);
  }
}

export function isQuiverError(error: unknown): error is QuiverError {
  return error instanceof QuiverError;
}

/** The operations whose internal failures the spec names: "Upsert failed: ...". */
export type FailedOperation =
  | 'Upsert'
  | 'Delete'
  | 'Search'
  | 'Payload operation'
  | 'Field index'
  | 'Index rebuild'
  | 'Optimization'
  | 'Snapshot'
  | 'Collection operation'
  | 'Authentication';

export const errors = {
  invalidInput: (message: string) => new QuiverError('invalid_input', message),
  /** A field of the request is wrong; `field` is a dotted path such as `points[3].vector`. */
  invalidField: (field: string, problem: string) => new QuiverError('invalid_input', `${field}: ${problem}`),
  /** A refusal of one operation of `POST .../points/batch`: same kind, message prefixed `operations[i]`. */
  withinOperation: (position: number, error: QuiverError) => new QuiverError(error.kind, `operations[${position}]: ${error.message}`, { cause: error }),
  malformedJson: (detail: string) => new QuiverError('invalid_input', `Format error in JSON body: ${detail}`),
  bodyTooLarge: (limitBytes: number) =>
    new QuiverError('invalid_input', `Request body is larger than the limit of ${limitBytes} bytes`),
  unsupportedContentType: (contentType: string) =>
    new QuiverError('invalid_input', `Unsupported Content-Type "${contentType}": send application/json`),
  vectorsConfigRequired: () => new QuiverError('invalid_input', 'vectors_config is required'),
  dimensionMismatch: (field: string, expected: number, actual: number) =>
    new QuiverError('invalid_input', `Wrong input: Vector dimension error: ${field}: expected ${expected}, got ${actual}`),
  invalidPointId: (value: string) =>
    new QuiverError(
      'invalid_input',
      `value ${value} is not a valid point ID, valid values are either an unsigned integer or a UUID`,
    ),

  unauthorized: () => new QuiverError('unauthorized', 'Invalid or missing authorization token'),
  forbidden: (detail: string) => new QuiverError('forbidden', `Permission denied: ${detail}`),
  authDisabled: () => new QuiverError('forbidden', 'Access token API requires auth_enabled=true'),
  /** docs/api.md §7.3: with auth off nobody can become admin, log in or change the admin password. */
  adminApiDisabled: () => new QuiverError('forbidden', 'Admin user API requires auth_enabled=true'),
  accessTokenNotFound: () => new QuiverError('not_found', 'Access token not found'),
  expiredTokenRotation: () => new QuiverError('invalid_input', 'Cannot rotate an expired access token'),
  tooManyLoginAttempts: (retryAfterSeconds: number) =>
    new QuiverError('too_many_requests', `Too many failed login attempts: retry in ${retryAfterSeconds} s`),
  invalidLogin: () => new QuiverError('unauthorized', 'Invalid username or password'),
  wrongCurrentPassword: () => new QuiverError('forbidden', 'Permission denied: the current password is wrong'),
  adminAlreadyExists: () => new QuiverError('conflict', 'Admin user already exists'),
  setupCodeRequired: () =>
    new QuiverError('forbidden', 'Permission denied: creating the first admin needs the setup code logged at start'),
  missingPermission: (permission: string) => new QuiverError('forbidden', `Permission denied: this endpoint needs the ${permission} permission`),
  accessTokenLimit: (limit: number) => new QuiverError('invalid_input', `Too many access tokens: at most ${limit} may exist`),

  collectionNotFound: (name: string) => new QuiverError('not_found', `Collection not found: ${name}`),
  collectionExists: (name: string) => new QuiverError('conflict', `Collection already exists: ${name}`),
  pointNotFound: (id: string) => new QuiverError('not_found', `Point with id ${id} does not exist`),
  /** No such route at all; worded so it cannot be read as a missing collection or point. */
  routeNotFound: (method: string, url: string) => new QuiverError('not_found', `route not found: ${method} ${url}`),
  /** `GET /dashboard` before `npm run build:dashboard` wrote dist/dashboard (docs/api.md, the dashboard section). */
  dashboardNotBuilt: () => new QuiverError('not_found', 'dashboard not built: run npm run build:dashboard'),
  pathParameterTooLong: (limit: number) => new QuiverError('invalid_input', `Bad request: a path parameter is longer than ${limit} characters`),
  badUrl: (detail: string) => new QuiverError('invalid_input', `Bad request: ${detail}`),

  engineNotInitialized: () => new QuiverError('precondition_failed', 'Engine not initialized'),
  collectionMarkedForDeletion: (name: string) =>
    new QuiverError('precondition_failed', `Collection ${name} is marked for deletion`),

  // Search and query (docs/api.md §3, §5). The §5.3 refusals keep Qdrant's wording, which clients know.
  /** A body field broke a rule that spans fields; worded like the schema validator's messages. */
  invalidBodyField: (field: string, problem: string) => new QuiverError('invalid_input', `Validation error in body ${field}: ${problem}`),
  prefetchWithoutQuery: (where: string) =>
    new QuiverError('invalid_input', `Bad request: A query is needed to merge the prefetches. Can't have prefetches without defining a query.${where}`),
  scoreThresholdWithoutQuery: (where: string) =>
    new QuiverError('invalid_input', `Bad request: A query is needed to use the score_threshold. Can't have score_threshold without defining a query.${where}`),
  scoreThresholdWithOrderBy: (where: string) =>
    new QuiverError('invalid_input', `Bad request: Can't use score_threshold with an order_by query.${where}`),
  fusionWithUsing: (where: string) =>
    new QuiverError('invalid_input', `Bad request: Fusion queries cannot be combined with the 'using' field.${where}`),
  fusionWithoutPrefetch: (where: string) => new QuiverError('invalid_input', `Bad request: cannot apply Fusion without prefetches${where}`),

  // Strict mode (docs/api.md §4.5), in Qdrant's wording: what was exceeded, then what to do.
  strictMode: (description: string, help: string) => new QuiverError('invalid_input', `Bad request: ${description}. Help: ${help}`),
  rateLimited: (kind: 'read' | 'write', retryAfterSeconds: number) =>
    new QuiverError('too_many_requests', `Rate limiting exceeded: ${kind === 'read' ? 'Read' : 'Write'} rate limit exceeded, retry after ${retryAfterSeconds} s`),

  /** A collection's write queue is full (docs/api.md §8); the answer carries Retry-After. */
  shuttingDown: () => new QuiverErrorWithRetry('unavailable', 'Service unavailable: the server is shutting down', 1),
  writeQueueFull: (capacity: number, retryAfterSeconds: number) =>
    new QuiverErrorWithRetry(
      'unavailable',
      `Service unavailable: the collection's write queue is full (${capacity} writes waiting), retry after ${retryAfterSeconds} s`,
      retryAfterSeconds,
    ),

  /** The cause is told without file paths (publicCause); the whole cause goes to the log. */
  internal: (operation: FailedOperation, cause: unknown) => new QuiverError('internal', `${operation} failed: ${publicCause(cause)}`, { cause }),
  /** A collection whose data could not be loaded at start (docs/api.md §4.3): reported red, not served. */
  collectionUnavailable: (name: string, reason: string) =>
    new QuiverError('internal', `Collection operation failed: collection ${name} could not be loaded at start: ${withoutPaths(reason)}`),
  notImplemented: (feature: string) => new QuiverError('not_implemented', `${feature} is not implemented in QuiverDB`),
  // ---- cluster mode (docs/cluster.md)
  shardUnavailable: (collection: string, shard: number, detail: string) =>
    new QuiverErrorWithRetry('unavailable', `Service unavailable: shard ${shard} of collection ${collection}: ${detail}`, 1),
  clusterLogUnavailable: (collection: string, detail: string) =>
    new QuiverErrorWithRetry('unavailable', `Service unavailable: the write log of collection ${collection} did not store the write: ${detail}`, 1),
  writeNotApplied: (collection: string, shard: number, applied: number, needed: number, timeoutMs: number) =>
    new QuiverErrorWithRetry(
      'unavailable',
      `Service unavailable: ${applied} of the ${needed} replicas of shard ${shard} of collection ${collection} that write_consistency_factor asks for applied the write within ${timeoutMs} ms (it is stored in the log and will be applied)`,
      1,
    ),
  /** An error a replica answered with, passed on with its status and message. */
  fromReplica: (status: number, message: string) => new QuiverError(errorKindOfStatus(status), message),
} as const;

/** The kind answering with `status` (an unknown status reads as internal). */
export function errorKindOfStatus(status: number): ErrorKind {
  const found = (Object.entries(errorStatus) as [ErrorKind, number][]).find(([, code]) => code === status);
  return found ? found[0] : 'internal';
}

/** Absolute file paths (two or more segments), as storage and kernel errors quote them. */
const absolutePath = /(?<=^|[\s'"(:=])\/(?:[^\s'"(),:/]+\/)+[^\s'"(),:]*/g;

/** `text` with every absolute file path replaced: a client never learns the server's layout. */
export function withoutPaths(text: string): string {
  return text.replace(absolutePath, '<path>');
}

/**
 * What a client is told about the cause of a 500 (docs/durability.md): storage failures by
 * class — the operation's own message names the operation — and never a file path; the full
 * cause, path included, goes to the log only (the error handler logs `cause`).
 */
export function publicCause(cause: unknown): string {
  const message = cause instanceof Error ? cause.message : String(cause);
  const code = (cause as { code?: unknown } | null)?.code;
  if (code === 'ENOSPC' || /no space left on device/i.test(message)) return 'insufficient storage: no space left on the data volume';
  if (code === 'EROFS' || /read-only file system/i.test(message)) return 'the storage is read-only: writes are refused, reads go on';
  if (/^Corruption:/i.test(message) || code === 'LEVEL_CORRUPTION') return 'the store is damaged (corruption); see the server log';
  const syscall = (cause as { syscall?: unknown } | null)?.syscall;
  // A file system call's own error (Node's fs): its class and call, its path only in the log.
  if (typeof code === 'string' && typeof syscall === 'string') return `storage error (${code} in ${syscall})`;
  if (/^IO error:/i.test(message) || code === 'LEVEL_IO_ERROR') return `storage I/O error: ${withoutPaths(message.replace(/^IO error:\s*/i, ''))}`;
  return withoutPaths(message);
}
