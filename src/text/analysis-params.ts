// The analysis parameters a text index (and BM25's options) accept, as Qdrant spells them
// (docs/api.md §6): `stopwords` is a language name or {languages, custom}; `stemmer` is
// {type: "snowball", language}; `ascii_folding` is a boolean. Parsing refuses what this server
// cannot act on, naming the field and the supported values, so an accepted option always works.
import { errors } from '../errors.js';
import { defaultTextAnalyserOptions, type TextAnalyserOptions, type Tokenizer } from './analyser.js';
import {
  hasOwn,
  snowballLanguageNames,
  snowballLanguagesWithoutStemmer,
  stopwordLanguageKeys,
  stopwordLanguagesWithoutList,
  supportedSnowballLanguages,
  supportedStopwordLanguages,
} from './languages.js';
import { snowballStemmer } from './snowball.js';
import { stopwordSet } from './stopwords.js';
import { describeJsonValue } from '../json/describe.js';

export interface StopwordsChoice {
  languages: string[];
  custom: string[];
}

/** Custom stopwords one index may list (bounded like every other request list). */
export const maximumCustomStopwords = 10_000;

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stopwordLanguage(value: unknown, field: string): string {
  if (typeof value === 'string' && hasOwn(stopwordLanguageKeys, value)) return value;
  const known = typeof value === 'string' && stopwordLanguagesWithoutList.includes(value) ? ' has no stopword list on this server' : ' is not a supported stopword language';
  throw errors.invalidField(field, `${describeJsonValue(value)}${known} (supported: ${supportedStopwordLanguages.join(', ')})`);
}

/** Parses a `stopwords` value; null or absent is no stopwords. */
export function parseStopwords(value: unknown, field: string): StopwordsChoice | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return { languages: [stopwordLanguage(value, field)], custom: [] };
  if (!isPlainRecord(value)) throw errors.invalidField(field, `expected a language name or {"languages", "custom"}, got ${describeJsonValue(value)}`);
  for (const key of Object.keys(value)) {
    if (key !== 'languages' && key !== 'custom') throw errors.invalidField(`${field}.${key}`, 'not a stopwords parameter (expected languages, custom)');
  }
  const languages = value.languages ?? [];
  const custom = value.custom ?? [];
  if (!Array.isArray(languages)) throw errors.invalidField(`${field}.languages`, `expected an array of language names, got ${describeJsonValue(languages)}`);
  if (!Array.isArray(custom) || custom.some((word) => typeof word !== 'string')) {
    throw errors.invalidField(`${field}.custom`, `expected an array of strings, got ${describeJsonValue(custom)}`);
  }
  if (custom.length > maximumCustomStopwords) throw errors.invalidField(`${field}.custom`, `at most ${maximumCustomStopwords} words`);
  return { languages: languages.map((language, position) => stopwordLanguage(language, `${field}.languages[${position}]`)), custom: custom as string[] };
}

/** The Snowball language of a stemmer name, or a 400 listing the supported ones. */
export function snowballLanguage(value: unknown, field: string): string {
  if (typeof value === 'string' && hasOwn(snowballLanguageNames, value)) return value;
  const known = typeof value === 'string' && snowballLanguagesWithoutStemmer.includes(value) ? ' has no Snowball stemmer on this server' : ' is not a supported Snowball language';
  throw errors.invalidField(field, `${describeJsonValue(value)}${known} (supported: ${supportedSnowballLanguages.join(', ')})`);
}

/** Parses a `stemmer` value ({type: "snowball", language}) to its language; null or absent is none. */
export function parseStemmer(value: unknown, field: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isPlainRecord(value)) throw errors.invalidField(field, `expected {"type": "snowball", "language"}, got ${describeJsonValue(value)}`);
  if (value.type !== 'snowball') throw errors.invalidField(`${field}.type`, `expected "snowball", got ${describeJsonValue(value.type)}`);
  for (const key of Object.keys(value)) {
    if (key !== 'type' && key !== 'language') throw errors.invalidField(`${field}.${key}`, 'not a stemmer parameter (expected type, language)');
  }
  return snowballLanguage(value.language, `${field}.language`);
}

/** Checks a text index's `stopwords` and `stemmer` (the other text parameters are checked beside the schema). */
export function validateTextAnalysisParams(params: Record<string, unknown>, where: string): void {
  parseStopwords(params.stopwords, `${where}.stopwords`);
  parseStemmer(params.stemmer, `${where}.stemmer`);
}

/** The analyser a (validated) text index definition describes. */
export function textAnalyserOptionsFromParams(params: Record<string, unknown>): TextAnalyserOptions {
  const stopwords = parseStopwords(params.stopwords, 'stopwords');
  const stemmerLanguage = parseStemmer(params.stemmer, 'stemmer');
  return {
    tokenizer: (params.tokenizer as Tokenizer | undefined) ?? defaultTextAnalyserOptions.tokenizer,
    lowercase: (params.lowercase as boolean | undefined) ?? defaultTextAnalyserOptions.lowercase,
    minTokenLength: (params.min_token_len as number | undefined) ?? undefined,
    maxTokenLength: (params.max_token_len as number | undefined) ?? undefined,
    phraseMatching: (params.phrase_matching as boolean | undefined) ?? false,
    asciiFolding: (params.ascii_folding as boolean | undefined) ?? false,
    stopwords: stopwords ? stopwordSet(stopwords.languages, stopwords.custom) : defaultTextAnalyserOptions.stopwords,
    stemmer: stemmerLanguage === undefined ? undefined : snowballStemmer(stemmerLanguage),
  };
}
