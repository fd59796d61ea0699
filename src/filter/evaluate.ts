// The filter evaluated on one point's payload (docs/api.md §6). This is the reference meaning of every
// condition: each payload index must answer exactly what this answers (it is their slow twin),
// and the planner falls back to it for whatever no index can answer.
//
// Rules: a field with several values (an array, or a `[]` path) matches when any value does; a
// missing field matches nothing except the is_empty / is_null:false / values_count-0 forms;
// `match.value` is type-strict ("1" is not 1).
import { parseDatetime } from '../payload/datetime.js';
import { asGeoPoint, insideBoundingBox, insidePolygon, insideRadius, type GeoPoint } from '../payload/geo.js';
import { formatPath, isPlainObject, valuesAt, type Payload, type PayloadPath } from '../payload/path.js';
import { documentTerms, queryTerms, termMatchesWord, wordSequence, type TextIndexOptions } from '../payload/tokenize.js';
import { integerKey, numericValue } from '../payload/values.js';
import { sliceOf } from './slice.js';
import { inRange, type Condition, type Filter, type IntegerValue } from './types.js';

/** What a filter can ask of a point. */
export interface PointView {
  /** The id as `pointIdKey` writes it: decimal integer or canonical UUID. */
  idKey: string;
  payload: Payload;
  hasVector(name: string): boolean;
}

export interface EvaluationOptions {
  /**
   * The text index on a path (canonical path text), if one exists: text conditions on that path
   * are then tokenised instead of substring matches (the contract's one index-dependent rule).
   */
  textIndex?(pathText: string): TextIndexOptions | undefined;
}

interface Scope {
  options: EvaluationOptions;
  /** Segments of the enclosing `nested` keys, so tokenisation looks up absolute paths. */
  prefix: PayloadPath['segments'];
}

// Sets of `any`/`except` lists, built once per condition object rather than once per point.
const valueSets = new WeakMap<object, Set<string>>();

function valueSet(condition: { values: string[] | IntegerValue[] }): Set<string> {
  let set = valueSets.get(condition);
  if (!set) {
    set = new Set((condition.values as unknown[]).map((value) => (typeof value === 'string' ? value : integerKey(value)!)));
    valueSets.set(condition, set);
  }
  return set;
}

function isStringList(values: string[] | IntegerValue[]): values is string[] {
  return values.length > 0 && typeof values[0] === 'string';
}

function matchesValue(value: unknown, expected: string | IntegerValue | boolean): boolean {
  if (typeof expected === 'string' || typeof expected === 'boolean') return value === expected;
  const key = integerKey(value);
  return key !== undefined && key === integerKey(expected);
}

function textOptionsFor(key: PayloadPath, scope: Scope): TextIndexOptions | undefined {
  if (!scope.options.textIndex) return undefined;
  const absolute = scope.prefix.length === 0 ? key.text : formatPath([...scope.prefix, ...key.segments]);
  return scope.options.textIndex(absolute);
}

/** Substring semantics: no text index on the field. */
function matchesTextPlain(strings: string[], mode: 'text' | 'text_any' | 'phrase', text: string): boolean {
  if (mode === 'text_any') {
    const words = text.split(/\s+/u).filter((word) => word !== '');
    return strings.some((value) => words.some((word) => value.includes(word)));
  }
  return strings.some((value) => value.includes(text));
}

function containsPhrase(words: string[], terms: string[], options: TextIndexOptions): boolean {
  for (let start = 0; start + terms.length <= words.length; start += 1) {
    if (terms.every((term, offset) => termMatchesWord(term, words[start + offset]!, options))) return true;
  }
  return false;
}

/**
 * Tokenised semantics (a text index exists): `text` needs every query term among the field's
 * terms, `text_any` one of them, `phrase` the terms in a row within one value. A query with no
 * terms matches nothing.
 */
export function matchesTextTokenised(strings: string[], mode: 'text' | 'text_any' | 'phrase', text: string, options: TextIndexOptions): boolean {
  const terms = queryTerms(text, options);
  if (terms.length === 0 || strings.length === 0) return false;
  if (mode === 'phrase') return strings.some((value) => containsPhrase(wordSequence(value, options), terms, options));
  const present = new Set(strings.flatMap((value) => documentTerms(value, options)));
  return mode === 'text' ? terms.every((term) => present.has(term)) : terms.some((term) => present.has(term));
}

function evaluateCondition(condition: Condition, point: PointView, scope: Scope): boolean {
  switch (condition.kind) {
    case 'group':
      return evaluateFilter(condition.filter, point, scope);
    case 'has_id':
      return condition.ids.has(point.idKey);
    case 'has_vector':
      return point.hasVector(condition.name);
    case 'slice':
      return sliceOf(point.idKey, condition.total) === condition.index;
    case 'nested': {
      const elements = valuesAt(point.payload, condition.key).filter(isPlainObject);
      const last = condition.key.segments[condition.key.segments.length - 1];
      const innerScope: Scope = {
        options: scope.options,
        prefix: [...scope.prefix, ...condition.key.segments, ...(last?.kind === 'every' ? [] : [{ kind: 'every' as const }])],
      };
      return elements.some((element) => evaluateFilter(condition.filter, { idKey: point.idKey, hasVector: (name: string) => point.hasVector(name), payload: element }, innerScope));
    }
    default:
      return evaluateField(condition, valuesAt(point.payload, condition.key), scope);
  }
}

// Written as plain loops: this runs once per point for every unindexed condition, and a
// closure per call is measurable there.
function evaluateField(condition: Exclude<Condition, { kind: 'group' | 'has_id' | 'has_vector' | 'slice' | 'nested' }>, values: unknown[], scope: Scope): boolean {
  switch (condition.kind) {
    case 'match_value': {
      const expected = condition.value;
      for (const value of values) if (matchesValue(value, expected)) return true;
      return false;
    }
    case 'match_any': {
      if (condition.values.length === 0) return false;
      const set = valueSet(condition);
      const strings = isStringList(condition.values);
      for (const value of values) {
        if (strings) {
          if (typeof value === 'string' && set.has(value)) return true;
        } else {
          const key = integerKey(value);
          if (key !== undefined && set.has(key)) return true;
        }
      }
      return false;
    }
    case 'match_except': {
      // A value of another type is "not in the list"; null is no value at all.
      const set = valueSet(condition);
      const strings = isStringList(condition.values);
      for (const value of values) {
        if (value === null) continue;
        if (strings) {
          if (typeof value !== 'string' || !set.has(value)) return true;
        } else {
          const key = integerKey(value);
          if (key === undefined || !set.has(key)) return true;
        }
      }
      return false;
    }
    case 'match_text': {
      const strings = values.filter((value): value is string => typeof value === 'string');
      const options = textOptionsFor(condition.key, scope);
      return options ? matchesTextTokenised(strings, condition.mode, condition.text, options) : matchesTextPlain(strings, condition.mode, condition.text);
    }
    case 'match_prefix':
      for (const value of values) if (typeof value === 'string' && value.startsWith(condition.prefix)) return true;
      return false;
    case 'range':
      for (const value of values) {
        const number = numericValue(value);
        if (number !== undefined && inRange(number, condition.bounds)) return true;
      }
      return false;
    case 'datetime_range':
      for (const value of values) {
        const timestamp = typeof value === 'string' ? parseDatetime(value) : undefined;
        if (timestamp !== undefined && inRange(timestamp, condition.bounds)) return true;
      }
      return false;
    case 'geo_bounding_box':
    case 'geo_radius':
    case 'geo_polygon':
      for (const value of values) {
        const point = asGeoPoint(value);
        if (point !== undefined && insideShape(point, condition)) return true;
      }
      return false;
    case 'values_count': {
      let count = 0;
      for (const value of values) if (value !== null) count += 1;
      return inRange(count, condition.bounds);
    }
    case 'is_empty': {
      let empty = true;
      for (const value of values) if (value !== null) empty = false;
      return condition.negated ? !empty : empty;
    }
    case 'is_null': {
      let holdsNull = false;
      for (const value of values) if (value === null) holdsNull = true;
      return condition.negated ? !holdsNull : holdsNull;
    }
  }
}

function insideShape(point: GeoPoint, condition: Extract<Condition, { kind: 'geo_bounding_box' | 'geo_radius' | 'geo_polygon' }>): boolean {
  if (condition.kind === 'geo_bounding_box') return insideBoundingBox(point, condition.box);
  if (condition.kind === 'geo_radius') return insideRadius(point, condition.circle);
  return insidePolygon(point, condition.polygon);
}

function evaluateFilter(filter: Filter, point: PointView, scope: Scope): boolean {
  for (const condition of filter.must) if (!evaluateCondition(condition, point, scope)) return false;
  for (const condition of filter.mustNot) if (evaluateCondition(condition, point, scope)) return false;
  if (filter.should.length > 0 && !filter.should.some((condition) => evaluateCondition(condition, point, scope))) return false;
  if (filter.minShould) {
    const { conditions, minCount } = filter.minShould;
    let satisfied = 0;
    for (let position = 0; position < conditions.length && satisfied < minCount; position += 1) {
      if (evaluateCondition(conditions[position]!, point, scope)) satisfied += 1;
    }
    if (satisfied < minCount) return false;
  }
  return true;
}

/** Whether `point` satisfies `filter`. */
export function matches(filter: Filter, point: PointView, options: EvaluationOptions = {}): boolean {
  return evaluateFilter(filter, point, { options, prefix: [] });
}

/** One condition alone, for the planner's per-candidate checks. */
export function matchesCondition(condition: Condition, point: PointView, options: EvaluationOptions = {}): boolean {
  return evaluateCondition(condition, point, { options, prefix: [] });
}
