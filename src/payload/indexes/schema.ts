// `PUT .../index` field_schema (docs/api.md §6): a type name or `{"type", ...params}`. Parsed into a
// normalised definition that is persisted (versioned by its owner) and echoed in payload_schema.
import { errors } from '../../errors.js';
import { isPlainObject } from '../path.js';
import { validateTextAnalysisParams } from '../../text/analysis-params.js';
import type { Tokenizer } from '../tokenize.js';
import type { PayloadSchemaType } from './types.js';
import { describeJsonValue } from '../../json/describe.js';

export const payloadSchemaTypes: readonly PayloadSchemaType[] = ['keyword', 'integer', 'float', 'bool', 'datetime', 'uuid', 'text', 'geo'];

/** A parsed field schema. `params` is what the request gave in object form (echoed back). */
export interface IndexDefinition {
  type: PayloadSchemaType;
  params: Record<string, unknown> | undefined;
}

const tokenizers: readonly Tokenizer[] = ['word', 'whitespace', 'prefix', 'multilingual'];

// Parameters Qdrant defines per type; those that only tune storage (on_disk, is_tenant,
// is_principal) are stored and echoed, the others change how the index answers. Text
// `phrase_matching` is stored and echoed too, but phrases always work: the text index narrows to
// points holding every term and the planner checks the order on their payloads.
const typeParams: Record<PayloadSchemaType, readonly string[]> = {
  keyword: ['is_tenant', 'on_disk', 'prefix'],
  integer: ['lookup', 'range', 'is_principal', 'on_disk'],
  float: ['is_principal', 'on_disk'],
  bool: ['on_disk'],
  datetime: ['is_principal', 'on_disk'],
  uuid: ['is_tenant', 'on_disk'],
  text: ['tokenizer', 'min_token_len', 'max_token_len', 'lowercase', 'phrase_matching', 'ascii_folding', 'stopwords', 'stemmer', 'on_disk'],
  geo: ['on_disk'],
};

// Every type also takes `enable_hnsw` (extra graph links per payload value in Qdrant; QuiverDB's
// graph has none, so it is echoed only) and v1.19's `memory` tier (echoed only). Keyword `prefix`
// marks the index as answering `match.prefix`, which strict mode's unindexed-filtering rule reads
// (docs/api.md §6.5); the keyword index answers prefixes from its sorted values either way.
const allowedParams = Object.fromEntries(
  Object.entries(typeParams).map(([type, names]) => [type, [...names, 'enable_hnsw', 'memory']]),
) as unknown as Record<PayloadSchemaType, readonly string[]>;

const memoryTiers = ['pinned', 'cached', 'cold'];

function isSchemaType(value: unknown): value is PayloadSchemaType {
  return typeof value === 'string' && (payloadSchemaTypes as readonly string[]).includes(value);
}

function expectBoolean(params: Record<string, unknown>, name: string, where: string): void {
  if (params[name] !== undefined && params[name] !== null && typeof params[name] !== 'boolean') {
    throw errors.invalidField(`${where}.${name}`, `expected true or false, got ${describeJsonValue(params[name])}`);
  }
}

function expectTokenLength(params: Record<string, unknown>, name: string, where: string): void {
  const value = params[name];
  if (value === undefined || value === null) return;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1 || value > 1024) {
    throw errors.invalidField(`${where}.${name}`, `expected an integer from 1 to 1024, got ${describeJsonValue(value)}`);
  }
}

/** Parses `field_schema`; absent means keyword, like Qdrant's default for a bare field name. */
export function parseIndexDefinition(value: unknown, where = 'field_schema'): IndexDefinition {
  if (value === undefined || value === null) return { type: 'keyword', params: undefined };
  if (typeof value === 'string') {
    if (!isSchemaType(value)) throw errors.invalidField(where, `unknown index type "${value}" (expected one of ${payloadSchemaTypes.join(', ')})`);
    return { type: value, params: undefined };
  }
  if (!isPlainObject(value)) throw errors.invalidField(where, `expected a type name or an object with "type", got ${describeJsonValue(value)}`);
  const type = value.type;
  if (!isSchemaType(type)) throw errors.invalidField(`${where}.type`, `expected one of ${payloadSchemaTypes.join(', ')}, got ${describeJsonValue(type)}`);
  for (const key of Object.keys(value)) {
    if (key !== 'type' && !allowedParams[type].includes(key)) {
      throw errors.invalidField(`${where}.${key}`, `not a parameter of a ${type} index (expected ${allowedParams[type].join(', ') || 'none'})`);
    }
  }
  for (const name of ['is_tenant', 'on_disk', 'lookup', 'range', 'is_principal', 'lowercase', 'phrase_matching', 'ascii_folding', 'enable_hnsw', 'prefix']) {
    expectBoolean(value, name, where);
  }
  if (value.memory !== undefined && value.memory !== null && !memoryTiers.includes(value.memory as string)) {
    throw errors.invalidField(`${where}.memory`, `expected one of ${memoryTiers.join(', ')}, got ${describeJsonValue(value.memory)}`);
  }
  if (type === 'integer' && value.lookup === false && value.range === false) {
    throw errors.invalidField(where, 'an integer index needs lookup or range (or both)');
  }
  if (type === 'text') {
    if (value.tokenizer !== undefined && value.tokenizer !== null && !tokenizers.includes(value.tokenizer as Tokenizer)) {
      throw errors.invalidField(`${where}.tokenizer`, `expected one of ${tokenizers.join(', ')}, got ${describeJsonValue(value.tokenizer)}`);
    }
    expectTokenLength(value, 'min_token_len', where);
    expectTokenLength(value, 'max_token_len', where);
    if (typeof value.min_token_len === 'number' && typeof value.max_token_len === 'number' && value.min_token_len > value.max_token_len) {
      throw errors.invalidField(where, 'min_token_len must not exceed max_token_len');
    }
    validateTextAnalysisParams(value, where);
  }
  return { type, params: { ...value } };
}
