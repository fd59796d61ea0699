// Tokenisers of the full-text index (API.md §6). The index and the evaluator's tokenised twin
// call the same functions, so "text match with a text index" has one meaning.

export type Tokenizer = 'word' | 'whitespace' | 'prefix' | 'multilingual';

export interface TextIndexOptions {
  tokenizer: Tokenizer;
  lowercase: boolean;
  minTokenLength: number | undefined;
  maxTokenLength: number | undefined;
  phraseMatching: boolean;
}

export const defaultTextIndexOptions: TextIndexOptions = {
  tokenizer: 'word',
  lowercase: true,
  minTokenLength: undefined,
  maxTokenLength: undefined,
  phraseMatching: false,
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

/**
 * The words of `text` in order, lowercased if asked and filtered by length (for the prefix
 * tokenizer the length bounds apply to the prefixes instead, see documentTokens).
 */
export function wordSequence(text: string, options: TextIndexOptions): string[] {
  const words = splitWords(options.lowercase ? text.toLowerCase() : text, options.tokenizer);
  if (options.tokenizer === 'prefix') return words;
  return words.filter((word) => {
    const length = characterLength(word);
    return (options.minTokenLength === undefined || length >= options.minTokenLength) && (options.maxTokenLength === undefined || length <= options.maxTokenLength);
  });
}

/** Every prefix of `word` between the length bounds (the prefix tokenizer's index terms). */
function prefixesOf(word: string, options: TextIndexOptions): string[] {
  const characters = [...word];
  const shortest = Math.max(1, options.minTokenLength ?? 1);
  const longest = Math.min(characters.length, options.maxTokenLength ?? characters.length);
  const prefixes: string[] = [];
  for (let length = shortest; length <= longest; length += 1) prefixes.push(characters.slice(0, length).join(''));
  return prefixes;
}

/** The terms a stored text contributes to the index. */
export function documentTerms(text: string, options: TextIndexOptions): string[] {
  const words = wordSequence(text, options);
  if (options.tokenizer !== 'prefix') return words;
  return words.flatMap((word) => prefixesOf(word, options));
}

/** A word of a query as the term to look up: prefix queries longer than the index keeps are cut. */
export function queryTerm(word: string, options: TextIndexOptions): string {
  if (options.tokenizer !== 'prefix' || options.maxTokenLength === undefined) return word;
  return [...word].slice(0, options.maxTokenLength).join('');
}

/** The terms a query looks up, in order (duplicates kept for phrases). */
export function queryTerms(text: string, options: TextIndexOptions): string[] {
  return wordSequence(text, options).map((word) => queryTerm(word, options));
}

/** Whether a stored word satisfies one query term: equal, or for the prefix tokenizer, a prefix. */
export function termMatchesWord(term: string, word: string, options: TextIndexOptions): boolean {
  if (options.tokenizer !== 'prefix') return term === word;
  const minimum = options.minTokenLength ?? 1;
  return characterLength(term) >= minimum && word.startsWith(term);
}
