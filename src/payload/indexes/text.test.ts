import { describe, expect, it } from 'vitest';
import { matchesTextTokenised } from '../../filter/evaluate.js';
import type { TextMode } from '../../filter/types.js';
import { parsePath } from '../path.js';
import { documentTerms, queryTerms, type TextIndexOptions } from '../tokenize.js';
import { textOptionsOf } from './create.js';
import { parseIndexDefinition } from './schema.js';
import { TextIndex } from './text.js';

const documents = [
  'Hello, World!',
  'hello-world wide web',
  'The quick brown fox',
  'quick quick brown',
  '東京タワーへ行く',
  'naïve café crème',
  'x y zz',
  '',
];

const optionSets: [string, TextIndexOptions][] = [
  ['word', textOptionsOf(parseIndexDefinition('text'))],
  ['whitespace', textOptionsOf(parseIndexDefinition({ type: 'text', tokenizer: 'whitespace' }))],
  ['prefix 2..4', textOptionsOf(parseIndexDefinition({ type: 'text', tokenizer: 'prefix', min_token_len: 2, max_token_len: 4 }))],
  ['multilingual', textOptionsOf(parseIndexDefinition({ type: 'text', tokenizer: 'multilingual' }))],
  ['case-sensitive, length 2..5', textOptionsOf(parseIndexDefinition({ type: 'text', lowercase: false, min_token_len: 2, max_token_len: 5 }))],
];

const queries = ['hello', 'Hello world', 'world hello', 'qui', 'quick brown', 'brown quick', 'fox', 'zz', 'x', '東京', 'café', 'hello-world', 'hel wor', ''];
const modes: TextMode[] = ['text', 'text_any', 'phrase'];

describe('text index — the same answers as the tokenised evaluator', () => {
  it.each(optionSets)('%s tokenizer', (_name, options) => {
    const index = new TextIndex(options);
    documents.forEach((document, slot) => index.add(slot, [document]));
    index.add(documents.length, documents.slice(0, 3));
    for (const mode of modes) {
      for (const text of queries) {
        const condition = { kind: 'match_text' as const, key: parsePath('t'), mode, text };
        const answer = index.answer(condition, 16)!;
        const expected = [...documents.map((document) => [document]), documents.slice(0, 3)]
          .map((values, slot) => (matchesTextTokenised(values, mode, text, options) ? slot : -1))
          .filter((slot) => slot >= 0);
        const got = answer.slots.toArray();
        if (answer.exact) expect(got, `${mode} ${text}`).toEqual(expected);
        else expect(expected.every((slot) => got.includes(slot)), `${mode} ${text} superset`).toBe(true);
      }
    }
  });

  it('removing a document takes its terms out', () => {
    const index = new TextIndex(optionSets[0]![1]);
    index.add(1, ['hello world']);
    index.remove(1, ['hello world']);
    expect(index.answer({ kind: 'match_text', key: parsePath('t'), mode: 'text_any', text: 'hello' }, 4)!.slots.size).toBe(0);
  });
});

describe('tokenizers', () => {
  it('word splits on non-alphanumerics and lowercases', () => {
    expect(queryTerms('Hello, World-wide!', optionSets[0]![1])).toEqual(['hello', 'world', 'wide']);
  });
  it('whitespace keeps punctuation', () => {
    expect(queryTerms('Hello, World-wide!', optionSets[1]![1])).toEqual(['hello,', 'world-wide!']);
  });
  it('prefix indexes the prefixes within the length bounds and cuts long query terms', () => {
    expect(documentTerms('Quick', optionSets[2]![1])).toEqual(['qu', 'qui', 'quic']);
    expect(queryTerms('quickly', optionSets[2]![1])).toEqual(['quic']);
  });
  it('multilingual splits text without spaces into words', () => {
    expect(queryTerms('東京タワーへ行く', optionSets[3]![1]).length).toBeGreaterThan(1);
  });
  it('min and max token lengths drop other tokens', () => {
    expect(queryTerms('a bb ccc dddddd', optionSets[4]![1])).toEqual(['bb', 'ccc']);
  });
});

describe('index definitions', () => {
  it('reads names and objects, echoing the object form', () => {
    expect(parseIndexDefinition('keyword')).toEqual({ type: 'keyword', params: undefined });
    expect(parseIndexDefinition(undefined).type).toBe('keyword');
    expect(parseIndexDefinition({ type: 'integer', lookup: false, range: true })).toEqual({ type: 'integer', params: { type: 'integer', lookup: false, range: true } });
  });
  it.each([
    ['vector', 'field_schema: unknown index type "vector"'],
    [{ type: 'integer', lookup: false, range: false }, 'field_schema: an integer index needs lookup or range'],
    [{ type: 'text', tokenizer: 'ngram' }, 'field_schema.tokenizer: expected one of word, whitespace, prefix, multilingual'],
    [{ type: 'text', min_token_len: 5, max_token_len: 2 }, 'min_token_len must not exceed max_token_len'],
    [{ type: 'keyword', lowercase: true }, 'field_schema.lowercase: not a parameter of a keyword index'],
    [{ type: 'bool', on_disk: 'yes' }, 'field_schema.on_disk: expected true or false'],
    [5, 'field_schema: expected a type name or an object'],
  ])('refuses %j', (value, message) => {
    expect(() => parseIndexDefinition(value)).toThrow(message);
  });
});
