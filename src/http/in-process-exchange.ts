// In-process calls through the REST routes without JSON text (docs/architecture.md §11). The
// gRPC door runs every call through `app.inject`, so that readiness, permissions, validation,
// limits and errors are the REST door's own; before this exchange, each call also wrote its body
// as JSON for the route to parse, and the route wrote its answer as JSON for the door to parse:
// four passes over the text per call. Now the caller leaves the body here under a token, sends
// the token in a header with an empty body of `exchangeContentType`, and the route's parser takes
// the body back as values shaped as parsing would shape them (jsonShaped); a success envelope is
// left here for the caller instead of being written out. Error answers stay JSON text.
//
// The token is a per-process secret plus a counter, so a client cannot name another call's
// exchange; an unknown token is answered as any body type other than JSON is.
import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errors } from '../errors.js';
import { jsonShaped } from '../json/json-shaped.js';

export const exchangeContentType = 'application/x-quiver-exchange';
export const exchangeHeader = 'x-quiver-exchange';

const secret = randomBytes(16).toString('hex');
let lastCall = 0;

interface Exchange {
  body: unknown;
  envelope: unknown;
}

/** Open exchanges: one per in-process call in flight, removed by `closeExchange` when it ends. */
const open = new Map<string, Exchange>();

/** Opens an exchange for one call: returns the token to send in `exchangeHeader`. */
export function openExchange(body: unknown): string {
  lastCall += 1;
  const token = `${secret}.${lastCall}`;
  open.set(token, { body, envelope: undefined });
  return token;
}

/** Ends the call's exchange; returns the success envelope its route left, if it left one. */
export function closeExchange(token: string): unknown {
  const exchange = open.get(token);
  open.delete(token);
  return exchange?.envelope;
}

/** Open exchanges now (a rule checks none is left behind). */
export function openExchangeCount(): number {
  return open.size;
}

function exchangeOf(request: FastifyRequest): Exchange | undefined {
  const token = request.headers[exchangeHeader];
  return typeof token === 'string' ? open.get(token) : undefined;
}

/** The body parser for `exchangeContentType`: the exchanged body, as parseJson would have read it. */
export function exchangedBody(request: FastifyRequest): unknown {
  const exchange = exchangeOf(request);
  if (exchange === undefined) throw errors.unsupportedContentType(exchangeContentType);
  const body = exchange.body;
  exchange.body = undefined;
  return body === undefined ? undefined : jsonShaped(body);
}

const emptyBody = () => '';

/** Keeps a success envelope for an exchanging caller, whose reply then has an empty body. */
export function keepForExchange(reply: FastifyReply, envelope: unknown): void {
  const exchange = exchangeOf(reply.request);
  if (exchange === undefined) return;
  exchange.envelope = envelope;
  reply.serializer(emptyBody);
}
