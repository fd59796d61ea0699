// The permission check on every route (docs/api.md §7): runs after the readiness guard, reads the
// route's declared permission, and answers 401 for a missing/bad credential, 403 for a valid one
// without the permission. With auth off every route is open.
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import { errors } from '../errors.js';
import type { Permission } from '../http/route-config.js';
import { credentialFromHeaders } from './credential.js';
import { isInternalRequest } from './internal-request.js';
import { grants } from './permissions.js';
import type { AuthService, Principal } from './service.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who made the request; null with auth off or on a public route. */
    principal: Principal | null;
  }
}

/** A route as the permission hook saw it registered. */
export interface RegisteredRoute {
  method: HTTPMethods;
  url: string;
  permission: Permission;
}

/**
 * Registers the hook, and records every route registered after this call with its permission,
 * so tests can check each one (the list grows as route modules are added).
 */
export function registerPermissionHook(app: FastifyInstance, auth: AuthService): RegisteredRoute[] {
  const routes: RegisteredRoute[] = [];
  app.addHook('onRoute', (route) => {
    const permission = route.config?.quiver?.permission;
    if (permission === undefined) return; // app.ts refuses such a route already
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) routes.push({ method: method as HTTPMethods, url: route.url, permission });
  });

  app.decorateRequest('principal', null);
  // A callback hook, not an async one: without auth (or on a public route) it answers at once,
  // where an async hook costs each request a promise and a microtask.
  app.addHook('onRequest', (request, reply, done) => {
    if (!auth.enabled || request.is404) return done();
    const needed = request.routeOptions.config?.quiver?.permission;
    if (needed === 'public') return done();
    // A cluster node's in-process dispatch to its own shards (internal-request.ts).
    if (isInternalRequest(request)) return done();
    authorize(auth, request, reply, needed).then(() => done(), done);
  });
  return routes;
}

/** Finds the request's principal from its credential; refuses it without one that grants `needed`. */
async function authorize(auth: AuthService, request: FastifyRequest, reply: FastifyReply, needed: Permission | undefined): Promise<void> {
  const credential = credentialFromHeaders(request.headers);
  const principal = credential.kind === 'present' ? await auth.authenticate(credential.value) : undefined;
  if (!principal) {
    reply.header('www-authenticate', 'Bearer');
    throw errors.unauthorized();
  }
  // A route without a declared permission never reaches here (app.ts refuses it); be strict anyway.
  if (needed === undefined || !grants(principal.permissions, needed)) throw errors.missingPermission(needed ?? 'admin');
  request.principal = principal;
}
