import { describe, expect, it } from 'vitest';
import { documentTerms, queryTerms, wordSequence } from './analyser.js';
import { parseStemmer, parseStopwords, textAnalyserOptionsFromParams } from './analysis-params.js';
import { foldToAscii } from './ascii-folding.js';
import { snowballStemmer } from './snowball.js';

const analyse = (params: Record<string, unknown>, text: string) => wordSequence(text, textAnalyserOptionsFromParams(params));

describe('analyser — stopwords', () => {
  it('a language list drops its words, whatever their case', () => {
    expect(analyse({ stopwords: 'english' }, 'The fox and the hound')).toEqual(['fox', 'hound']);
    expect(analyse({ stopwords: 'english', lowercase: false }, 'The fox AND the hound')).toEqual(['fox', 'hound']);
  });
  it('languages and custom words merge', () => {
    expect(analyse({ stopwords: { languages: ['english', 'french'], custom: ['Fox'] } }, 'the fox et le chien')).toEqual(['chien']);
    expect(analyse({ stopwords: { custom: ['hound'] } }, 'the hound')).toEqual(['the']);
  });
  it('no stopwords parameter keeps every word', () => {
    expect(analyse({}, 'the fox')).toEqual(['the', 'fox']);
    expect(analyse({ stopwords: null }, 'the fox')).toEqual(['the', 'fox']);
  });
  it('an unsupported language is refused naming the field and the supported languages', () => {
    expect(() => parseStopwords('klingon', 'field_schema.stopwords')).toThrow(/field_schema\.stopwords: "klingon" is not a supported stopword language \(supported: arabic, .*english/);
    expect(() => parseStopwords('kazakh', 'f')).toThrow('"kazakh" has no stopword list on this server');
    expect(() => parseStopwords({ languages: ['english', 'elvish'] }, 'f')).toThrow('f.languages[1]: "elvish"');
    expect(() => parseStopwords({ custom: [1] }, 'f')).toThrow('f.custom: expected an array of strings');
    expect(() => parseStopwords({ words: [] }, 'f')).toThrow('f.words: not a stopwords parameter');
  });
});

describe('analyser — Snowball stemming', () => {
  // Snowball English (Porter2) results, the algorithm Qdrant's English stemmer runs.
  it.each([
    ['running', 'run'],
    ['runs', 'run'],
    ['caresses', 'caress'],
    ['ponies', 'poni'],
    ['skies', 'sky'],
    ['dying', 'die'],
    ['generously', 'generous'],
    ['consignment', 'consign'],
    ['knightly', 'knight'],
    ['news', 'news'],
    ['communism', 'communism'],
    ['argued', 'argu'],
    ['happily', 'happili'],
  ])('english: %s -> %s', (word, stem) => {
    expect(snowballStemmer('english')(word)).toBe(stem);
  });
  it('other languages stem with their own rules', () => {
    expect(snowballStemmer('german')('häuser')).toBe('haus');
    expect(snowballStemmer('french')('continuation')).toBe('continu');
  });
  it('stemming makes word forms one term', () => {
    expect(analyse({ stemmer: { type: 'snowball', language: 'english' } }, 'Running runners run')).toEqual(['run', 'runner', 'run']);
  });
  it('stopwords are matched before stemming', () => {
    // "was" would stem to "wa"; as a stopword it is dropped first.
    expect(analyse({ stopwords: 'english', stemmer: { type: 'snowball', language: 'english' } }, 'it was raining')).toEqual(['rain']);
  });
  it('an unsupported stemmer language or type is refused with the supported list', () => {
    expect(() => parseStemmer({ type: 'snowball', language: 'greek' }, 'f.stemmer')).toThrow(/f\.stemmer\.language: "greek" has no Snowball stemmer on this server \(supported: arabic, armenian/);
    expect(() => parseStemmer({ type: 'snowball', language: 'latin' }, 'f')).toThrow('"latin" is not a supported Snowball language');
    expect(() => parseStemmer({ type: 'porter', language: 'english' }, 'f')).toThrow('f.type: expected "snowball"');
    expect(() => parseStemmer('english', 'f')).toThrow('f: expected {"type": "snowball", "language"}');
  });
});

describe('analyser — ASCII folding', () => {
  it('accented Latin letters lose their accents', () => {
    expect(foldToAscii('café crème ação naïve Ångström')).toBe('cafe creme acao naive Angstrom');
  });
  it('letters without a decomposition use their written equivalents', () => {
    expect(foldToAscii('Øresund straße Łódź Æsir')).toBe('Oresund strasse Lodz AEsir');
  });
  it('other scripts are kept as they are', () => {
    expect(foldToAscii('東京 Москва 한국')).toBe('東京 Москва 한국');
  });
  it('a decomposed accent folds like the composed letter', () => {
    expect(foldToAscii('cafe\u0301')).toBe('cafe');
  });
  it('folding applies before splitting, so the option makes accented and plain words one term', () => {
    expect(analyse({ ascii_folding: true }, 'Café naïve')).toEqual(['cafe', 'naive']);
    expect(analyse({}, 'Café')).toEqual(['café']);
  });
});

describe('analyser — length bounds', () => {
  it('bounds apply to the word after stemming', () => {
    // "runs" (4) stems to "run" (3): dropped by min 4.
    expect(analyse({ min_token_len: 4, stemmer: { type: 'snowball', language: 'english' } }, 'runs quickly')).toEqual(['quick']);
  });
  it('min and max keep words within them, counted in characters', () => {
    expect(analyse({ min_token_len: 2, max_token_len: 4 }, 'a ab abcd abcde été')).toEqual(['ab', 'abcd', 'été']);
  });
  it('the prefix tokenizer bounds the prefixes of the analysed word', () => {
    const options = textAnalyserOptionsFromParams({ tokenizer: 'prefix', min_token_len: 2, max_token_len: 3, stopwords: 'english', ascii_folding: true });
    expect(documentTerms('the Café', options)).toEqual(['ca', 'caf']);
    expect(queryTerms('cafés', options)).toEqual(['caf']);
  });
});
