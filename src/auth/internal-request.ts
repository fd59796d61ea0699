// Cluster mode (docs/cluster.md §5): a node dispatches the reads and writes it serves for the
// cluster to its own local shard collections through fastify's inject (never a socket). Those
// in-process requests carry this header with a random per-process token, so the permission hook
// lets them through (the client's request was checked at the door) and the cluster door serves
// them locally. A client cannot forge it: the token never leaves the process.
import { randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';

export const internalRequestHeader = 'x-quiver-internal';
export const internalRequestToken = randomBytes(24).toString('hex');

export function isInternalRequest(request: FastifyRequest): boolean {
  return request.headers[internalRequestHeader] === internalRequestToken;
}
