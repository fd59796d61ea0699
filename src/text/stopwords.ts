// Stopword sets: a language list, several lists merged, and custom words, as Qdrant's
// `stopwords` parameter describes them (docs/api.md §6). Matching ignores case, like Qdrant's
// filter, so `lowercase: false` still drops "The".
//
// The lists are the `stopword` package's, not Qdrant's own (Qdrant ships NLTK-derived lists);
// a word on only one of the two lists is kept by one server and dropped by the other.
import { createRequire } from 'node:module';
import { hasOwn, stopwordLanguageKeys } from './languages.js';

const require = createRequire(import.meta.url);

let packageLists: Readonly<Record<string, readonly string[]>> | undefined;

function listOf(language: string): readonly string[] {
  if (!hasOwn(stopwordLanguageKeys, language)) throw new Error(`no stopword list for "${language}"`);
  // Loaded on first use: most collections never ask for stopwords.
  packageLists ??= require('stopword') as Record<string, readonly string[]>;
  const list = packageLists[stopwordLanguageKeys[language]!];
  if (!Array.isArray(list)) throw new Error(`the stopword package has no list "${stopwordLanguageKeys[language]}"`);
  return list;
}

// One frozen set per language, shared by every index that names it.
const languageSets = new Map<string, ReadonlySet<string>>();

function languageSet(language: string): ReadonlySet<string> {
  let set = languageSets.get(language);
  if (!set) {
    set = new Set(listOf(language).map((word) => word.toLowerCase()));
    languageSets.set(language, set);
  }
  return set;
}

/** The words to drop, lowercased: the union of the languages' lists and the custom words. */
export function stopwordSet(languages: readonly string[], custom: readonly string[]): ReadonlySet<string> {
  if (languages.length === 1 && custom.length === 0) return languageSet(languages[0]!);
  const words = new Set<string>();
  for (const language of languages) for (const word of languageSet(language)) words.add(word);
  for (const word of custom) words.add(word.toLowerCase());
  return words;
}

export function isStopword(words: ReadonlySet<string>, token: string): boolean {
  return words.size > 0 && words.has(token.toLowerCase());
}
