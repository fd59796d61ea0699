// `with_payload` and `with_vector` (docs/api.md §3): which parts of a point a read returns. Parsed
// once per request into a small plan, then applied to each record.
import { Type, type Static } from '@sinclair/typebox';
import { errors } from '../errors.js';
import { denyUnknownFields } from '../json/unknown-fields.js';
import { isPlainObject, parsePath, PathSyntaxError, type PathSegment, type Payload, type PayloadPath } from '../payload/path.js';

export const WithPayloadSchema = Type.Union([
  Type.Boolean(),
  Type.Array(Type.String()),
  // Qdrant refuses unknown keys in these two (docs/api.md §1.4).
  Type.Object({ include: Type.Union([Type.String(), Type.Array(Type.String())]) }, denyUnknownFields),
  Type.Object({ exclude: Type.Union([Type.String(), Type.Array(Type.String())]) }, denyUnknownFields),
]);
export type WithPayload = Static<typeof WithPayloadSchema>;

export const WithVectorSchema = Type.Union([Type.Boolean(), Type.Array(Type.String())]);
export type WithVector = Static<typeof WithVectorSchema>;

export type { Payload };

/** What to return of a payload: nothing, everything, or only / all but some paths. */
export type PayloadSelection =
  | { kind: 'none' }
  | { kind: 'all' }
  | { kind: 'include'; paths: PayloadPath[] }
  | { kind: 'exclude'; paths: PayloadPath[] };

/** What to return of the vectors: nothing, all, or the named ones. */
export type VectorSelection = { kind: 'none' } | { kind: 'all' } | { kind: 'named'; names: string[] };

/** Selector paths use the filter language's path syntax (docs/api.md §6.4); a bad one is a 400. */
function parsePaths(paths: string | string[], where: string): PayloadPath[] {
  const list = typeof paths === 'string' ? [paths] : paths;
  return list.map((text, position) => {
    try {
      return parsePath(text);
    } catch (error) {
      if (error instanceof PathSyntaxError) throw errors.invalidField(typeof paths === 'string' ? where : `${where}[${position}]`, error.message);
      throw error;
    }
  });
}

/** `with_payload` as sent -> a selection; `field` names it in messages. */
export function payloadSelection(value: WithPayload | undefined, defaultValue: boolean, field = 'with_payload'): PayloadSelection {
  if (value === undefined) return defaultValue ? { kind: 'all' } : { kind: 'none' };
  if (value === true) return { kind: 'all' };
  if (value === false) return { kind: 'none' };
  if (Array.isArray(value)) return { kind: 'include', paths: parsePaths(value, field) };
  if ('include' in value) return { kind: 'include', paths: parsePaths(value.include, `${field}.include`) };
  return { kind: 'exclude', paths: parsePaths(value.exclude, `${field}.exclude`) };
}

export function vectorSelection(value: WithVector | undefined, defaultValue: boolean): VectorSelection {
  if (value === undefined) return defaultValue ? { kind: 'all' } : { kind: 'none' };
  if (value === true) return { kind: 'all' };
  if (value === false) return { kind: 'none' };
  return { kind: 'named', names: value };
}

// Selector semantics (docs/api.md §3.5): the payload is walked as a tree whose nodes have paths,
// array element i having its array's path plus `[i]`. A pattern segment agrees with a path segment
// when both are the same key, or the path's `[i]` meets a pattern's `[]` (every element) or `[i]`
// (that element). Include keeps a node when its path and some pattern agree segment by segment
// over their common length (ancestors of a pattern are kept, possibly emptied; everything below a
// whole pattern is kept), so an array keeps only the elements some pattern selects, in order.
// Exclude drops a node when some pattern agrees with the start of its path. Instead of testing
// every node against every pattern, the walk carries the patterns still in agreement with it.
// Qdrant differs for `[i]`: it walks every element as `[]`, so an index selects nothing (§10).

function keyAgrees(pattern: PathSegment, name: string): boolean {
  return pattern.kind === 'key' && pattern.name === name;
}

function elementAgrees(pattern: PathSegment, index: number): boolean {
  return pattern.kind === 'every' || (pattern.kind === 'index' && pattern.index === index);
}

/** The patterns whose segment at `depth` agrees with the path segment `agrees` tests. */
function agreeing(patterns: readonly PayloadPath[], depth: number, agrees: (pattern: PathSegment) => boolean): PayloadPath[] {
  return patterns.filter((pattern) => agrees(pattern.segments[depth]!));
}

/** The node at `depth`, kept because `patterns` (each longer than depth) agree with its path so far. */
function includeBelow(value: unknown, patterns: readonly PayloadPath[], depth: number): unknown {
  if (patterns.some((pattern) => pattern.segments.length <= depth)) return value;
  if (Array.isArray(value)) {
    const result: unknown[] = [];
    value.forEach((element, index) => {
      const active = agreeing(patterns, depth, (pattern) => elementAgrees(pattern, index));
      if (active.length > 0) result.push(includeBelow(element, active, depth + 1));
    });
    return result;
  }
  if (!isPlainObject(value)) return value;
  const result: Payload = {};
  for (const [key, child] of Object.entries(value)) {
    const active = agreeing(patterns, depth, (pattern) => keyAgrees(pattern, key));
    if (active.length > 0) result[key] = includeBelow(child, active, depth + 1);
  }
  return result;
}

/** The node at `depth` with what `patterns` (each longer than depth, agreeing so far) exclude removed. */
function excludeBelow(value: unknown, patterns: readonly PayloadPath[], depth: number): unknown {
  if (patterns.length === 0) return value;
  if (Array.isArray(value)) {
    // No pattern names an element here: the array is returned as it is, not copied.
    if (patterns.every((pattern) => pattern.segments[depth]!.kind === 'key')) return value;
    const result: unknown[] = [];
    value.forEach((element, index) => {
      const active = agreeing(patterns, depth, (pattern) => elementAgrees(pattern, index));
      if (active.some((pattern) => pattern.segments.length === depth + 1)) return;
      result.push(active.length === 0 ? element : excludeBelow(element, active, depth + 1));
    });
    return result;
  }
  if (!isPlainObject(value)) return value;
  const result: Payload = {};
  for (const [key, child] of Object.entries(value)) {
    const active = agreeing(patterns, depth, (pattern) => keyAgrees(pattern, key));
    if (active.some((pattern) => pattern.segments.length === depth + 1)) continue;
    result[key] = active.length === 0 ? child : excludeBelow(child, active, depth + 1);
  }
  return result;
}

/** The payload to return under `selection`; undefined when it is not asked for. Never mutates. */
export function selectPayload(payload: Payload, selection: PayloadSelection): Payload | undefined {
  switch (selection.kind) {
    case 'none':
      return undefined;
    case 'all':
      return payload;
    case 'include':
      return includeBelow(payload, selection.paths, 0) as Payload;
    case 'exclude':
      return excludeBelow(payload, selection.paths, 0) as Payload;
  }
}
