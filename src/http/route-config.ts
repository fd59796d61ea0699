// Per-route settings that hooks read: who may call the route, whether it answers while the
// engine is still loading, and which error envelope it speaks.

/** `public` needs no credential even with auth on; the others are docs/api.md §7's permissions. */
export type Permission = 'public' | 'read' | 'write' | 'admin';

export interface RouteSettings {
  permission: Permission;
  /** Answers even while the engine is initializing (health check, admin-exists). */
  beforeReady?: boolean;
  /** A Kubernetes probe (docs/api.md §13.1): answers for itself while the server closes too. */
  probe?: boolean;
  /** The auth-management group answers errors as `{status: "error", message}` (docs/api.md §1.1). */
  envelope?: 'standard' | 'auth';
}

declare module 'fastify' {
  interface FastifyContextConfig {
    quiver?: RouteSettings;
  }
}

export function routeSettings(settings: RouteSettings): { quiver: RouteSettings } {
  return { quiver: settings };
}
