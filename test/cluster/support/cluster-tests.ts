// Shared pieces of the cluster tests: whether they can run here (nats-server installed; with
// QUIVER_REQUIRE_CLUSTER_TESTS=1, as in CI, a missing server is a failure, not a skip), raw HTTP
// calls, and the normalisation that makes a cluster answer comparable with a single node's.
import type { TestApp } from '../../support/app.js';
import { natsServerMissingReason } from './nats-cluster.js';

export const clusterTestsRequired = process.env.QUIVER_REQUIRE_CLUSTER_TESTS === '1';
export const clusterSkipReason = natsServerMissingReason();

export function announceClusterSkip(): void {
  if (clusterSkipReason === undefined) return;
  console.warn(
    clusterTestsRequired
      ? `cluster tests: ${clusterSkipReason} and QUIVER_REQUIRE_CLUSTER_TESTS=1: failing`
      : `cluster tests skipped: ${clusterSkipReason}`,
  );
}

export interface Answer {
  status: number;
  body: { result?: unknown; status?: unknown; [key: string]: unknown };
}

export async function call(base: string, method: string, path: string, body?: unknown): Promise<Answer> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? {} : (JSON.parse(text) as Answer['body']) };
}

/** The result, or a thrown error with the answer when it is not a 200. */
export async function result<Result>(base: string, method: string, path: string, body?: unknown): Promise<Result> {
  const answer = await call(base, method, path, body);
  if (answer.status !== 200) throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body.result as Result;
}

/**
 * A point's `version` is the operation id of the collection that stored it: a shard's own counter
 * in the cluster, the whole collection's on one node. Everything else must match exactly.
 */
export function withoutVersions(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutVersions);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).filter(([key]) => key !== 'version').map(([key, inner]) => [key, withoutVersions(inner)]));
  }
  return value;
}

/** The `result` of a request to the single-node reference (in-process); any other status throws. */
export async function referenceResultOf<Result>(reference: TestApp, method: string, path: string, body?: unknown): Promise<Result> {
  const response = await reference.app.inject({
    method: method as 'GET',
    url: path,
    payload: body === undefined ? undefined : JSON.stringify(body),
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
  });
  if (response.statusCode !== 200) throw new Error(`reference ${method} ${path}: ${response.statusCode} ${response.body}`);
  return (JSON.parse(response.body) as { result: Result }).result;
}
