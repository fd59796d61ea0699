// qdrant.Collections: each call is the REST call of docs/api.md §4 through the REST door.
import type { ServiceHandlers } from '../transport.js';
import { collectionInfoMessage, createCollectionToJson, updateCollectionToJson } from '../convert/collections.js';
import type { Collections } from '../descriptors.js';
import { collectionPath, type RestDoor } from '../rest-door.js';
import { notImplementedThroughRest } from './unimplemented.js';

export function collectionsService(door: RestDoor): ServiceHandlers<typeof Collections> {
  return {
    async get(request, context) {
      const answer = await door.call<Record<string, unknown>>(context, 'GET', collectionPath(request.collectionName));
      return { result: collectionInfoMessage(answer.result), time: answer.time };
    },
    async list(_request, context) {
      const answer = await door.call<{ collections: Array<{ name: string }> }>(context, 'GET', '/collections');
      return { collections: answer.result.collections.map((collection) => ({ name: collection.name })), time: answer.time };
    },
    async create(request, context) {
      const answer = await door.call<boolean>(context, 'PUT', collectionPath(request.collectionName), createCollectionToJson(request));
      return { result: answer.result, time: answer.time };
    },
    async update(request, context) {
      const answer = await door.call<boolean>(context, 'PATCH', collectionPath(request.collectionName), updateCollectionToJson(request));
      return { result: answer.result, time: answer.time };
    },
    async delete(request, context) {
      const answer = await door.call<boolean>(context, 'DELETE', collectionPath(request.collectionName));
      return { result: answer.result, time: answer.time };
    },
    async collectionExists(request, context) {
      const answer = await door.call<{ exists: boolean }>(context, 'GET', collectionPath(request.collectionName, '/exists'));
      return { result: { exists: answer.result.exists }, time: answer.time };
    },
    // Aliases, cluster and shard keys answer as their REST routes do (501, docs/api.md §9).
    updateAliases: notImplementedThroughRest(door, 'POST', '/collections/aliases', 'server'),
    listCollectionAliases: notImplementedThroughRest(door, 'GET', '/aliases'),
    listAliases: notImplementedThroughRest(door, 'GET', '/aliases', 'server'),
    collectionClusterInfo: notImplementedThroughRest(door, 'GET', '/cluster'),
    updateCollectionClusterSetup: notImplementedThroughRest(door, 'POST', '/cluster'),
    createShardKey: notImplementedThroughRest(door, 'PUT', '/shards'),
    deleteShardKey: notImplementedThroughRest(door, 'POST', '/shards/delete'),
    listShardKeys: notImplementedThroughRest(door, 'GET', '/shards'),
  };
}
