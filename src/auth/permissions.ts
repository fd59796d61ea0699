// The three permissions of docs/api.md §7 and how they nest: write implies read, admin implies all.
import { errors } from '../errors.js';
import type { Permission } from '../http/route-config.js';

export type GrantedPermission = Exclude<Permission, 'public'>;

/** In the order they nest; also the order a stored permission string is written in. */
export const grantedPermissions: readonly GrantedPermission[] = ['read', 'write', 'admin'];

const implied: Record<GrantedPermission, readonly GrantedPermission[]> = {
  read: ['read'],
  write: ['read', 'write'],
  admin: ['read', 'write', 'admin'],
};

/** Whether a holder of `held` may call a route that declares `needed`. */
export function grants(held: ReadonlySet<GrantedPermission>, needed: Permission): boolean {
  if (needed === 'public') return true;
  for (const permission of held) {
    if (implied[permission].includes(needed)) return true;
  }
  return false;
}

/**
 * Parses the comma-separated list the spec stores on a token ("read,write"). Unknown names are
 * refused rather than dropped: a typo must not silently create a weaker (or stronger) token.
 */
export function parsePermissionList(text: string, field = 'permission'): GrantedPermission[] {
  const names = text.split(',').map((name) => name.trim());
  if (names.length === 0 || names.every((name) => name === '')) throw errors.invalidField(field, 'at least one permission is required (read, write or admin)');
  const chosen = new Set<GrantedPermission>();
  for (const name of names) {
    if (!(grantedPermissions as readonly string[]).includes(name)) {
      throw errors.invalidField(field, `unknown permission "${name}" (known: ${grantedPermissions.join(', ')})`);
    }
    chosen.add(name as GrantedPermission);
  }
  return grantedPermissions.filter((permission) => chosen.has(permission));
}

export function formatPermissionList(permissions: readonly GrantedPermission[]): string {
  return permissions.join(',');
}
