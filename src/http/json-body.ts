// Registers the lossless JSON body parser and serializer (json/parse.ts, json/serialize.ts).
import type { FastifyInstance } from 'fastify';
import { parseJson } from '../json/parse.js';
import { serializeJson } from '../json/serialize.js';

export function registerJsonBody(app: FastifyInstance): void {
  // JSON only: any other body type is refused with 400 by the error handler.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = body as string;
    // Clients often send `Content-Type: application/json` on body-less calls (rotate, delete).
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, parseJson(text));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  app.setReplySerializer((payload) => serializeJson(payload));
}
