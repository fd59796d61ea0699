// Registers the lossless JSON body parser and serializer (json/parse.ts, json/serialize.ts).
import type { FastifyInstance } from 'fastify';
import { parseJson, parseJsonBytes } from '../json/parse.js';
import { parseUpsertBody } from '../json/upsert-body-parser.js';
import { scoredAnswerText } from '../json/scored-answer-text.js';
import { serializeJson } from '../json/serialize.js';
import { exchangeContentType, exchangedBody } from './in-process-exchange.js';

/** The route whose bodies the fast upsert parser reads (json/upsert-body-parser.ts). */
const upsertRoute = '/collections/:collection_name/points';

/**
 * Whether a body is empty or only whitespace, as `text.trim() === ''` says of its text: ASCII
 * whitespace is checked on the bytes; a body that starts with any other non-ASCII byte is decoded.
 */
function isBlank(bytes: Buffer): boolean {
  for (const byte of bytes) {
    if (byte === 0x20 || (byte >= 0x09 && byte <= 0x0d)) continue;
    return byte >= 0x80 && bytes.toString('utf8').trim() === '';
  }
  return true;
}

export function registerJsonBody(app: FastifyInstance): void {
  // Cluster mode re-serialises write bodies for the shards, which wants plain arrays.
  const fastUpsert = !app.quiverConfig.cluster.enabled;
  // JSON only: any other body type is refused with 400 by the error handler.
  app.removeAllContentTypeParsers();
  // Bodies arrive as bytes: a search's long vector is read by the kernel from them in place
  // (parseJsonBytes); only upserts and the slow paths decode the whole text.
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const bytes = body as Buffer;
    // Clients often send `Content-Type: application/json` on body-less calls (rotate, delete).
    if (isBlank(bytes)) return done(null, undefined);
    try {
      // Upserts, the bulk of the bytes, take the fast parser first; undefined = not its shape.
      if (fastUpsert && request.method === 'PUT' && request.routeOptions.url === upsertRoute) {
        const text = bytes.toString('utf8');
        const parsed = parseUpsertBody(text);
        done(null, parsed !== undefined ? parsed : parseJson(text));
        return;
      }
      done(null, parseJsonBytes(bytes));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  // In-process callers' bodies, handed over as values (in-process-exchange.ts); the text is empty.
  app.addContentTypeParser(exchangeContentType, { parseAs: 'string' }, (request, _text, done) => {
    try {
      done(null, exchangedBody(request));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  // The commonest answers, a plain search's or query's, have a writer of their own (scored-answer-text.ts).
  app.setReplySerializer((payload) => scoredAnswerText(payload) ?? serializeJson(payload));
}
