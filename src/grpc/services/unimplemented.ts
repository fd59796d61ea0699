// Calls of a Qdrant group QuiverDB does not implement (docs/api.md §9): each is asked of its REST
// route, so the answer (UNIMPLEMENTED, REST's 501 wording) comes after the same readiness and
// permission checks.
import { Code, ConnectError } from '@connectrpc/connect';
import type { CallContext } from '../transport.js';
import { collectionPath, type RestDoor, type RestMethod } from '../rest-door.js';

export function notImplementedThroughRest(door: RestDoor, method: RestMethod, tail: string, scope: 'collection' | 'server' = 'collection') {
  return async (request: object, context: CallContext): Promise<never> => {
    const name = (request as { collectionName?: unknown }).collectionName;
    const path = scope === 'collection' ? collectionPath(typeof name === 'string' && name !== '' ? name : '_', tail) : tail;
    await door.call(context, method, path, method === 'GET' || method === 'DELETE' ? undefined : {});
    // A 501 route always throws above; reaching here would mean the route started answering.
    throw new ConnectError(`${tail} answered without an error`, Code.Internal);
  };
}
