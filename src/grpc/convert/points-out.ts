// REST's scored and retrieved points -> ScoredPoint / RetrievedPoint messages.
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { OrderValueSchema, RetrievedPointSchema, ScoredPointSchema } from '@qdrant/js-client-grpc';
import { jsonToId } from './ids.js';
import { jsonToMap } from './values.js';
import { vectorsOutput } from './vectors.js';

export interface RestPoint {
  id: number | bigint | string;
  version?: number;
  score?: number;
  payload?: Record<string, unknown> | null;
  vector?: unknown;
  order_value?: number | bigint | null;
}

function orderValue(value: number | bigint | null | undefined): MessageInitShape<typeof OrderValueSchema> | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'bigint' || Number.isInteger(value)) return { variant: { case: 'int', value: BigInt(value) } };
  return { variant: { case: 'float', value } };
}

export function scoredPoint(point: RestPoint): MessageInitShape<typeof ScoredPointSchema> {
  return {
    id: jsonToId(point.id),
    payload: jsonToMap(point.payload),
    score: point.score ?? 0,
    version: BigInt(point.version ?? 0),
    vectors: vectorsOutput(point.vector),
    orderValue: orderValue(point.order_value),
  };
}

export function retrievedPoint(point: RestPoint): MessageInitShape<typeof RetrievedPointSchema> {
  return { id: jsonToId(point.id), payload: jsonToMap(point.payload), vectors: vectorsOutput(point.vector), orderValue: orderValue(point.order_value) };
}
