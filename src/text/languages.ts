// The languages the text analyser knows, by the names Qdrant's API uses (docs/api.md §6):
// stopword lists come from the `stopword` package and stemmers from `snowball-stemmers`, so
// each table maps a Qdrant language name to the name its package uses. A language Qdrant
// accepts but no package here provides is refused with the list below, never ignored.

/** Qdrant's stopword languages that have a list here, mapped to the `stopword` package's key. */
export const stopwordLanguageKeys: Readonly<Record<string, string>> = {
  arabic: 'ara',
  basque: 'eus',
  bengali: 'ben',
  catalan: 'cat',
  chinese: 'zho',
  danish: 'dan',
  dutch: 'nld',
  english: 'eng',
  finnish: 'fin',
  french: 'fra',
  german: 'deu',
  greek: 'ell',
  hebrew: 'heb',
  hungarian: 'hun',
  indonesian: 'ind',
  italian: 'ita',
  japanese: 'jpn',
  norwegian: 'nob',
  portuguese: 'por',
  romanian: 'ron',
  russian: 'rus',
  slovene: 'slv',
  spanish: 'spa',
  swedish: 'swe',
  turkish: 'tur',
};

/** Qdrant's stopword languages without a list here (refused rather than silently empty). */
export const stopwordLanguagesWithoutList: readonly string[] = ['azerbaijani', 'hinglish', 'kazakh', 'nepali', 'tajik'];

/** Qdrant's Snowball languages that have a stemmer here, mapped to `snowball-stemmers` names. */
export const snowballLanguageNames: Readonly<Record<string, string>> = {
  arabic: 'arabic',
  armenian: 'armenian',
  danish: 'danish',
  dutch: 'dutch',
  english: 'english',
  finnish: 'finnish',
  french: 'french',
  german: 'german',
  hungarian: 'hungarian',
  italian: 'italian',
  norwegian: 'norwegian',
  portuguese: 'portuguese',
  romanian: 'romanian',
  russian: 'russian',
  spanish: 'spanish',
  swedish: 'swedish',
  tamil: 'tamil',
  turkish: 'turkish',
};

/** Qdrant's Snowball languages without a stemmer here. */
export const snowballLanguagesWithoutStemmer: readonly string[] = ['greek'];

export const supportedStopwordLanguages: readonly string[] = Object.keys(stopwordLanguageKeys);
export const supportedSnowballLanguages: readonly string[] = Object.keys(snowballLanguageNames);

export function hasOwn(table: Readonly<Record<string, string>>, name: string): boolean {
  return Object.prototype.hasOwnProperty.call(table, name);
}
