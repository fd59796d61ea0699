// QueryPoints / PrefetchQuery / Query / SearchPoints -> the REST bodies of docs/api.md §5 and §3,
// so the query planner, limits and refusals are the REST door's own.
import { Direction, Fusion, RecommendStrategy, type OrderBy, type PrefetchQuery, type Query, type QueryPoints, type SearchParams, type SearchPoints } from '@qdrant/js-client-grpc';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import type { LookupLocation } from '@qdrant/js-client-grpc';
import { invalidArgument } from '../status.js';
import { definedOnly, filterToJson } from './filter.js';
import { formulaToJson, relevanceFeedbackToJson } from './formula.js';
import { withPayloadToJson, withVectorsToJson } from './selectors.js';
import { jsonInteger } from '../../json/json-shaped.js';
import { vectorInputToJson } from './vectors.js';

type Json = Record<string, unknown>;

const integer = (value: bigint | undefined) => (value === undefined ? undefined : jsonInteger(value));

export function paramsToJson(params: SearchParams | undefined): Json | undefined {
  if (!params) return undefined;
  return definedOnly({
    hnsw_ef: integer(params.hnswEf),
    exact: params.exact,
    indexed_only: params.indexedOnly,
    quantization: params.quantization ? definedOnly({ ignore: params.quantization.ignore, rescore: params.quantization.rescore, oversampling: params.quantization.oversampling }) : undefined,
    acorn: params.acorn ? definedOnly({ enable: params.acorn.enable, max_selectivity: params.acorn.maxSelectivity }) : undefined,
  });
}

export function orderByToJson(orderBy: OrderBy): Json {
  const start = orderBy.startFrom?.value;
  let startFrom: unknown;
  if (start?.case === 'float') startFrom = start.value;
  else if (start?.case === 'integer') startFrom = jsonInteger(start.value);
  else if (start?.case === 'datetime') startFrom = start.value;
  else if (start?.case === 'timestamp') startFrom = timestampDate(start.value).toISOString();
  return definedOnly({
    key: orderBy.key,
    direction: orderBy.direction === undefined ? undefined : orderBy.direction === Direction.Desc ? 'desc' : 'asc',
    start_from: startFrom,
  });
}

const strategyNames: Record<number, string> = {
  [RecommendStrategy.AverageVector]: 'average_vector',
  [RecommendStrategy.BestScore]: 'best_score',
  [RecommendStrategy.SumScores]: 'sum_scores',
};

export function queryToJson(query: Query | undefined, field: string): unknown {
  const one = query?.variant;
  switch (one?.case) {
    case undefined:
      return undefined;
    case 'nearest':
      return { nearest: vectorInputToJson(one.value, `${field}.nearest`) };
    case 'nearestWithMmr':
      return {
        nearest: vectorInputToJson(one.value.nearest, `${field}.nearest_with_mmr.nearest`),
        mmr: definedOnly({ diversity: one.value.mmr?.diversity, candidates_limit: one.value.mmr?.candidatesLimit }),
      };
    case 'recommend':
      return {
        recommend: definedOnly({
          positive: one.value.positive.map((input, index) => vectorInputToJson(input, `${field}.recommend.positive[${index}]`)),
          negative: one.value.negative.map((input, index) => vectorInputToJson(input, `${field}.recommend.negative[${index}]`)),
          strategy: one.value.strategy === undefined ? undefined : strategyNames[one.value.strategy],
        }),
      };
    case 'discover':
      return {
        discover: {
          target: vectorInputToJson(one.value.target, `${field}.discover.target`),
          context: contextToJson(one.value.context?.pairs ?? [], `${field}.discover.context`),
        },
      };
    case 'context':
      return { context: contextToJson(one.value.pairs, `${field}.context`) };
    case 'orderBy':
      return { order_by: orderByToJson(one.value) };
    case 'fusion':
      return { fusion: one.value === Fusion.DBSF ? 'dbsf' : 'rrf' };
    case 'rrf':
      return { rrf: definedOnly({ k: one.value.k, weights: one.value.weights.length > 0 ? one.value.weights : undefined }) };
    case 'sample':
      return { sample: 'random' };
    case 'formula':
      return formulaToJson(one.value, `${field}.formula`);
    case 'relevanceFeedback':
      return relevanceFeedbackToJson(one.value, `${field}.relevance_feedback`);
    default:
      throw invalidArgument(field, 'an unknown query form');
  }
}

function contextToJson(pairs: Array<{ positive?: Parameters<typeof vectorInputToJson>[0]; negative?: Parameters<typeof vectorInputToJson>[0] }>, field: string): Json[] {
  return pairs.map((pair, index) => ({
    positive: vectorInputToJson(pair.positive, `${field}[${index}].positive`),
    negative: vectorInputToJson(pair.negative, `${field}[${index}].negative`),
  }));
}

function lookupToJson(lookup: LookupLocation | undefined): Json | undefined {
  return lookup ? definedOnly({ collection: lookup.collectionName, vector: lookup.vectorName }) : undefined;
}

function stageToJson(stage: PrefetchQuery | QueryPoints, field: string): Json {
  return definedOnly({
    prefetch: stage.prefetch.length > 0 ? stage.prefetch.map((child, index) => stageToJson(child, `${field}.prefetch[${index}]`)) : undefined,
    query: queryToJson(stage.query, `${field}.query`),
    using: stage.using,
    filter: filterToJson(stage.filter, `${field}.filter`),
    params: paramsToJson(stage.params),
    score_threshold: stage.scoreThreshold,
    limit: integer(stage.limit),
    lookup_from: lookupToJson(stage.lookupFrom),
  });
}

export function queryPointsToJson(request: QueryPoints, field = 'query'): Json {
  return definedOnly({
    ...stageToJson(request, field),
    offset: integer(request.offset),
    with_payload: withPayloadToJson(request.withPayload),
    with_vector: withVectorsToJson(request.withVectors),
  });
}

export function searchPointsToJson(request: SearchPoints): Json {
  let vector: unknown = request.sparseIndices ? { indices: request.sparseIndices.data, values: request.vector } : request.vector;
  if (request.vectorName !== undefined && request.vectorName !== '') vector = { name: request.vectorName, vector };
  return definedOnly({
    vector,
    limit: jsonInteger(request.limit),
    offset: integer(request.offset),
    filter: filterToJson(request.filter, 'filter'),
    params: paramsToJson(request.params),
    with_payload: withPayloadToJson(request.withPayload),
    with_vector: withVectorsToJson(request.withVectors),
    score_threshold: request.scoreThreshold,
  });
}


