// Write messages -> REST write bodies (docs/api.md §3): point selectors, points, field indexes.
import { FieldType, UpdateMode, UpdateStatus, type CreateFieldIndexCollection, type PointStruct, type PointsSelector } from '@qdrant/js-client-grpc';
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { PointsOperationResponseSchema } from '@qdrant/js-client-grpc';
import { invalidArgument } from '../status.js';
import { filterToJson } from './filter.js';
import { idToJson, idsToJson } from './ids.js';
import { plainMessage } from './plain.js';
import { mapToJson } from './values.js';
import { vectorsToJson } from './vectors.js';

type Json = Record<string, unknown>;

/** `{points: [...]}` or `{filter: {...}}`, REST's two ways of naming the points a write targets. */
export function selectorToJson(selector: PointsSelector | undefined, field: string): Json {
  const one = selector?.pointsSelectorOneOf;
  if (one?.case === 'points') return { points: idsToJson(one.value.ids, `${field}.points`) };
  if (one?.case === 'filter') return { filter: filterToJson(one.value, `${field}.filter`) ?? {} };
  throw invalidArgument(field, 'a points selector must list ids or give a filter');
}

export function pointToJson(point: PointStruct, field: string): Json {
  const json: Json = { id: idToJson(point.id, `${field}.id`), vector: vectorsToJson(point.vectors, `${field}.vectors`) };
  if (Object.keys(point.payload).length > 0) json.payload = mapToJson(point.payload, `${field}.payload`);
  return json;
}

export function updateModeToJson(mode: UpdateMode | undefined): string | undefined {
  if (mode === UpdateMode.InsertOnly) return 'insert_only';
  if (mode === UpdateMode.UpdateOnly) return 'update_only';
  return undefined;
}

const fieldTypeNames: Record<number, string> = {
  [FieldType.FieldTypeKeyword]: 'keyword',
  [FieldType.FieldTypeInteger]: 'integer',
  [FieldType.FieldTypeFloat]: 'float',
  [FieldType.FieldTypeGeo]: 'geo',
  [FieldType.FieldTypeText]: 'text',
  [FieldType.FieldTypeBool]: 'bool',
  [FieldType.FieldTypeDatetime]: 'datetime',
  [FieldType.FieldTypeUuid]: 'uuid',
};
const tokenizerNames = ['', 'prefix', 'whitespace', 'word', 'multilingual'];

export function fieldIndexToJson(request: CreateFieldIndexCollection): Json {
  const type = request.fieldType === undefined ? undefined : fieldTypeNames[request.fieldType];
  if (request.fieldType !== undefined && type === undefined) throw invalidArgument('field_type', `unknown field type ${request.fieldType}`);
  const params = request.fieldIndexParams?.indexParams;
  if (!params?.case) return { field_name: request.fieldName, field_schema: type };
  const json = plainMessage(params.value) ?? {};
  if (params.case === 'textIndexParams') {
    json.tokenizer = tokenizerNames[params.value.tokenizer] || undefined;
    if (json.tokenizer === undefined) delete json.tokenizer;
    delete json.stopwords;
    delete json.stemmer;
  }
  delete json.memory;
  return { field_name: request.fieldName, field_schema: { type: type ?? params.case.replace(/IndexParams$/, '').toLowerCase(), ...json } };
}

interface RestUpdateResult {
  operation_id?: number | bigint | null;
  status?: string;
}

export function operationResponse(result: RestUpdateResult, time: number): MessageInitShape<typeof PointsOperationResponseSchema> {
  const operationId = result.operation_id;
  return {
    result: {
      operationId: operationId === undefined || operationId === null ? undefined : BigInt(operationId),
      status: result.status === 'completed' ? UpdateStatus.Completed : result.status === 'acknowledged' ? UpdateStatus.Acknowledged : UpdateStatus.UnknownUpdateStatus,
    },
    time,
  };
}
