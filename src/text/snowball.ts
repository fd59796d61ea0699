// Snowball stemmers (the `snowball-stemmers` package, generated from the Snowball sources, so
// English is Porter2 like Qdrant's). The package is a large script, loaded on first use, and
// its stemmer is slow per word (microseconds), so each language keeps a bounded memo: text
// vocabularies repeat heavily, and indexing re-stems the same words for every point.
import { createRequire } from 'node:module';
import { hasOwn, snowballLanguageNames } from './languages.js';

interface SnowballPackage {
  newStemmer(language: string): { stem(word: string): string };
}

const require = createRequire(import.meta.url);
let snowballPackage: SnowballPackage | undefined;

/** Words remembered per language before the memo starts over (bounds memory, not results). */
export const stemMemoLimit = 65_536;

export type Stemmer = (word: string) => string;

const stemmers = new Map<string, Stemmer>();

/** The stemmer of a supported Snowball language (see languages.ts); throws for others. */
export function snowballStemmer(language: string): Stemmer {
  const existing = stemmers.get(language);
  if (existing) return existing;
  if (!hasOwn(snowballLanguageNames, language)) throw new Error(`no Snowball stemmer for "${language}"`);
  snowballPackage ??= require('snowball-stemmers') as SnowballPackage;
  const algorithm = snowballPackage.newStemmer(snowballLanguageNames[language]!);
  let memo = new Map<string, string>();
  const stemmer: Stemmer = (word) => {
    let stem = memo.get(word);
    if (stem === undefined) {
      stem = algorithm.stem(word);
      if (memo.size >= stemMemoLimit) memo = new Map();
      memo.set(word, stem);
    }
    return stem;
  };
  stemmers.set(language, stemmer);
  return stemmer;
}
