// Tokenisers of the full-text index (docs/api.md §6). The analyser itself lives in src/text/ (it is
// shared with BM25); these names are kept so the index and the evaluator's tokenised twin keep
// calling the same functions, and "text match with a text index" has one meaning.
import { defaultTextAnalyserOptions, type TextAnalyserOptions } from '../text/analyser.js';

export type { Tokenizer } from '../text/analyser.js';
export { documentTerms, queryTerm, queryTerms, termMatchesWord, wordSequence } from '../text/analyser.js';

export type TextIndexOptions = TextAnalyserOptions;

export const defaultTextIndexOptions: TextIndexOptions = defaultTextAnalyserOptions;
