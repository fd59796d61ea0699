// `with_payload` and `with_vector` (docs/api.md §3): which parts of a point a read returns. Parsed
// once per request into a small plan, then applied to each record.
import { Type, type Static } from '@sinclair/typebox';

export const WithPayloadSchema = Type.Union([
  Type.Boolean(),
  Type.Array(Type.String()),
  Type.Object({ include: Type.Union([Type.String(), Type.Array(Type.String())]) }, { additionalProperties: false }),
  Type.Object({ exclude: Type.Union([Type.String(), Type.Array(Type.String())]) }, { additionalProperties: false }),
]);
export type WithPayload = Static<typeof WithPayloadSchema>;

export const WithVectorSchema = Type.Union([Type.Boolean(), Type.Array(Type.String())]);
export type WithVector = Static<typeof WithVectorSchema>;

export type Payload = Record<string, unknown>;

/** What to return of a payload: nothing, everything, or only / all but some dotted paths. */
export type PayloadSelection =
  | { kind: 'none' }
  | { kind: 'all' }
  | { kind: 'include'; paths: string[][] }
  | { kind: 'exclude'; paths: string[][] };

/** What to return of the vectors: nothing, all, or the named ones. */
export type VectorSelection = { kind: 'none' } | { kind: 'all' } | { kind: 'named'; names: string[] };

function splitPaths(paths: string | string[]): string[][] {
  return (typeof paths === 'string' ? [paths] : paths).map((path) => path.split('.'));
}

export function payloadSelection(value: WithPayload | undefined, defaultValue: boolean): PayloadSelection {
  if (value === undefined) return defaultValue ? { kind: 'all' } : { kind: 'none' };
  if (value === true) return { kind: 'all' };
  if (value === false) return { kind: 'none' };
  if (Array.isArray(value)) return { kind: 'include', paths: splitPaths(value) };
  if ('include' in value) return { kind: 'include', paths: splitPaths(value.include) };
  return { kind: 'exclude', paths: splitPaths(value.exclude) };
}

export function vectorSelection(value: WithVector | undefined, defaultValue: boolean): VectorSelection {
  if (value === undefined) return defaultValue ? { kind: 'all' } : { kind: 'none' };
  if (value === true) return { kind: 'all' };
  if (value === false) return { kind: 'none' };
  return { kind: 'named', names: value };
}

function isObject(value: unknown): value is Payload {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function copyPath(source: Payload, target: Payload, path: string[]): void {
  const [head, ...rest] = path;
  if (head === undefined || !(head in source)) return;
  const value = source[head];
  if (rest.length === 0) {
    target[head] = value;
    return;
  }
  if (!isObject(value)) return;
  const child = isObject(target[head]) ? (target[head] as Payload) : {};
  copyPath(value, child, rest);
  if (Object.keys(child).length > 0) target[head] = child;
}

function withoutPath(source: Payload, path: string[]): Payload {
  const [head, ...rest] = path;
  if (head === undefined || !(head in source)) return source;
  const copy: Payload = { ...source };
  if (rest.length === 0) {
    delete copy[head];
    return copy;
  }
  const value = source[head];
  if (isObject(value)) copy[head] = withoutPath(value, rest);
  return copy;
}

/** The payload to return under `selection`; undefined when it is not asked for. Never mutates. */
export function selectPayload(payload: Payload, selection: PayloadSelection): Payload | undefined {
  switch (selection.kind) {
    case 'none':
      return undefined;
    case 'all':
      return payload;
    case 'include': {
      const result: Payload = {};
      for (const path of selection.paths) copyPath(payload, result, path);
      return result;
    }
    case 'exclude': {
      let result = payload;
      for (const path of selection.paths) result = withoutPath(result, path);
      return result;
    }
  }
}
