// UpdateBatch's operations -> the REST `POST C/points/batch` operations (docs/api.md §3): one
// atomic write, exactly as REST applies it.
import type { UpdateBatchPoints } from '@qdrant/js-client-grpc';
import { invalidArgument } from '../status.js';
import { definedOnly, filterToJson } from './filter.js';
import { idToJson } from './ids.js';
import { mapToJson } from './values.js';
import { vectorsToJson } from './vectors.js';
import { pointToJson, selectorToJson, updateModeToJson } from './writes.js';

type Operation = UpdateBatchPoints['operations'][number];

export function batchOperationToJson(operation: Operation, field: string): Record<string, unknown> {
  const one = operation.operation;
  switch (one.case) {
    case 'upsert':
      return {
        upsert: definedOnly({
          points: one.value.points.map((point, index) => pointToJson(point, `${field}.upsert.points[${index}]`)),
          update_filter: filterToJson(one.value.updateFilter, `${field}.upsert.update_filter`),
          update_mode: updateModeToJson(one.value.updateMode),
        }),
      };
    case 'deleteDeprecated':
      return { delete: selectorToJson(one.value, `${field}.delete`) };
    case 'deletePoints':
      return { delete: selectorToJson(one.value.points, `${field}.delete_points.points`) };
    case 'setPayload':
    case 'overwritePayload': {
      const name = one.case === 'setPayload' ? 'set_payload' : 'overwrite_payload';
      return {
        [name]: definedOnly({ payload: mapToJson(one.value.payload, `${field}.${name}.payload`), ...selectorToJson(one.value.pointsSelector, `${field}.${name}.points_selector`), key: one.value.key }),
      };
    }
    case 'deletePayload':
      return { delete_payload: { keys: one.value.keys, ...selectorToJson(one.value.pointsSelector, `${field}.delete_payload.points_selector`) } };
    case 'clearPayloadDeprecated':
      return { clear_payload: selectorToJson(one.value, `${field}.clear_payload`) };
    case 'clearPayload':
      return { clear_payload: selectorToJson(one.value.points, `${field}.clear_payload.points`) };
    case 'updateVectors':
      return {
        update_vectors: definedOnly({
          points: one.value.points.map((point, index) => ({
            id: idToJson(point.id, `${field}.update_vectors.points[${index}].id`),
            vector: vectorsToJson(point.vectors, `${field}.update_vectors.points[${index}].vectors`),
          })),
          update_filter: filterToJson(one.value.updateFilter, `${field}.update_vectors.update_filter`),
        }),
      };
    case 'deleteVectors':
      return { delete_vectors: { ...selectorToJson(one.value.pointsSelector, `${field}.delete_vectors.points_selector`), vector: one.value.vectors?.names ?? [] } };
    default:
      throw invalidArgument(field, 'an operation must set one of its forms');
  }
}
