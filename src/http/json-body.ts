// Registers the lossless JSON body parser and serializer (json/parse.ts, json/serialize.ts).
import type { FastifyInstance } from 'fastify';
import { parseJson } from '../json/parse.js';
import { parseUpsertBody } from '../json/upsert-body-parser.js';
import { scoredAnswerText } from '../json/scored-answer-text.js';
import { serializeJson } from '../json/serialize.js';
import { exchangeContentType, exchangedBody } from './in-process-exchange.js';

/** The route whose bodies the fast upsert parser reads (json/upsert-body-parser.ts). */
const upsertRoute = '/collections/:collection_name/points';

export function registerJsonBody(app: FastifyInstance): void {
  // Cluster mode re-serialises write bodies for the shards, which wants plain arrays.
  const fastUpsert = !app.quiverConfig.cluster.enabled;
  // JSON only: any other body type is refused with 400 by the error handler.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    // Clients often send `Content-Type: application/json` on body-less calls (rotate, delete).
    if (text.trim() === '') return done(null, undefined);
    try {
      // Upserts, the bulk of the bytes, take the fast parser first; undefined = not its shape.
      if (fastUpsert && request.method === 'PUT' && request.routeOptions.url === upsertRoute) {
        const parsed = parseUpsertBody(text);
        if (parsed !== undefined) return done(null, parsed);
      }
      done(null, parseJson(text));
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
