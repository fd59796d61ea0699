// qdrant.Points: each call is the REST call of docs/api.md §3/§5 through the REST door.
import type { ServiceHandlers } from '../transport.js';
import { collectionPath, waitQuery, type RestDoor } from '../rest-door.js';
import { batchOperationToJson } from '../convert/batch.js';
import { definedOnly, filterToJson } from '../convert/filter.js';
import { idToJson, idsToJson, jsonToId } from '../convert/ids.js';
import { retrievedPoint, scoredPoint, type RestPoint } from '../convert/points-out.js';
import { orderByToJson, queryPointsToJson, searchPointsToJson } from '../convert/query.js';
import { withPayloadToJson, withVectorsToJson } from '../convert/selectors.js';
import { mapToJson } from '../convert/values.js';
import { vectorsToJson } from '../convert/vectors.js';
import { fieldIndexToJson, operationResponse, pointToJson, selectorToJson, updateModeToJson } from '../convert/writes.js';
import { jsonInteger } from '../../json/json-shaped.js';
import { notImplementedThroughRest } from './unimplemented.js';
import { vectorNameConfigToJson } from '../convert/collections.js';
import type { Points } from '../descriptors.js';

type Json = Record<string, unknown>;

function facetValue(value: string | number | bigint | boolean) {
  if (typeof value === 'string') return { variant: { case: 'stringValue' as const, value } };
  if (typeof value === 'boolean') return { variant: { case: 'boolValue' as const, value } };
  return { variant: { case: 'integerValue' as const, value: BigInt(value) } };
}

function matrixBody(request: { filter?: Parameters<typeof filterToJson>[0]; sample?: bigint; limit?: bigint; using?: string }): Json {
  return definedOnly({
    filter: filterToJson(request.filter, 'filter'),
    sample: request.sample === undefined ? undefined : jsonInteger(request.sample),
    limit: request.limit === undefined ? undefined : jsonInteger(request.limit),
    using: request.using,
  });
}

type UpdateResult = { operation_id?: number | bigint | null; status?: string };

export function pointsService(door: RestDoor): ServiceHandlers<typeof Points> {
  const write = async (context: Parameters<RestDoor['call']>[0], method: 'PUT' | 'POST', collection: string, tail: string, wait: boolean | undefined, body: Json) => {
    const answer = await door.call<UpdateResult>(context, method, collectionPath(collection, tail) + waitQuery(wait), body);
    return operationResponse(answer.result, answer.time);
  };
  return {
    async upsert(request, context) {
      const body = definedOnly({
        points: request.points.map((point, index) => pointToJson(point, `points[${index}]`)),
        update_filter: filterToJson(request.updateFilter, 'update_filter'),
        update_mode: updateModeToJson(request.updateMode),
      });
      return write(context, 'PUT', request.collectionName, '/points', request.wait, body);
    },
    async delete(request, context) {
      return write(context, 'POST', request.collectionName, '/points/delete', request.wait, selectorToJson(request.points, 'points'));
    },
    async get(request, context) {
      const body = definedOnly({ ids: idsToJson(request.ids, 'ids'), with_payload: withPayloadToJson(request.withPayload), with_vector: withVectorsToJson(request.withVectors) });
      const answer = await door.call<RestPoint[]>(context, 'POST', collectionPath(request.collectionName, '/points'), body);
      return { result: answer.result.map(retrievedPoint), time: answer.time };
    },
    async updateVectors(request, context) {
      const body = definedOnly({
        points: request.points.map((point, index) => ({ id: idToJson(point.id, `points[${index}].id`), vector: vectorsToJson(point.vectors, `points[${index}].vectors`) })),
        update_filter: filterToJson(request.updateFilter, 'update_filter'),
      });
      return write(context, 'PUT', request.collectionName, '/points/vectors', request.wait, body);
    },
    async deleteVectors(request, context) {
      const body = { ...selectorToJson(request.pointsSelector, 'points_selector'), vector: request.vectors?.names ?? [] };
      return write(context, 'POST', request.collectionName, '/points/vectors/delete', request.wait, body);
    },
    async setPayload(request, context) {
      const body = definedOnly({ payload: mapToJson(request.payload, 'payload'), ...selectorToJson(request.pointsSelector, 'points_selector'), key: request.key });
      return write(context, 'POST', request.collectionName, '/points/payload', request.wait, body);
    },
    async overwritePayload(request, context) {
      const body = definedOnly({ payload: mapToJson(request.payload, 'payload'), ...selectorToJson(request.pointsSelector, 'points_selector'), key: request.key });
      return write(context, 'PUT', request.collectionName, '/points/payload', request.wait, body);
    },
    async deletePayload(request, context) {
      const body = { keys: request.keys, ...selectorToJson(request.pointsSelector, 'points_selector') };
      return write(context, 'POST', request.collectionName, '/points/payload/delete', request.wait, body);
    },
    async clearPayload(request, context) {
      return write(context, 'POST', request.collectionName, '/points/payload/clear', request.wait, selectorToJson(request.points, 'points'));
    },
    async createFieldIndex(request, context) {
      return write(context, 'PUT', request.collectionName, '/index', request.wait, fieldIndexToJson(request));
    },
    async deleteFieldIndex(request, context) {
      const answer = await door.call<UpdateResult>(context, 'DELETE', collectionPath(request.collectionName, `/index/${encodeURIComponent(request.fieldName)}`) + waitQuery(request.wait));
      return operationResponse(answer.result, answer.time);
    },
    async search(request, context) {
      const answer = await door.call<RestPoint[]>(context, 'POST', collectionPath(request.collectionName, '/points/search'), searchPointsToJson(request));
      return { result: answer.result.map(scoredPoint), time: answer.time };
    },
    async searchBatch(request, context) {
      const body = { searches: request.searchPoints.map(searchPointsToJson) };
      const answer = await door.call<RestPoint[][]>(context, 'POST', collectionPath(request.collectionName, '/points/search/batch'), body);
      return { result: answer.result.map((points) => ({ result: points.map(scoredPoint) })), time: answer.time };
    },
    async scroll(request, context) {
      const body = definedOnly({
        filter: filterToJson(request.filter, 'filter'),
        offset: request.offset ? idToJson(request.offset, 'offset') : undefined,
        limit: request.limit,
        with_payload: withPayloadToJson(request.withPayload),
        with_vector: withVectorsToJson(request.withVectors),
        order_by: request.orderBy ? orderByToJson(request.orderBy) : undefined,
      });
      const answer = await door.call<{ points: RestPoint[]; next_page_offset?: number | bigint | string | null }>(context, 'POST', collectionPath(request.collectionName, '/points/scroll'), body);
      const next = answer.result.next_page_offset;
      return { result: answer.result.points.map(retrievedPoint), nextPageOffset: next === undefined || next === null ? undefined : jsonToId(next), time: answer.time };
    },
    async count(request, context) {
      const body = definedOnly({ filter: filterToJson(request.filter, 'filter'), exact: request.exact });
      const answer = await door.call<{ count: number }>(context, 'POST', collectionPath(request.collectionName, '/points/count'), body);
      return { result: { count: BigInt(answer.result.count) }, time: answer.time };
    },
    async query(request, context) {
      const answer = await door.call<{ points: RestPoint[] }>(context, 'POST', collectionPath(request.collectionName, '/points/query'), queryPointsToJson(request));
      return { result: answer.result.points.map(scoredPoint), time: answer.time };
    },
    async queryBatch(request, context) {
      const body = { searches: request.queryPoints.map((query, index) => queryPointsToJson(query, `query_points[${index}]`)) };
      const answer = await door.call<Array<{ points: RestPoint[] }>>(context, 'POST', collectionPath(request.collectionName, '/points/query/batch'), body);
      return { result: answer.result.map((batch) => ({ result: batch.points.map(scoredPoint) })), time: answer.time };
    },
    // The 501 groups (docs/api.md §9): the REST route answers, after its permission check.
    searchGroups: notImplementedThroughRest(door, 'POST', '/points/search/groups'),
    queryGroups: notImplementedThroughRest(door, 'POST', '/points/query/groups'),
    recommend: notImplementedThroughRest(door, 'POST', '/points/recommend'),
    recommendBatch: notImplementedThroughRest(door, 'POST', '/points/recommend/batch'),
    recommendGroups: notImplementedThroughRest(door, 'POST', '/points/recommend/groups'),
    discover: notImplementedThroughRest(door, 'POST', '/points/discover'),
    discoverBatch: notImplementedThroughRest(door, 'POST', '/points/discover/batch'),
    async updateBatch(request, context) {
      const body = { operations: request.operations.map((operation, index) => batchOperationToJson(operation, `operations[${index}]`)) };
      const answer = await door.call<UpdateResult[]>(context, 'POST', collectionPath(request.collectionName, '/points/batch') + waitQuery(request.wait), body);
      return { result: answer.result.map((result) => operationResponse(result, answer.time).result!), time: answer.time };
    },
    async facet(request, context) {
      const body = definedOnly({ key: request.key, filter: filterToJson(request.filter, 'filter'), limit: request.limit === undefined ? undefined : jsonInteger(request.limit), exact: request.exact });
      const answer = await door.call<{ hits: Array<{ value: string | number | bigint | boolean; count: number }> }>(context, 'POST', collectionPath(request.collectionName, '/facet'), body);
      return { hits: answer.result.hits.map((hit) => ({ value: facetValue(hit.value), count: BigInt(hit.count) })), time: answer.time };
    },
    async searchMatrixPairs(request, context) {
      const answer = await door.call<{ pairs: Array<{ a: RestPoint['id']; b: RestPoint['id']; score: number }> }>(context, 'POST', collectionPath(request.collectionName, '/points/search/matrix/pairs'), matrixBody(request));
      return { result: { pairs: answer.result.pairs.map((pair) => ({ a: jsonToId(pair.a), b: jsonToId(pair.b), score: pair.score })) }, time: answer.time };
    },
    async searchMatrixOffsets(request, context) {
      const answer = await door.call<{ offsets_row: number[]; offsets_col: number[]; scores: number[]; ids: Array<RestPoint['id']> }>(context, 'POST', collectionPath(request.collectionName, '/points/search/matrix/offsets'), matrixBody(request));
      const result = answer.result;
      return { result: { offsetsRow: result.offsets_row.map(BigInt), offsetsCol: result.offsets_col.map(BigInt), scores: result.scores, ids: result.ids.map(jsonToId) }, time: answer.time };
    },
    async createVectorName(request, context) {
      const path = collectionPath(request.collectionName, `/vectors/${encodeURIComponent(request.vectorName)}`) + waitQuery(request.wait);
      const answer = await door.call<UpdateResult>(context, 'PUT', path, vectorNameConfigToJson(request));
      return operationResponse(answer.result, answer.time);
    },
    async deleteVectorName(request, context) {
      const path = collectionPath(request.collectionName, `/vectors/${encodeURIComponent(request.vectorName)}`) + waitQuery(request.wait);
      const answer = await door.call<UpdateResult>(context, 'DELETE', path);
      return operationResponse(answer.result, answer.time);
    },
  };
}
