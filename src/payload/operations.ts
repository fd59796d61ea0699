// Payload edits (docs/api.md §3): set, overwrite, delete keys, clear. Pure functions: the input
// payload is never changed, the result shares untouched branches with it (copy on write), so a
// failed request can never leave a half-edited payload behind.
import { isPlainObject, type Payload, type PathSegment, type PayloadPath } from './path.js';

type Update = (target: unknown) => unknown;

/**
 * Applies `update` to the value at `segments[position..]` below `value`, copying each container
 * on the way. With `create`, missing or non-object steps along keys become new objects; array
 * steps (`[n]`, `[]`) never create, since there is no sensible element to invent.
 */
function updateAt(value: unknown, segments: readonly PathSegment[], position: number, update: Update, create: boolean): unknown {
  if (position === segments.length) return update(value);
  const segment = segments[position]!;
  if (segment.kind === 'key') {
    const base = isPlainObject(value) ? value : create ? {} : undefined;
    if (base === undefined) return value;
    const present = Object.hasOwn(base, segment.name);
    if (!present && !create) return value;
    const child = present ? base[segment.name] : undefined;
    const changed = updateAt(child, segments, position + 1, update, create);
    if (changed === child && base === value) return value;
    const copy: Record<string, unknown> = { ...base };
    copy[segment.name] = changed;
    return copy;
  }
  if (!Array.isArray(value)) return value;
  if (segment.kind === 'index') {
    if (segment.index >= value.length) return value;
    const child = value[segment.index];
    const changed = updateAt(child, segments, position + 1, update, create);
    if (changed === child) return value;
    const copy = value.slice();
    copy[segment.index] = changed;
    return copy;
  }
  let anyChanged = false;
  const mapped = value.map((element) => {
    const changed = updateAt(element, segments, position + 1, update, create);
    if (changed !== element) anyChanged = true;
    return changed;
  });
  return anyChanged ? mapped : value;
}

/** Top-level merge: keys of `patch` replace those of `target`; a `null` value removes the key. */
function mergeKeys(target: Record<string, unknown>, patch: Payload): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...target };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return merged;
}

/**
 * `POST .../points/payload`: merges `patch` into the payload. With `key`, merges into the object
 * at that path instead, creating missing objects on the way (a non-object in the way is replaced).
 */
export function setPayload(payload: Payload, patch: Payload, key?: PayloadPath): Payload {
  if (!key) return mergeKeys(payload, patch);
  const merge: Update = (target) => mergeKeys(isPlainObject(target) ? target : {}, patch);
  return updateAt(payload, key.segments, 0, merge, true) as Payload;
}

/**
 * `PUT .../points/payload`: the payload becomes `replacement`; with `key`, the object at that
 * path does (missing objects on the way are created).
 */
export function overwritePayload(payload: Payload, replacement: Payload, key?: PayloadPath): Payload {
  if (!key) return { ...replacement };
  return updateAt(payload, key.segments, 0, () => ({ ...replacement }), true) as Payload;
}

function removeLast(parent: unknown, last: PathSegment): unknown {
  if (last.kind === 'key') {
    if (!isPlainObject(parent) || !Object.hasOwn(parent, last.name)) return parent;
    const copy: Record<string, unknown> = { ...parent };
    delete copy[last.name];
    return copy;
  }
  if (!Array.isArray(parent)) return parent;
  if (last.kind === 'index') {
    if (last.index >= parent.length) return parent;
    return [...parent.slice(0, last.index), ...parent.slice(last.index + 1)];
  }
  return parent.length === 0 ? parent : [];
}

/**
 * `POST .../points/payload/delete`: removes each path (`a`, `a.b`, `a[0]`, `a[].b`); a path
 * that reaches nothing is ignored, as the spec says of absent keys.
 */
export function deletePayloadKeys(payload: Payload, keys: readonly PayloadPath[]): Payload {
  let result: unknown = payload;
  for (const key of keys) {
    const segments = key.segments;
    if (segments.length === 0) continue;
    const last = segments[segments.length - 1]!;
    result = updateAt(result, segments.slice(0, -1), 0, (parent) => removeLast(parent, last), false);
  }
  return result === payload ? { ...payload } : (result as Payload);
}

/** `POST .../points/payload/clear`. */
export function clearPayload(_payload: Payload): Payload {
  return {};
}
