// A request to this node's own shard collections, through fastify's inject (no socket), as the
// gRPC door does (src/grpc/rest-door.ts): the REST routes' validation, limits and errors apply.
import type { FastifyInstance } from 'fastify';
import { internalRequestHeader, internalRequestToken } from '../auth/internal-request.js';
import { serializeJson } from '../json/serialize.js';

export interface LocalAnswer {
  status: number;
  /** The response body as sent (JSON text; parsed by the receiver, bigints kept). */
  body: string;
}

export async function dispatchLocal(app: FastifyInstance, method: string, url: string, body?: unknown): Promise<LocalAnswer> {
  const headers: Record<string, string> = { [internalRequestHeader]: internalRequestToken };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await app.inject({
    method: method as 'GET',
    url,
    headers,
    payload: body === undefined ? undefined : serializeJson(body),
  });
  return { status: response.statusCode, body: response.body };
}

/** The `/collections/{name}` prefix of a local shard collection. */
export function localCollectionUrl(localName: string, tail: string, query = ''): string {
  return `/collections/${encodeURIComponent(localName)}${tail}${query}`;
}
