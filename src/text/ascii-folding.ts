// ASCII folding ("café" -> "cafe", "ação" -> "acao"): each non-ASCII character whose canonical
// decomposition is an ASCII letter plus combining marks loses the marks; a few Latin letters
// that do not decompose (ø, æ, ß, ł, ...) have written equivalents below. Every other character
// (other scripts, symbols) is kept as it is, so folding never merges words of other scripts.
//
// Qdrant folds with a larger Lucene-derived table (it also maps, for instance, ligatures and
// fullwidth forms); the accented Latin letters, which are what the option is for, agree.

const letterEquivalents: Readonly<Record<string, string>> = {
  'Æ': 'AE', 'æ': 'ae', 'Ø': 'O', 'ø': 'o', 'Œ': 'OE', 'œ': 'oe', 'ß': 'ss', 'ẞ': 'SS',
  'Ð': 'D', 'ð': 'd', 'Đ': 'D', 'đ': 'd', 'Þ': 'TH', 'þ': 'th', 'Ł': 'L', 'ł': 'l',
  'Ħ': 'H', 'ħ': 'h', 'ı': 'i', 'Ŋ': 'N', 'ŋ': 'n', 'Ŧ': 'T', 'ŧ': 't', 'ĸ': 'q',
  'Ŀ': 'L', 'ŀ': 'l', 'ŉ': 'n', 'ſ': 's', 'Ƒ': 'F', 'ƒ': 'f', 'Ɨ': 'I', 'ɨ': 'i',
};

const combiningMarks = /\p{M}/gu;
const asciiOnly = /^[\x00-\x7f]*$/;

// Characters seen before; bounded by the number of distinct non-ASCII characters in use.
const foldedCharacters = new Map<string, string>();

function foldCharacter(character: string): string {
  let folded = foldedCharacters.get(character);
  if (folded === undefined) {
    const stripped = character.normalize('NFD').replace(combiningMarks, '');
    if (stripped !== '' && asciiOnly.test(stripped)) folded = stripped;
    else folded = letterEquivalents[character] ?? character;
    if (foldedCharacters.size < 65_536) foldedCharacters.set(character, folded);
  }
  return folded;
}

/** `text` with accented Latin letters replaced by their ASCII letters. */
export function foldToAscii(text: string): string {
  if (asciiOnly.test(text)) return text;
  // Composed first, so "e" + U+0301 folds like "é" instead of leaving a stray mark.
  let result = '';
  for (const character of text.normalize('NFC')) result += character.charCodeAt(0) < 0x80 ? character : foldCharacter(character);
  return result;
}
