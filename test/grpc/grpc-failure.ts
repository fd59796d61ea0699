// The gRPC error a call ends with; a call that succeeds fails the test.
import { ConnectError } from '@connectrpc/connect';

export async function grpcFailure(call: Promise<unknown>): Promise<ConnectError> {
  try {
    await call;
  } catch (error) {
    return ConnectError.from(error);
  }
  throw new Error('the call succeeded');
}
