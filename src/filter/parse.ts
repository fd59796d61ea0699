// JSON -> typed filter tree (docs/api.md §6). Everything a filter may hold is checked here, once:
// unknown keys, wrong types and out-of-range values are 400s whose message names the exact part
// (`filter.must[2].range.gt: ...`), and depth and size are bounded so a hostile filter cannot
// cost more than its limits.
import { errors } from '../errors.js';
import { parseDatetime } from '../payload/datetime.js';
import { isValidCoordinate, type GeoPoint } from '../payload/geo.js';
import { isPlainObject, parsePath, PathSyntaxError, type PayloadPath } from '../payload/path.js';
import { filterPointIdKey } from './point-id.js';
import { maxSliceTotal } from './slice.js';
import type { Condition, Filter, IntegerValue, RangeBounds } from './types.js';
import { describeJsonValue } from '../json/describe.js';

export interface FilterLimits {
  /** Deepest nesting of groups and `nested` conditions; the top filter is depth 1. */
  maxDepth: number;
  /** Most conditions (of every kind, groups included) in one filter. */
  maxConditions: number;
}

interface Context {
  limits: FilterLimits;
  conditionCount: number;
}

type Json = Record<string, unknown>;

function fail(where: string, problem: string): never {
  throw errors.invalidField(where, problem);
}

function describe(value: unknown): string {
  if (typeof value === 'bigint') return value.toString();
  if (value === undefined) return 'nothing';
  return describeJsonValue(value, 60);
}

function expectObject(value: unknown, where: string): Json {
  if (!isPlainObject(value)) fail(where, `expected an object, got ${describe(value)}`);
  return value;
}

function refuseUnknownKeys(object: Json, allowed: readonly string[], where: string): void {
  for (const key of Object.keys(object)) {
    if (!allowed.includes(key)) fail(`${where}.${key}`, `unknown field (expected one of ${allowed.join(', ')})`);
  }
}

function isInteger(value: unknown): value is IntegerValue {
  return typeof value === 'bigint' || (typeof value === 'number' && Number.isSafeInteger(value));
}

function parseKey(value: unknown, where: string): PayloadPath {
  if (typeof value !== 'string') fail(where, `expected a JSON path string, got ${describe(value)}`);
  try {
    return parsePath(value);
  } catch (error) {
    if (error instanceof PathSyntaxError) fail(where, error.message);
    throw error;
  }
}

function countCondition(context: Context, where: string): void {
  context.conditionCount += 1;
  if (context.conditionCount > context.limits.maxConditions) {
    fail(where, `the filter holds more than ${context.limits.maxConditions} conditions`);
  }
}

function parseClause(value: unknown, where: string, context: Context, depth: number): Condition[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value.map((item, position) => parseCondition(item, `${where}[${position}]`, context, depth));
  return [parseCondition(value, where, context, depth)];
}

/** Parses one Filter object at nesting `depth` (the top filter is 1). */
function parseFilterAt(value: unknown, where: string, context: Context, depth: number): Filter {
  if (depth > context.limits.maxDepth) fail(where, `the filter is nested deeper than ${context.limits.maxDepth} levels`);
  const object = expectObject(value, where);
  refuseUnknownKeys(object, ['must', 'should', 'must_not', 'min_should'], where);
  const filter: Filter = {
    must: parseClause(object.must, `${where}.must`, context, depth),
    should: parseClause(object.should, `${where}.should`, context, depth),
    mustNot: parseClause(object.must_not, `${where}.must_not`, context, depth),
    minShould: undefined,
  };
  if (object.min_should !== undefined && object.min_should !== null) {
    const minWhere = `${where}.min_should`;
    const minShould = expectObject(object.min_should, minWhere);
    refuseUnknownKeys(minShould, ['conditions', 'min_count'], minWhere);
    if (minShould.conditions === undefined) fail(`${minWhere}.conditions`, 'missing required field');
    const minCount = minShould.min_count;
    if (typeof minCount !== 'number' || !Number.isSafeInteger(minCount) || minCount < 0) {
      fail(`${minWhere}.min_count`, `expected a non-negative integer, got ${describe(minCount)}`);
    }
    filter.minShould = { conditions: parseClause(minShould.conditions, `${minWhere}.conditions`, context, depth), minCount };
  }
  return filter;
}

const fieldPredicates = ['match', 'range', 'geo_bounding_box', 'geo_radius', 'geo_polygon', 'values_count', 'is_empty', 'is_null'] as const;

function parseCondition(value: unknown, where: string, context: Context, depth: number): Condition {
  countCondition(context, where);
  const object = expectObject(value, where);
  if ('key' in object) return parseFieldCondition(object, where);
  if ('has_id' in object) {
    refuseUnknownKeys(object, ['has_id'], where);
    if (!Array.isArray(object.has_id)) fail(`${where}.has_id`, `expected an array of point ids, got ${describe(object.has_id)}`);
    const ids = new Set<string>();
    object.has_id.forEach((id, position) => ids.add(filterPointIdKey(id, `${where}.has_id[${position}]`)));
    return { kind: 'has_id', ids };
  }
  if ('has_vector' in object) {
    refuseUnknownKeys(object, ['has_vector'], where);
    if (typeof object.has_vector !== 'string') fail(`${where}.has_vector`, `expected a vector name, got ${describe(object.has_vector)}`);
    return { kind: 'has_vector', name: object.has_vector };
  }
  if ('slice' in object) {
    refuseUnknownKeys(object, ['slice'], where);
    return parseSlice(object.slice, `${where}.slice`);
  }
  if ('nested' in object) {
    refuseUnknownKeys(object, ['nested'], where);
    const nestedWhere = `${where}.nested`;
    const nested = expectObject(object.nested, nestedWhere);
    refuseUnknownKeys(nested, ['key', 'filter'], nestedWhere);
    if (nested.filter === undefined) fail(`${nestedWhere}.filter`, 'missing required field');
    return {
      kind: 'nested',
      key: parseKey(nested.key, `${nestedWhere}.key`),
      filter: parseFilterAt(nested.filter, `${nestedWhere}.filter`, context, depth + 1),
    };
  }
  if ('is_empty' in object || 'is_null' in object) {
    const kind = 'is_empty' in object ? 'is_empty' : 'is_null';
    refuseUnknownKeys(object, [kind], where);
    const inner = expectObject(object[kind], `${where}.${kind}`);
    refuseUnknownKeys(inner, ['key'], `${where}.${kind}`);
    return { kind, key: parseKey(inner.key, `${where}.${kind}.key`), negated: false };
  }
  return { kind: 'group', filter: parseFilterAt(object, where, context, depth + 1) };
}

/** `{"slice": {"total", "index"}}`: `total` within [1, 2^32 - 1], `index` below it. */
function parseSlice(value: unknown, where: string): Condition {
  const slice = expectObject(value, where);
  refuseUnknownKeys(slice, ['total', 'index'], where);
  const { total, index } = slice;
  if (typeof total !== 'number' || !Number.isSafeInteger(total) || total < 1 || total > maxSliceTotal) {
    fail(`${where}.total`, `expected an integer from 1 to ${maxSliceTotal}, got ${describe(total)}`);
  }
  if (typeof index !== 'number' || !Number.isSafeInteger(index) || index < 0 || index >= total) {
    fail(`${where}.index`, `expected an integer from 0 to ${total - 1} (below total), got ${describe(index)}`);
  }
  return { kind: 'slice', total, index };
}

/**
 * `{"key", <predicate>...}`. Several predicates on one key must all hold, so they become a group
 * of single-predicate conditions, which keeps every later step one predicate wide.
 */
function parseFieldCondition(object: Json, where: string): Condition {
  refuseUnknownKeys(object, ['key', ...fieldPredicates], where);
  const key = parseKey(object.key, `${where}.key`);
  const parts: Condition[] = [];
  for (const predicate of fieldPredicates) {
    const value = object[predicate];
    if (value === undefined || value === null) continue;
    const predicateWhere = `${where}.${predicate}`;
    switch (predicate) {
      case 'match':
        parts.push(parseMatch(key, value, predicateWhere));
        break;
      case 'range':
        parts.push(parseRange(key, value, predicateWhere));
        break;
      case 'geo_bounding_box': {
        const box = expectObject(value, predicateWhere);
        refuseUnknownKeys(box, ['top_left', 'bottom_right'], predicateWhere);
        parts.push({
          kind: 'geo_bounding_box',
          key,
          box: { topLeft: parseGeoPoint(box.top_left, `${predicateWhere}.top_left`), bottomRight: parseGeoPoint(box.bottom_right, `${predicateWhere}.bottom_right`) },
        });
        break;
      }
      case 'geo_radius': {
        const circle = expectObject(value, predicateWhere);
        refuseUnknownKeys(circle, ['center', 'radius'], predicateWhere);
        const radius = circle.radius;
        if (typeof radius !== 'number' || !Number.isFinite(radius) || radius < 0) {
          fail(`${predicateWhere}.radius`, `expected a non-negative number of metres, got ${describe(radius)}`);
        }
        parts.push({ kind: 'geo_radius', key, circle: { center: parseGeoPoint(circle.center, `${predicateWhere}.center`), radius_m: radius } });
        break;
      }
      case 'geo_polygon': {
        const polygon = expectObject(value, predicateWhere);
        refuseUnknownKeys(polygon, ['exterior', 'interiors'], predicateWhere);
        const interiors = polygon.interiors ?? [];
        if (!Array.isArray(interiors)) fail(`${predicateWhere}.interiors`, `expected an array of rings, got ${describe(interiors)}`);
        parts.push({
          kind: 'geo_polygon',
          key,
          polygon: {
            exterior: parseRing(polygon.exterior, `${predicateWhere}.exterior`),
            interiors: interiors.map((ring, position) => parseRing(ring, `${predicateWhere}.interiors[${position}]`)),
          },
        });
        break;
      }
      case 'values_count':
        parts.push({ kind: 'values_count', key, bounds: parseCountBounds(value, predicateWhere) });
        break;
      case 'is_empty':
      case 'is_null':
        if (typeof value !== 'boolean') fail(predicateWhere, `expected true or false, got ${describe(value)}`);
        parts.push({ kind: predicate, key, negated: !value });
        break;
    }
  }
  if (parts.length === 0) fail(where, `a field condition needs one of ${fieldPredicates.join(', ')}`);
  if (parts.length === 1) return parts[0]!;
  return { kind: 'group', filter: { must: parts, should: [], mustNot: [], minShould: undefined } };
}

const matchForms = ['value', 'any', 'except', 'text', 'text_any', 'phrase', 'prefix'] as const;

function parseMatch(key: PayloadPath, value: unknown, where: string): Condition {
  const match = expectObject(value, where);
  refuseUnknownKeys(match, matchForms, where);
  const present = matchForms.filter((form) => match[form] !== undefined);
  if (present.length !== 1) fail(where, `expected exactly one of ${matchForms.join(', ')}`);
  const form = present[0]!;
  const argument = match[form];
  const formWhere = `${where}.${form}`;
  switch (form) {
    case 'value':
      if (typeof argument === 'string' || typeof argument === 'boolean' || isInteger(argument)) return { kind: 'match_value', key, value: argument };
      return fail(formWhere, `expected a string, an integer or a boolean, got ${describe(argument)}`);
    case 'any':
    case 'except': {
      if (!Array.isArray(argument)) fail(formWhere, `expected an array of strings or of integers, got ${describe(argument)}`);
      const allStrings = argument.every((item) => typeof item === 'string');
      const allIntegers = argument.every(isInteger);
      if (!allStrings && !allIntegers) fail(formWhere, 'expected an array of strings or of integers, not a mix or other values');
      return { kind: form === 'any' ? 'match_any' : 'match_except', key, values: argument as string[] | IntegerValue[] };
    }
    case 'prefix':
      if (typeof argument !== 'string') fail(formWhere, `expected a string, got ${describe(argument)}`);
      return { kind: 'match_prefix', key, prefix: argument };
    default:
      if (typeof argument !== 'string') fail(formWhere, `expected a string, got ${describe(argument)}`);
      return { kind: 'match_text', key, mode: form, text: argument };
  }
}

const boundNames = ['gt', 'gte', 'lt', 'lte'] as const;

function parseRange(key: PayloadPath, value: unknown, where: string): Condition {
  const range = expectObject(value, where);
  refuseUnknownKeys(range, boundNames, where);
  const given = boundNames.filter((name) => range[name] !== undefined && range[name] !== null);
  const textual = given.filter((name) => typeof range[name] === 'string');
  if (textual.length > 0 && textual.length < given.length) fail(where, 'bounds must be all numbers or all RFC 3339 datetimes, not a mix');
  const bounds: RangeBounds = {};
  for (const name of given) {
    const bound = range[name];
    if (typeof bound === 'string') {
      const timestamp = parseDatetime(bound);
      if (timestamp === undefined) fail(`${where}.${name}`, `expected an RFC 3339 datetime, got ${describe(bound)}`);
      bounds[name] = timestamp;
    } else if (typeof bound === 'bigint') {
      bounds[name] = Number(bound);
    } else if (typeof bound === 'number' && Number.isFinite(bound)) {
      bounds[name] = bound;
    } else {
      fail(`${where}.${name}`, `expected a number or an RFC 3339 datetime, got ${describe(bound)}`);
    }
  }
  return { kind: textual.length > 0 ? 'datetime_range' : 'range', key, bounds };
}

function parseCountBounds(value: unknown, where: string): RangeBounds {
  const range = expectObject(value, where);
  refuseUnknownKeys(range, boundNames, where);
  const bounds: RangeBounds = {};
  for (const name of boundNames) {
    const bound = range[name];
    if (bound === undefined || bound === null) continue;
    if (typeof bound !== 'number' || !Number.isSafeInteger(bound) || bound < 0) fail(`${where}.${name}`, `expected a non-negative integer, got ${describe(bound)}`);
    bounds[name] = bound;
  }
  return bounds;
}

function parseGeoPoint(value: unknown, where: string): GeoPoint {
  const object = expectObject(value, where);
  refuseUnknownKeys(object, ['lon', 'lat'], where);
  const { lon, lat } = object;
  if (typeof lon !== 'number') fail(`${where}.lon`, `expected a number, got ${describe(lon)}`);
  if (typeof lat !== 'number') fail(`${where}.lat`, `expected a number, got ${describe(lat)}`);
  const point = { lon, lat };
  if (!isValidCoordinate(point)) fail(where, `longitude must be within [-180, 180] and latitude within [-90, 90], got ${describe(value)}`);
  return point;
}

/** A closed ring of at least four points (the first repeated at the end), as Qdrant requires. */
function parseRing(value: unknown, where: string): GeoPoint[] {
  const object = expectObject(value, where);
  refuseUnknownKeys(object, ['points'], where);
  if (!Array.isArray(object.points)) fail(`${where}.points`, `expected an array of geo points, got ${describe(object.points)}`);
  const points = object.points.map((point, position) => parseGeoPoint(point, `${where}.points[${position}]`));
  if (points.length < 4) fail(`${where}.points`, `a polygon ring needs at least 4 points, got ${points.length}`);
  const first = points[0]!;
  const last = points[points.length - 1]!;
  if (first.lon !== last.lon || first.lat !== last.lat) fail(`${where}.points`, 'a polygon ring must be closed: its last point must equal its first');
  return points;
}

/**
 * Parses a request's filter; `where` names it in messages (`filter`, `prefetch[0].filter`).
 * `null` and `undefined` mean no filter.
 */
export function parseFilter(value: unknown, limits: FilterLimits, where = 'filter'): Filter | undefined {
  if (value === undefined || value === null) return undefined;
  return parseFilterAt(value, where, { limits, conditionCount: 0 }, 1);
}
