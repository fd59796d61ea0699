// BM25 text -> sparse vector, as Qdrant's server-side inference does for a Document
// `{"text", "model": "qdrant/bm25", "options"}` (docs/api.md §5). Pure functions: sparse vector
// storage and the IDF modifier that completes the score are applied where vectors are searched.
//
// - Terms come from the shared analyser (src/text/analyser.ts) configured by the options; with
//   no options that is the word tokenizer, lowercase, English stopwords and the English
//   Snowball stemmer, like Qdrant's default `language: "english"`.
// - A term's index is MurmurHash3 x86_32 (seed 0) of its UTF-8 bytes read as a signed 32-bit
//   integer, made non-negative — Qdrant's and fastembed's term ids, so indices agree for equal
//   terms. Terms can still differ from Qdrant's where the analysers differ: stopword lists
//   (package lists here, NLTK-derived lists there), the word splitter's notion of a word
//   character, and the multilingual segmenter.
// - Document side: each distinct term weighs tf·(k+1) / (tf + k·(1 − b + b·length/avg_len)),
//   length being the number of terms. Query side: each distinct term weighs 1.
import { errors } from '../errors.js';
import { defaultTextAnalyserOptions, documentTerms, queryTerms, type TextAnalyserOptions, type Tokenizer } from './analyser.js';
import { parseStemmer, parseStopwords } from './analysis-params.js';
import { hasOwn, snowballLanguageNames, snowballLanguagesWithoutStemmer, stopwordLanguageKeys, stopwordLanguagesWithoutList } from './languages.js';
import { murmur3x86_32 } from './murmur3.js';
import { snowballStemmer } from './snowball.js';
import { stopwordSet } from './stopwords.js';
import { describeJsonValue } from '../json/describe.js';

export const bm25ModelName = 'qdrant/bm25';
/** Text models this server can turn into vectors itself. */
export const supportedTextModels: readonly string[] = [bm25ModelName];

export interface SparseVector {
  /** Term ids, ascending and distinct (u32). */
  indices: number[];
  /** Weights, f32 values. */
  values: number[];
}

export interface Bm25Model {
  k: number;
  b: number;
  averageLength: number;
  analyser: TextAnalyserOptions;
}

export const defaultBm25 = { k: 1.2, b: 0.75, averageLength: 256, language: 'english' } as const;

const optionNames = ['k', 'b', 'avg_len', 'tokenizer', 'language', 'lowercase', 'ascii_folding', 'stopwords', 'stemmer', 'min_token_len', 'max_token_len'];
const tokenizers: readonly Tokenizer[] = ['word', 'whitespace', 'prefix', 'multilingual'];

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function numberOption(options: Record<string, unknown>, name: string, field: string, fallback: number, valid: (value: number) => boolean, expected: string): number {
  const value = options[name];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || !valid(value)) throw errors.invalidField(`${field}.${name}`, `expected ${expected}, got ${describeJsonValue(value)}`);
  return value;
}

function booleanOption(options: Record<string, unknown>, name: string, field: string, fallback: boolean): boolean {
  const value = options[name];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'boolean') throw errors.invalidField(`${field}.${name}`, `expected true or false, got ${describeJsonValue(value)}`);
  return value;
}

function lengthOption(options: Record<string, unknown>, name: string, field: string): number | undefined {
  const value = options[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw errors.invalidField(`${field}.${name}`, `expected a non-negative integer, got ${describeJsonValue(value)}`);
  return value;
}

/**
 * The stopwords and stemmer `language` implies when they are not given. A language Qdrant
 * knows but this server lacks is refused; any other name (Qdrant's "none") turns both off.
 */
function languageDefaults(language: string, field: string): { stopwords: ReadonlySet<string>; stemmer: TextAnalyserOptions['stemmer'] } {
  if (stopwordLanguagesWithoutList.includes(language)) throw errors.invalidField(`${field}.language`, `"${language}" has no stopword list on this server; give "stopwords" explicitly`);
  if (snowballLanguagesWithoutStemmer.includes(language)) throw errors.invalidField(`${field}.language`, `"${language}" has no Snowball stemmer on this server; give "stemmer" explicitly`);
  return {
    stopwords: hasOwn(stopwordLanguageKeys, language) ? stopwordSet([language], []) : defaultTextAnalyserOptions.stopwords,
    stemmer: hasOwn(snowballLanguageNames, language) ? snowballStemmer(language) : undefined,
  };
}

/** Parses BM25 `options` (Qdrant's Bm25Config); absent or null means every default. */
export function parseBm25Options(options: unknown, field = 'options'): Bm25Model {
  const given = options ?? {};
  if (!isPlainRecord(given)) throw errors.invalidField(field, `expected an object, got ${describeJsonValue(options)}`);
  for (const name of Object.keys(given)) {
    if (!optionNames.includes(name)) throw errors.invalidField(`${field}.${name}`, `not a BM25 option (expected ${optionNames.join(', ')})`);
  }
  const k = numberOption(given, 'k', field, defaultBm25.k, (value) => value >= 0, 'a number >= 0');
  const b = numberOption(given, 'b', field, defaultBm25.b, (value) => value >= 0 && value <= 1, 'a number from 0 to 1');
  const averageLength = numberOption(given, 'avg_len', field, defaultBm25.averageLength, (value) => value > 0, 'a number > 0');
  const tokenizer = given.tokenizer ?? 'word';
  if (!tokenizers.includes(tokenizer as Tokenizer)) throw errors.invalidField(`${field}.tokenizer`, `expected one of ${tokenizers.join(', ')}, got ${describeJsonValue(tokenizer)}`);
  const language = given.language ?? defaultBm25.language;
  if (typeof language !== 'string') throw errors.invalidField(`${field}.language`, `expected a language name, got ${describeJsonValue(language)}`);
  const minTokenLength = lengthOption(given, 'min_token_len', field);
  const maxTokenLength = lengthOption(given, 'max_token_len', field);
  const stopwords = parseStopwords(given.stopwords, `${field}.stopwords`);
  const stemmerLanguage = parseStemmer(given.stemmer, `${field}.stemmer`);
  const implied = stopwords === undefined || stemmerLanguage === undefined ? languageDefaults(language.toLowerCase(), field) : undefined;
  return {
    k,
    b,
    averageLength,
    analyser: {
      tokenizer: tokenizer as Tokenizer,
      lowercase: booleanOption(given, 'lowercase', field, true),
      asciiFolding: booleanOption(given, 'ascii_folding', field, false),
      minTokenLength,
      maxTokenLength,
      phraseMatching: false,
      stopwords: stopwords ? stopwordSet(stopwords.languages, stopwords.custom) : implied!.stopwords,
      stemmer: stemmerLanguage === undefined ? implied!.stemmer : snowballStemmer(stemmerLanguage),
    },
  };
}

/** A term's sparse index: |murmur3 as i32|, an unsigned 32-bit value. */
export function termId(term: string): number {
  return Math.abs(murmur3x86_32(term) | 0);
}

function sortedVector(weights: Map<number, number>): SparseVector {
  const indices = [...weights.keys()].sort((left, right) => left - right);
  return { indices, values: indices.map((index) => weights.get(index)!) };
}

/** The stored (document) vector: BM25 term-frequency weights. */
export function bm25DocumentVector(text: string, model: Bm25Model): SparseVector {
  const terms = documentTerms(text, model.analyser);
  const counts = new Map<string, number>();
  for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
  const lengthNormalisation = 1 - model.b + (model.b * terms.length) / model.averageLength;
  const weights = new Map<number, number>();
  // Two terms with one id (a hash collision) keep the later term's weight, as Qdrant's map does.
  for (const [term, count] of counts) weights.set(termId(term), Math.fround((count * (model.k + 1)) / (count + model.k * lengthNormalisation)));
  return sortedVector(weights);
}

/** The query vector: weight 1 for each distinct term (the IDF is applied at search time). */
export function bm25QueryVector(text: string, model: Bm25Model): SparseVector {
  const weights = new Map<number, number>();
  for (const term of queryTerms(text, model.analyser)) weights.set(termId(term), 1);
  return sortedVector(weights);
}

/**
 * A Document (`{"text", "model", "options"?}`) as a sparse vector for storing (`document`) or
 * searching (`query`). The model name is compared ignoring case (fastembed spells it
 * "Qdrant/bm25"); any other model is a 400 listing the supported ones.
 */
export function textDocumentVector(document: unknown, side: 'document' | 'query', field = 'document'): SparseVector {
  if (!isPlainRecord(document)) throw errors.invalidField(field, `expected {"text", "model", "options"}, got ${describeJsonValue(document)}`);
  if (typeof document.text !== 'string') throw errors.invalidField(`${field}.text`, `expected a string, got ${describeJsonValue(document.text)}`);
  if (typeof document.model !== 'string' || document.model.toLowerCase() !== bm25ModelName) {
    throw errors.invalidField(`${field}.model`, `unsupported model ${describeJsonValue(document.model)} (supported: ${supportedTextModels.join(', ')})`);
  }
  const model = parseBm25Options(document.options, `${field}.options`);
  return side === 'document' ? bm25DocumentVector(document.text, model) : bm25QueryVector(document.text, model);
}
