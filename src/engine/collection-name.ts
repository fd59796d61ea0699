// Collection names (docs/api.md §8): 1 to max_collection_name_length characters, none of
// / \ : * ? " < > | and no control characters — the name ends up in paths and logs.
import { errors } from '../errors.js';

const forbiddenCharacters = /[/\\:*?"<>|\u0000-\u001f\u007f]/;

/** Throws the registry's 400 naming the problem; returns the name otherwise. */
export function validateCollectionName(name: string, maximumLength: number): string {
  const field = 'collection_name';
  if (name.length === 0) throw errors.invalidField(field, 'must not be empty');
  if ([...name].length > maximumLength) throw errors.invalidField(field, `must be at most ${maximumLength} characters`);
  const forbidden = forbiddenCharacters.exec(name);
  if (forbidden) {
    const shown = /[\u0000-\u001f\u007f]/.test(forbidden[0]) ? 'control characters' : `"${forbidden[0]}"`;
    throw errors.invalidField(field, `must not contain ${shown} (got ${JSON.stringify(name)})`);
  }
  return name;
}
