// Point ids inside filters (`has_id`), keyed the way the points module keys its id map.
import { errors } from '../errors.js';
import { parsePointId, pointIdKey } from '../points/ids.js';

/** The map key of a wire id; a bad id is a 400 naming where it sits in the filter. */
export function filterPointIdKey(value: unknown, where: string): string {
  try {
    return pointIdKey(parsePointId(value));
  } catch (error) {
    throw errors.invalidField(where, (error as Error).message);
  }
}
