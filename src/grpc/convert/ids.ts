// PointId {num: uint64 | uuid} <-> the JSON id the REST door uses. A num beyond 2^53 stays a
// bigint all the way (docs/api.md §1), so ids such as 2^64 - 1 round-trip exactly.
import type { PointId } from '@qdrant/js-client-grpc';
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { PointIdSchema } from '@qdrant/js-client-grpc';
import { invalidArgument } from '../status.js';
import { jsonInteger } from '../../json/json-shaped.js';

export function idToJson(id: PointId | undefined, field: string): number | bigint | string {
  const options = id?.pointIdOptions;
  if (options?.case === 'num') return jsonInteger(options.value);
  if (options?.case === 'uuid') return options.value;
  throw invalidArgument(field, 'a point id must be set (num or uuid)');
}

export function idsToJson(ids: PointId[], field: string): Array<number | bigint | string> {
  return ids.map((id, index) => idToJson(id, `${field}[${index}]`));
}

export function jsonToId(json: unknown): MessageInitShape<typeof PointIdSchema> {
  if (typeof json === 'string') return { pointIdOptions: { case: 'uuid', value: json } };
  if (typeof json === 'number' || typeof json === 'bigint') return { pointIdOptions: { case: 'num', value: BigInt(json) } };
  return {};
}
