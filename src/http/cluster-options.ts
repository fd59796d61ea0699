// Options only a cluster coordinator may send to a shard (docs/architecture.md §13, docs/api.md
// §16): they change answers, so a request from a client carrying one is refused. A coordinator's
// requests are in-process ones marked by src/auth/internal-request.ts, which no client can forge.
import type { FastifyRequest } from 'fastify';
import { isInternalRequest } from '../auth/internal-request.js';
import { errors } from '../errors.js';

type Body = Record<string, unknown> | undefined;

/** A 400 when a client's search or query body (or one of its batch's) carries `cluster_idf_statistics`. */
export function refuseClusterOptionsFromClients(request: FastifyRequest, body: Body): void {
  if (isInternalRequest(request)) return;
  if (body?.cluster_idf_statistics !== undefined) throw errors.invalidBodyField('cluster_idf_statistics', 'set only by a cluster coordinator');
  const searches = Array.isArray(body?.searches) ? (body.searches as Body[]) : [];
  searches.forEach((search, position) => {
    if (search?.cluster_idf_statistics !== undefined) throw errors.invalidBodyField(`searches[${position}].cluster_idf_statistics`, 'set only by a cluster coordinator');
  });
}
