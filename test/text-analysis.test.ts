// Text index analysis options end to end: stopwords, Snowball stemming and ASCII folding are
// accepted, echoed in payload_schema as given, survive a restart, and `match.text` through the
// index answers exactly what the evaluator's tokenised twin answers on the same payloads.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { matchesTextTokenised } from '../src/filter/evaluate.js';
import type { TextMode } from '../src/filter/types.js';
import { textOptionsOf } from '../src/payload/indexes/create.js';
import { parseIndexDefinition } from '../src/payload/indexes/schema.js';
import { makeDataDirectory, removeDataDirectory, startServer, type TestServer } from './support/server.js';

const corpus: Record<number, string> = {
  1: 'The runners were running in the park',
  2: 'A runner runs every morning',
  3: 'Café culture in Paris',
  4: 'cafe au lait and croissants',
  5: 'Naïve questions about running shoes',
  6: 'The quick brown foxes jumped',
  7: 'A fox jumps over the lazy dog',
};

const fieldSchema = {
  type: 'text',
  tokenizer: 'word',
  lowercase: true,
  stopwords: { languages: ['english'], custom: ['paris'] },
  stemmer: { type: 'snowball', language: 'english' },
  ascii_folding: true,
};

// Worked out by hand: English Porter2 stems, English stopwords plus "paris", accents folded.
const cases: [TextMode, string, number[]][] = [
  ['text', 'run', [1, 2, 5]],
  ['text', 'runner', [1, 2]],
  ['text', 'cafe', [3, 4]],
  ['text', 'CAFÉS', [3, 4]],
  ['text', 'naive running', [5]],
  ['text', 'the fox', [6, 7]],
  ['text', 'jumping foxes', [6, 7]],
  ['text', 'paris', []],
  ['text', 'the', []],
  ['text_any', 'café lazy', [3, 4, 7]],
  ['phrase', 'running shoes', [5]],
  ['phrase', 'shoes running', []],
];

let directory: string;
let server: TestServer;

beforeAll(async () => {
  directory = await makeDataDirectory();
  server = await startServer(directory);
  await server.client.createCollection('books', { vectors: { size: 2, distance: 'Dot' } });
  await server.client.upsert('books', { wait: true, points: Object.entries(corpus).map(([id, body]) => ({ id: Number(id), vector: [1, 0], payload: { body } })) });
  await server.client.createPayloadIndex('books', { wait: true, field_name: 'body', field_schema: fieldSchema as never });
});

afterAll(async () => {
  await server.close();
  await removeDataDirectory(directory);
});

function conditionOf(mode: TextMode, text: string): Record<string, string> {
  return { [mode]: text };
}

async function matchingIds(mode: TextMode, text: string): Promise<number[]> {
  const page = await server.client.scroll('books', { filter: { must: [{ key: 'body', match: conditionOf(mode, text) as never }] }, limit: 100, with_payload: false });
  return page.points.map((point) => point.id as number).sort((left, right) => left - right);
}

describe('text index analysis options', () => {
  it('text index — stopwords, stemmer and ascii_folding are echoed in payload_schema as given', async () => {
    const info = await server.client.getCollection('books');
    expect(info.payload_schema.body).toEqual({ data_type: 'text', params: fieldSchema, points: 7 });
  });

  it.each(cases)('text index — %s %j matches the hand-worked points', async (mode, text, expected) => {
    expect(await matchingIds(mode, text)).toEqual(expected);
  });

  it.each(cases)('text index — %s %j answers what the tokenised evaluator answers', async (mode, text) => {
    const options = textOptionsOf(parseIndexDefinition(fieldSchema));
    const evaluated = Object.entries(corpus)
      .filter(([, body]) => matchesTextTokenised([body], mode, text, options))
      .map(([id]) => Number(id));
    expect(await matchingIds(mode, text)).toEqual(evaluated);
  });

  it('text index — the options survive a restart', async () => {
    await server.close();
    server = await startServer(directory);
    expect((await server.client.getCollection('books')).payload_schema.body?.params).toEqual(fieldSchema);
    expect(await matchingIds('text', 'jumping foxes')).toEqual([6, 7]);
  });

  it.each([
    [{ type: 'text', stopwords: 'klingon' }, 'field_schema.stopwords: "klingon" is not a supported stopword language (supported: arabic,'],
    [{ type: 'text', stemmer: { type: 'snowball', language: 'greek' } }, 'field_schema.stemmer.language: "greek" has no Snowball stemmer on this server (supported: arabic,'],
    [{ type: 'text', ascii_folding: 'yes' }, 'field_schema.ascii_folding: expected true or false'],
  ])('text index — refuses %j with a 400 naming the field', async (schema, message) => {
    const response = await server.request('PUT', '/collections/books/index?wait=true', { field_name: 'other', field_schema: schema });
    expect(response.status).toBe(400);
    expect(response.body.status.error).toContain(message);
  });
});
