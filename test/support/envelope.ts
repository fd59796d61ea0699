// Assertions on the wire envelopes (docs/api.md §1), shared by the conformance tests: the
// success envelope, the error envelope, a write's result, and a rejected official-client call.
import { expect } from 'vitest';

/** A raw HTTP answer as TestServer.request gives it. */
export type RawResponse = { status: number; body: any; text: string };

/** The success envelope, exactly its four keys; returns `result`. */
export function expectSuccess(response: RawResponse): any {
  expect(response.status, response.text).toBe(200);
  expect(Object.keys(response.body).sort()).toEqual(['result', 'status', 'time', 'usage']);
  expect(response.body.usage).toEqual({ hardware: null });
  expect(typeof response.body.time).toBe('number');
  expect(response.body.time).toBeGreaterThanOrEqual(0);
  expect(response.body.status).toBe('ok');
  expect(response.body.result).not.toBeNull();
  return response.body.result;
}

/** The error envelope, exactly `{time, status: {error}}`, with the given code and message. */
export function expectError(response: RawResponse, status: number, message?: string | RegExp): string {
  expect(response.status, response.text).toBe(status);
  expect(Object.keys(response.body).sort()).toEqual(['status', 'time']);
  expect(typeof response.body.time).toBe('number');
  expect(Object.keys(response.body.status)).toEqual(['error']);
  const error = response.body.status.error as string;
  expect(typeof error).toBe('string');
  if (typeof message === 'string') expect(error).toBe(message);
  else if (message) expect(error).toMatch(message);
  return error;
}

/** A write's result, `{operation_id, status}`, completed with wait=true; returns the operation id. */
export function expectWriteResult(result: any, wait: boolean): number {
  expect(Object.keys(result).sort()).toEqual(['operation_id', 'status']);
  expect(Number.isSafeInteger(result.operation_id)).toBe(true);
  expect(result.operation_id).toBeGreaterThanOrEqual(0);
  expect(result.status).toBe(wait ? 'completed' : 'acknowledged');
  return result.operation_id;
}

/** The HTTP status of a rejected client call (the client throws on every non-2xx). */
export async function clientStatus(call: Promise<unknown>): Promise<{ status: number; data: any }> {
  try {
    await call;
  } catch (error) {
    const failure = error as { status?: number; data?: any };
    return { status: failure.status ?? -1, data: failure.data };
  }
  throw new Error('the client call succeeded');
}
