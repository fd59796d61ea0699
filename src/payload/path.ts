// JSON paths into payloads (docs/api.md §6): `a.b`, `a[0]`, `a[]`, `"quoted key"` and combinations
// such as `country.cities[].population`. A path is parsed once into segments; reading it
// returns every value it reaches, with a final array flattened one level, because a field that
// holds an array "has several values" for every condition.

export type PathSegment =
  | { kind: 'key'; name: string }
  | { kind: 'index'; index: number }
  /** `[]`: every element of an array. */
  | { kind: 'every' };

export interface PayloadPath {
  readonly segments: readonly PathSegment[];
  /** Canonical spelling, used to compare paths (index field names, filter keys). */
  readonly text: string;
}

export type Payload = Record<string, unknown>;

/** Thrown for a malformed path; callers turn it into a 400 naming the field. */
export class PathSyntaxError extends Error {
  override name = 'PathSyntaxError';
}

// Bounds that keep a hostile path from costing more than its text: array indexes stay in the
// range a JSON array can have, paths stay short.
const maxPathLength = 1024;
const maxArrayIndex = 2 ** 32 - 2;
const plainKeyCharacter = /[^.[\]"\s]/u;

function spellKey(name: string): string {
  return /^[^.[\]"\s]+$/u.test(name) ? name : `"${name}"`;
}

export function formatPath(segments: readonly PathSegment[]): string {
  let text = '';
  for (const segment of segments) {
    if (segment.kind === 'key') text += text === '' ? spellKey(segment.name) : `.${spellKey(segment.name)}`;
    else if (segment.kind === 'index') text += `[${segment.index}]`;
    else text += '[]';
  }
  return text;
}

/** Parses a path; throws PathSyntaxError with the position of the problem. */
export function parsePath(text: string): PayloadPath {
  if (typeof text !== 'string') throw new PathSyntaxError('a path must be a string');
  if (text.length === 0) throw new PathSyntaxError('a path must not be empty');
  if (text.length > maxPathLength) throw new PathSyntaxError(`a path must be at most ${maxPathLength} characters`);
  const segments: PathSegment[] = [];
  let position = 0;
  let expectKey = true;
  while (position < text.length) {
    const character = text[position]!;
    if (expectKey) {
      if (character === '"') {
        const closing = text.indexOf('"', position + 1);
        if (closing === -1) throw new PathSyntaxError(`unclosed quote at position ${position} in path "${text}"`);
        const name = text.slice(position + 1, closing);
        if (name === '') throw new PathSyntaxError(`empty quoted key at position ${position} in path "${text}"`);
        segments.push({ kind: 'key', name });
        position = closing + 1;
      } else {
        const start = position;
        while (position < text.length && plainKeyCharacter.test(text[position]!)) position += 1;
        if (position === start) throw new PathSyntaxError(`expected a key at position ${start} in path "${text}"`);
        segments.push({ kind: 'key', name: text.slice(start, position) });
      }
      expectKey = false;
      continue;
    }
    if (character === '.') {
      if (position === text.length - 1) throw new PathSyntaxError(`path "${text}" ends with "."`);
      expectKey = true;
      position += 1;
      continue;
    }
    if (character === '[') {
      const closing = text.indexOf(']', position);
      if (closing === -1) throw new PathSyntaxError(`unclosed "[" at position ${position} in path "${text}"`);
      const inside = text.slice(position + 1, closing);
      if (inside === '') segments.push({ kind: 'every' });
      else if (/^\d+$/.test(inside) && Number(inside) <= maxArrayIndex) segments.push({ kind: 'index', index: Number(inside) });
      else throw new PathSyntaxError(`"[${inside}]" at position ${position} in path "${text}" is not an array index`);
      position = closing + 1;
      continue;
    }
    throw new PathSyntaxError(`unexpected "${character}" at position ${position} in path "${text}"`);
  }
  return { segments, text: formatPath(segments) };
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function collect(value: unknown, segments: readonly PathSegment[], position: number, into: unknown[]): void {
  if (value === undefined) return;
  if (position === segments.length) {
    // The end of the path: an array is a field with several values.
    if (Array.isArray(value)) {
      for (const element of value) if (element !== undefined) into.push(element);
    } else {
      into.push(value);
    }
    return;
  }
  const segment = segments[position]!;
  if (segment.kind === 'key') {
    if (isPlainObject(value) && Object.hasOwn(value, segment.name)) collect(value[segment.name], segments, position + 1, into);
  } else if (segment.kind === 'index') {
    if (Array.isArray(value) && segment.index < value.length) collect(value[segment.index], segments, position + 1, into);
  } else if (Array.isArray(value)) {
    for (const element of value) collect(element, segments, position + 1, into);
  }
}

/**
 * Every value the path reaches in `root`, in document order. A final array contributes its
 * elements (one level), so `{"a": [1, 2]}` gives `a` the values 1 and 2; an empty result means
 * the field is missing. Keys step only into objects: use `[]` to step through arrays.
 */
export function valuesAt(root: unknown, path: PayloadPath): unknown[] {
  const values: unknown[] = [];
  collect(root, path.segments, 0, values);
  return values;
}
