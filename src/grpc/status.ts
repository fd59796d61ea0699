// One mapping from the error registry's HTTP statuses (src/errors.ts) to gRPC status codes
// (docs/api.md §14): the gRPC door answers with the same message the REST door would.
import { Code, ConnectError } from '@connectrpc/connect';

const codeByStatus: Record<number, Code> = {
  400: Code.InvalidArgument,
  401: Code.Unauthenticated,
  403: Code.PermissionDenied,
  404: Code.NotFound,
  409: Code.AlreadyExists,
  412: Code.FailedPrecondition,
  413: Code.ResourceExhausted,
  429: Code.ResourceExhausted,
  500: Code.Internal,
  501: Code.Unimplemented,
  503: Code.Unavailable,
};

export function grpcCodeOf(httpStatus: number): Code {
  return codeByStatus[httpStatus] ?? (httpStatus >= 500 ? Code.Internal : Code.InvalidArgument);
}

/** The REST answer's status and message as a gRPC error; Retry-After travels as `retry-after` metadata. */
export function errorFromRest(httpStatus: number, message: string, retryAfter?: string): ConnectError {
  const metadata = new Headers();
  if (retryAfter !== undefined) metadata.set('retry-after', retryAfter);
  return new ConnectError(message, grpcCodeOf(httpStatus), metadata);
}

/** A gRPC message that cannot be expressed as a QuiverDB request: INVALID_ARGUMENT naming the field. */
export function invalidArgument(field: string, problem: string): ConnectError {
  return new ConnectError(`${field}: ${problem}`, Code.InvalidArgument);
}
