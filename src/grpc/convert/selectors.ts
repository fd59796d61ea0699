// with_payload / with_vectors selectors -> REST's with_payload / with_vector values.
import type { WithPayloadSelector, WithVectorsSelector } from '@qdrant/js-client-grpc';

export function withPayloadToJson(selector: WithPayloadSelector | undefined): unknown {
  const one = selector?.selectorOptions;
  switch (one?.case) {
    case 'enable':
      return one.value;
    case 'include':
      return { include: one.value.fields };
    case 'exclude':
      return { exclude: one.value.fields };
    default:
      return undefined;
  }
}

export function withVectorsToJson(selector: WithVectorsSelector | undefined): unknown {
  const one = selector?.selectorOptions;
  if (one?.case === 'enable') return one.value;
  if (one?.case === 'include') return one.value.names;
  return undefined;
}
