// The text analyser: text -> terms, shared by the full-text index, the filter evaluator's
// tokenised twin and BM25 (docs/api.md §6), so one set of options means one thing everywhere.
//
// Steps, in Qdrant's order: ASCII folding, lowercasing, splitting into words, dropping stopwords,
// stemming, then the length bounds. Folding and lowercasing map characters one by one, so doing
// them on the whole text before the split gives the words Qdrant gets by doing them per token.
import { foldToAscii } from './ascii-folding.js';
import type { Stemmer } from './snowball.js';
import { isStopword } from './stopwords.js';

export type Tokenizer = 'word' | 'whitespace' | 'prefix' | 'multilingual';

export interface TextAnalyserOptions {
  tokenizer: Tokenizer;
  lowercase: boolean;
  minTokenLength: number | undefined;
  maxTokenLength: number | undefined;
  phraseMatching: boolean;
  asciiFolding: boolean;
  /** Lowercased words to drop; empty for none. */
  stopwords: ReadonlySet<string>;
  stemmer: Stemmer | undefined;
}

export const defaultTextAnalyserOptions: TextAnalyserOptions = {
  tokenizer: 'word',
  lowercase: true,
  minTokenLength: undefined,
  maxTokenLength: undefined,
  phraseMatching: false,
  asciiFolding: false,
  stopwords: new Set(),
  stemmer: undefined,
};

const wordPattern = /[\p{L}\p{N}]+/gu;
const multilingualSegmenter = new Intl.Segmenter(undefined, { granularity: 'word' });

function characterLength(token: string): number {
  let length = 0;
  for (const _ of token) length += 1;
  return length;
}

function splitWords(text: string, tokenizer: Tokenizer): string[] {
  if (tokenizer === 'whitespace') return text.split(/\s+/u).filter((token) => token !== '');
  if (tokenizer === 'multilingual') {
    const tokens: string[] = [];
    for (const segment of multilingualSegmenter.segment(text)) if (segment.isWordLike) tokens.push(segment.segment);
    return tokens;
  }
  return text.match(wordPattern) ?? [];
}

function withinLengthBounds(word: string, options: TextAnalyserOptions): boolean {
  if (options.minTokenLength === undefined && options.maxTokenLength === undefined) return true;
  const length = characterLength(word);
  return (options.minTokenLength === undefined || length >= options.minTokenLength) && (options.maxTokenLength === undefined || length <= options.maxTokenLength);
}

/**
 * The words of `text` in order, after folding, lowercasing, stopwords and stemming, filtered by
 * length (for the prefix tokenizer the length bounds apply to the prefixes instead, see
 * documentTerms).
 */
export function wordSequence(text: string, options: TextAnalyserOptions): string[] {
  let prepared = options.asciiFolding ? foldToAscii(text) : text;
  if (options.lowercase) prepared = prepared.toLowerCase();
  let words = splitWords(prepared, options.tokenizer);
  if (options.stopwords.size > 0) words = words.filter((word) => !isStopword(options.stopwords, word));
  const stemmer = options.stemmer;
  if (stemmer) words = words.map((word) => stemmer(word));
  if (options.tokenizer === 'prefix') return words;
  return words.filter((word) => withinLengthBounds(word, options));
}

/** Every prefix of `word` between the length bounds (the prefix tokenizer's index terms). */
function prefixesOf(word: string, options: TextAnalyserOptions): string[] {
  const characters = [...word];
  const shortest = Math.max(1, options.minTokenLength ?? 1);
  const longest = Math.min(characters.length, options.maxTokenLength ?? characters.length);
  const prefixes: string[] = [];
  for (let length = shortest; length <= longest; length += 1) prefixes.push(characters.slice(0, length).join(''));
  return prefixes;
}

/** The terms a stored text contributes to the index, in order with repeats. */
export function documentTerms(text: string, options: TextAnalyserOptions): string[] {
  const words = wordSequence(text, options);
  if (options.tokenizer !== 'prefix') return words;
  return words.flatMap((word) => prefixesOf(word, options));
}

/** A word of a query as the term to look up: prefix queries longer than the index keeps are cut. */
export function queryTerm(word: string, options: TextAnalyserOptions): string {
  if (options.tokenizer !== 'prefix' || options.maxTokenLength === undefined) return word;
  return [...word].slice(0, options.maxTokenLength).join('');
}

/** The terms a query looks up, in order (duplicates kept for phrases). */
export function queryTerms(text: string, options: TextAnalyserOptions): string[] {
  return wordSequence(text, options).map((word) => queryTerm(word, options));
}

/** Whether a stored word satisfies one query term: equal, or for the prefix tokenizer, a prefix. */
export function termMatchesWord(term: string, word: string, options: TextAnalyserOptions): boolean {
  if (options.tokenizer !== 'prefix') return term === word;
  const minimum = options.minTokenLength ?? 1;
  return characterLength(term) >= minimum && word.startsWith(term);
}
