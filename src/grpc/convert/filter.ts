// Filter and Condition messages -> the REST filter JSON (docs/api.md §4), which the REST door then
// validates and plans exactly as it does for REST callers.
import { timestampDate } from '@bufbuild/protobuf/wkt';
import type { Timestamp } from '@bufbuild/protobuf/wkt';
import type { SearchPoints } from '@qdrant/js-client-grpc';
import { invalidArgument } from '../status.js';
import { idsToJson } from './ids.js';
import { jsonInteger } from '../../json/json-shaped.js';

type Json = Record<string, unknown>;
// The points messages use qdrant_common.proto's filter types, which the package does not export
// by name: they are reached through a message that holds them.
export type Filter = NonNullable<SearchPoints['filter']>;
type Condition = Filter['must'][number];
type FieldCondition = Extract<Condition['conditionOneOf'], { case: 'field' }>['value'];
type Match = NonNullable<FieldCondition['match']>;
type GeoPoint = NonNullable<NonNullable<FieldCondition['geoRadius']>['center']>;

export function filterToJson(filter: Filter | undefined, field: string): Json | undefined {
  if (!filter) return undefined;
  const json: Json = {};
  if (filter.must.length > 0) json.must = filter.must.map((condition, index) => conditionToJson(condition, `${field}.must[${index}]`));
  if (filter.should.length > 0) json.should = filter.should.map((condition, index) => conditionToJson(condition, `${field}.should[${index}]`));
  if (filter.mustNot.length > 0) json.must_not = filter.mustNot.map((condition, index) => conditionToJson(condition, `${field}.must_not[${index}]`));
  if (filter.minShould) {
    json.min_should = {
      conditions: filter.minShould.conditions.map((condition, index) => conditionToJson(condition, `${field}.min_should.conditions[${index}]`)),
      min_count: jsonInteger(filter.minShould.minCount),
    };
  }
  return json;
}

export function conditionToJson(condition: Condition, field: string): Json {
  const one = condition.conditionOneOf;
  switch (one.case) {
    case 'field':
      return fieldConditionToJson(one.value, `${field}.field`);
    case 'isEmpty':
      return { is_empty: { key: one.value.key } };
    case 'isNull':
      return { is_null: { key: one.value.key } };
    case 'hasId':
      return { has_id: idsToJson(one.value.hasId, `${field}.has_id`) };
    case 'hasVector':
      return { has_vector: one.value.hasVector };
    case 'filter':
      return filterToJson(one.value, `${field}.filter`) ?? {};
    case 'nested':
      return { nested: { key: one.value.key, filter: filterToJson(one.value.filter, `${field}.nested.filter`) ?? {} } };
    case 'slice':
      return { slice: { total: one.value.total, index: one.value.index } };
    default:
      throw invalidArgument(field, 'a condition must set one of field, is_empty, has_id, filter, is_null, nested, has_vector, slice');
  }
}

function geoPoint(point: GeoPoint | undefined): Json | undefined {
  return point ? { lon: point.lon, lat: point.lat } : undefined;
}

function timestampText(value: Timestamp | undefined): string | undefined {
  return value ? timestampDate(value).toISOString() : undefined;
}

function fieldConditionToJson(condition: FieldCondition, field: string): Json {
  const json: Json = { key: condition.key };
  if (condition.match) json.match = matchToJson(condition.match, `${field}.match`);
  if (condition.range) json.range = definedOnly({ lt: condition.range.lt, gt: condition.range.gt, gte: condition.range.gte, lte: condition.range.lte });
  if (condition.datetimeRange) {
    const range = condition.datetimeRange;
    json.range = definedOnly({ lt: timestampText(range.lt), gt: timestampText(range.gt), gte: timestampText(range.gte), lte: timestampText(range.lte) });
  }
  if (condition.geoBoundingBox) json.geo_bounding_box = { top_left: geoPoint(condition.geoBoundingBox.topLeft), bottom_right: geoPoint(condition.geoBoundingBox.bottomRight) };
  if (condition.geoRadius) json.geo_radius = { center: geoPoint(condition.geoRadius.center), radius: condition.geoRadius.radius };
  if (condition.geoPolygon) {
    const line = (points: GeoPoint[]) => ({ points: points.map(geoPoint) });
    json.geo_polygon = {
      exterior: line(condition.geoPolygon.exterior?.points ?? []),
      interiors: condition.geoPolygon.interiors.map((interior) => line(interior.points)),
    };
  }
  if (condition.valuesCount) {
    const count = condition.valuesCount;
    const integer = (value: bigint | undefined) => (value === undefined ? undefined : jsonInteger(value));
    json.values_count = definedOnly({ lt: integer(count.lt), gt: integer(count.gt), gte: integer(count.gte), lte: integer(count.lte) });
  }
  // FieldCondition.is_empty / is_null are the same conditions written inside a field condition.
  if (condition.isEmpty === true && Object.keys(json).length === 1) return { is_empty: { key: condition.key } };
  if (condition.isNull === true && Object.keys(json).length === 1) return { is_null: { key: condition.key } };
  return json;
}

function matchToJson(match: Match, field: string): Json {
  const value = match.matchValue;
  switch (value.case) {
    case 'keyword':
    case 'boolean':
      return { value: value.value };
    case 'integer':
      return { value: jsonInteger(value.value) };
    case 'text':
      return { text: value.value };
    case 'phrase':
      return { phrase: value.value };
    case 'textAny':
      return { text_any: value.value };
    case 'prefix':
      return { prefix: value.value };
    case 'keywords':
      return { any: value.value.strings };
    case 'integers':
      return { any: value.value.integers.map(jsonInteger) };
    case 'exceptKeywords':
      return { except: value.value.strings };
    case 'exceptIntegers':
      return { except: value.value.integers.map(jsonInteger) };
    default:
      throw invalidArgument(field, 'a match must set one of its values');
  }
}

/** The object without its undefined members (REST validators refuse none, but keep bodies plain). */
export function definedOnly(object: Json): Json {
  const json: Json = {};
  for (const [key, value] of Object.entries(object)) if (value !== undefined) json[key] = value;
  return json;
}
