import { describe, expect, it } from 'vitest';
import { bm25DocumentVector, bm25QueryVector, parseBm25Options, termId, textDocumentVector } from './bm25.js';

function weightOf(vector: { indices: number[]; values: number[] }, term: string): number | undefined {
  const position = vector.indices.indexOf(termId(term));
  return position < 0 ? undefined : vector.values[position];
}

describe('bm25 — document weights', () => {
  it('bm25 — document weights match a hand-computed example', () => {
    // Terms after stopwords and stemming: cat, sat, mat, cat, sit (5 terms), avg_len 5, so the
    // length factor is 1 - 0.75 + 0.75 * 5/5 = 1. cat: 2 * 2.2 / (2 + 1.2) = 1.375; others:
    // 1 * 2.2 / (1 + 1.2) = 1.
    const vector = bm25DocumentVector('The cat sat on the mat. Cats sit!', parseBm25Options({ avg_len: 5 }));
    expect(vector.indices).toHaveLength(4);
    expect(weightOf(vector, 'cat')).toBeCloseTo(1.375, 6);
    expect(weightOf(vector, 'sat')).toBeCloseTo(1, 6);
    expect(weightOf(vector, 'mat')).toBeCloseTo(1, 6);
    expect(weightOf(vector, 'sit')).toBeCloseTo(1, 6);
    expect(weightOf(vector, 'the')).toBeUndefined();
  });
  it('bm25 — length normalisation uses k, b and avg_len', () => {
    // 3 terms, avg_len 6, k 2, b 0.5: factor 1 - 0.5 + 0.5 * 3/6 = 0.75; "alpha" twice:
    // 2 * 3 / (2 + 2 * 0.75) = 6 / 3.5.
    const model = parseBm25Options({ k: 2, b: 0.5, avg_len: 6, language: 'none' });
    const vector = bm25DocumentVector('alpha beta alpha', model);
    expect(weightOf(vector, 'alpha')).toBeCloseTo(6 / 3.5, 6);
    expect(weightOf(vector, 'beta')).toBeCloseTo(3 / (1 + 1.5), 6);
  });
  it('bm25 — values are f32 and indices ascending and distinct', () => {
    const vector = bm25DocumentVector('one two three two one one', parseBm25Options({ language: 'none' }));
    expect(vector.indices).toEqual([...vector.indices].sort((left, right) => left - right));
    expect(new Set(vector.indices).size).toBe(3);
    for (const value of vector.values) expect(Math.fround(value)).toBe(value);
  });
  it('bm25 — an empty or all-stopword text is an empty vector', () => {
    expect(bm25DocumentVector('', parseBm25Options(undefined))).toEqual({ indices: [], values: [] });
    expect(bm25DocumentVector('the and of', parseBm25Options(undefined))).toEqual({ indices: [], values: [] });
  });
});

describe('bm25 — query vectors', () => {
  it('bm25 — each distinct query term weighs 1', () => {
    const vector = bm25QueryVector('running runs the runner', parseBm25Options(undefined));
    expect(vector.indices).toEqual([termId('run'), termId('runner')].sort((left, right) => left - right));
    expect(vector.values).toEqual([1, 1]);
  });
});

describe('bm25 — term ids', () => {
  it('bm25 — a term id is |murmur3 as i32|', () => {
    // murmur3("hello") = 0x248bfa47 is positive as i32; "a" hashes to 0x3c2569b2 (positive too);
    // "abc" = 0xb3dd93fa is negative as i32, so its id is 2^32 - 0xb3dd93fa.
    expect(termId('hello')).toBe(0x248bfa47);
    expect(termId('abc')).toBe(2 ** 32 - 0xb3dd93fa);
  });
});

describe('bm25 — options and models', () => {
  it('bm25 — defaults are k 1.2, b 0.75, avg_len 256, English stopwords and stemmer', () => {
    const model = parseBm25Options(undefined);
    expect([model.k, model.b, model.averageLength]).toEqual([1.2, 0.75, 256]);
    expect(model.analyser.stopwords.has('the')).toBe(true);
    expect(model.analyser.stemmer?.('running')).toBe('run');
  });
  it('bm25 — language picks the stopwords and stemmer; "none" turns both off', () => {
    const spanish = parseBm25Options({ language: 'spanish' });
    expect(bm25QueryVector('los gatos', spanish).indices).toEqual([termId('gat')]);
    const none = parseBm25Options({ language: 'none' });
    expect(bm25QueryVector('the running', none).indices.sort()).toEqual([termId('the'), termId('running')].sort());
  });
  it('bm25 — explicit stopwords and stemmer override the language', () => {
    const model = parseBm25Options({ stopwords: { custom: ['cat'] }, stemmer: { type: 'snowball', language: 'english' } });
    expect(bm25QueryVector('the cat running', model).indices.sort()).toEqual([termId('the'), termId('run')].sort());
  });
  it.each([
    [{ k: -1 }, 'options.k: expected a number >= 0'],
    [{ b: 1.5 }, 'options.b: expected a number from 0 to 1'],
    [{ avg_len: 0 }, 'options.avg_len: expected a number > 0'],
    [{ k1: 1 }, 'options.k1: not a BM25 option'],
    [{ tokenizer: 'ngram' }, 'options.tokenizer: expected one of word'],
    [{ language: 'kazakh' }, 'options.language: "kazakh" has no stopword list on this server'],
    [{ stemmer: { type: 'snowball', language: 'greek' } }, 'options.stemmer.language: "greek" has no Snowball stemmer'],
  ])('bm25 — refuses options %j', (options, message) => {
    expect(() => parseBm25Options(options)).toThrow(message);
  });
  it('bm25 — an unknown model is refused listing the supported ones', () => {
    expect(() => textDocumentVector({ text: 'x', model: 'sentence-transformers/all-MiniLM-L6-v2' }, 'document')).toThrow(
      'document.model: unsupported model "sentence-transformers/all-MiniLM-L6-v2" (supported: qdrant/bm25)',
    );
  });
  it('bm25 — a Document turns into the document or query vector of its model', () => {
    const document = { text: 'Cats and cats', model: 'Qdrant/bm25', options: { avg_len: 2 } };
    expect(textDocumentVector(document, 'query')).toEqual({ indices: [termId('cat')], values: [1] });
    // 2 terms, avg_len 2: factor 1; 2 * 2.2 / (2 + 1.2) = 1.375.
    expect(textDocumentVector(document, 'document').values[0]).toBeCloseTo(1.375, 6);
  });
});
