// The gRPC door's way into the engine: each call becomes the REST request the REST door would
// receive (method, path, body, the caller's credential headers) and is dispatched in-process
// through the same fastify instance (no socket; the body and the success envelope pass as values,
// src/http/in-process-exchange.ts). Readiness, auth and permissions, validation,
// limits, strict mode, the write path and the error messages are therefore the REST door's own,
// by construction (docs/architecture.md §11).
import type { FastifyInstance } from 'fastify';
import type { CallContext } from './transport.js';
import type { SuccessEnvelope } from '../http/envelope.js';
import { closeExchange, exchangeContentType, exchangeHeader, openExchange } from '../http/in-process-exchange.js';
import { jsonShaped } from '../json/json-shaped.js';
import { Float32Row } from '../points/float32-row.js';
import { parseJson } from '../json/parse.js';
import { errorFromRest, invalidArgument } from './status.js';

/** The REST envelope's parts the gRPC answers reuse. */
export interface RestAnswer<Result> {
  result: Result;
  /** Seconds, as REST's `time`. */
  time: number;
}

export type RestMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Credential metadata forwarded as the same-named HTTP headers (docs/api.md §7). */
const credentialHeaders = ['api-key', 'authorization'] as const;

export class RestDoor {
  constructor(private readonly app: FastifyInstance) {}

  async call<Result>(context: CallContext, method: RestMethod, path: string, body?: unknown): Promise<RestAnswer<Result>> {
    // The body and the success envelope travel as values (src/http/in-process-exchange.ts).
    const token = openExchange(body);
    const headers: Record<string, string> = { [exchangeHeader]: token };
    for (const name of credentialHeaders) {
      const value = context.requestHeader.get(name);
      if (value !== null) headers[name] = value;
    }
    if (body !== undefined) headers['content-type'] = exchangeContentType;
    let response: Awaited<ReturnType<FastifyInstance['inject']>>;
    let envelope: unknown;
    try {
      response = await this.app.inject({ method, url: path, headers });
    } finally {
      envelope = closeExchange(token);
    }
    if (response.statusCode < 400 && envelope !== undefined) {
      const kept = envelope as SuccessEnvelope<unknown>;
      // Shaped as the JSON text would have been read, so the converters see what they always saw,
      // but for vectors' rows: kept as float32 for the messages' float fields (convert/vectors.ts).
      return { result: jsonShaped(kept.result, isFloat32Row) as Result, time: kept.time };
    }
    let parsed: Record<string, unknown> | undefined;
    try {
      parsed = parseJson(response.body) as Record<string, unknown>;
    } catch {
      parsed = undefined;
    }
    if (response.statusCode >= 400) {
      const retryAfter = response.headers['retry-after'];
      throw errorFromRest(response.statusCode, errorMessage(parsed, response.body), retryAfter === undefined ? undefined : String(retryAfter));
    }
    return { result: parsed?.result as Result, time: typeof parsed?.time === 'number' ? parsed.time : 0 };
  }
}

function isFloat32Row(value: object): boolean {
  return value instanceof Float32Row;
}

/** The message of either REST error envelope (docs/api.md §1.1). */
function errorMessage(parsed: Record<string, unknown> | undefined, text: string): string {
  const status = parsed?.status;
  if (typeof status === 'object' && status !== null && typeof (status as { error?: unknown }).error === 'string') return (status as { error: string }).error;
  if (typeof parsed?.message === 'string') return parsed.message;
  return text;
}

/** A collection name as one path segment. */
export function collectionPath(name: string, tail = ''): string {
  // An empty name would address `/collections` itself (the list), not a collection.
  if (name === '') throw invalidArgument('collection_name', 'must not be empty');
  return `/collections/${encodeURIComponent(name)}${tail}`;
}

/** `?wait=true` when the call asked to wait (REST's default is not to). */
export function waitQuery(wait: boolean | undefined): string {
  return wait ? '?wait=true' : '';
}
