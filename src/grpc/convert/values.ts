// Qdrant's json_with_int Value <-> the JSON values the REST door reads and writes. Integers stay
// exact both ways: an int64 beyond 2^53 is a bigint in JSON (json/parse.ts keeps those exact),
// never a rounded number.
import { create } from '@bufbuild/protobuf';
import { NullValue, ValueSchema, type Value } from '@qdrant/js-client-grpc';
import { jsonInteger } from '../../json/json-shaped.js';
import { invalidArgument } from '../status.js';

export function valueToJson(value: Value, field: string): unknown {
  const kind = value.kind;
  switch (kind.case) {
    case 'nullValue':
      return null;
    case 'doubleValue':
      if (!Number.isFinite(kind.value)) throw invalidArgument(field, 'a payload number must be finite');
      return kind.value;
    case 'integerValue':
      return jsonInteger(kind.value);
    case 'stringValue':
    case 'boolValue':
      return kind.value;
    case 'structValue':
      return mapToJson(kind.value.fields, field);
    case 'listValue':
      return kind.value.values.map((item, index) => valueToJson(item, `${field}[${index}]`));
    default:
      // An unset Value is what proto3 sends for JSON null in some clients.
      return null;
  }
}

/** A payload (map<string, Value>) as a JSON object. */
export function mapToJson(fields: Record<string, Value>, field: string): Record<string, unknown> {
  const json: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (key === '__proto__') throw invalidArgument(field, 'the key __proto__ is not allowed');
    json[key] = valueToJson(value, `${field}.${key}`);
  }
  return json;
}

export function jsonToValue(json: unknown): Value {
  if (json === null || json === undefined) return create(ValueSchema, { kind: { case: 'nullValue', value: NullValue.NULL_VALUE } });
  if (typeof json === 'bigint') return create(ValueSchema, { kind: { case: 'integerValue', value: json } });
  if (typeof json === 'number') {
    return Number.isInteger(json)
      ? create(ValueSchema, { kind: { case: 'integerValue', value: BigInt(json) } })
      : create(ValueSchema, { kind: { case: 'doubleValue', value: json } });
  }
  if (typeof json === 'string') return create(ValueSchema, { kind: { case: 'stringValue', value: json } });
  if (typeof json === 'boolean') return create(ValueSchema, { kind: { case: 'boolValue', value: json } });
  if (Array.isArray(json)) return create(ValueSchema, { kind: { case: 'listValue', value: { values: json.map(jsonToValue) } } });
  return create(ValueSchema, { kind: { case: 'structValue', value: { fields: jsonToMap(json as Record<string, unknown>) } } });
}

export function jsonToMap(json: Record<string, unknown> | null | undefined): Record<string, Value> {
  const fields: Record<string, Value> = {};
  if (!json) return fields;
  for (const [key, value] of Object.entries(json)) fields[key] = jsonToValue(value);
  return fields;
}
