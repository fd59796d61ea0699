import { describe, expect, it } from 'vitest';
import { QuiverError } from '../errors.js';
import { grants, parsePermissionList, type GrantedPermission } from './permissions.js';

describe('permissions', () => {
  it.each([
    [['read'], 'read', true],
    [['read'], 'write', false],
    [['read'], 'admin', false],
    [['write'], 'read', true],
    [['write'], 'write', true],
    [['write'], 'admin', false],
    [['admin'], 'read', true],
    [['admin'], 'write', true],
    [['admin'], 'admin', true],
    [['read', 'write'], 'admin', false],
    [[], 'read', false],
    [[], 'public', true],
  ] as const)('holding %j grants %s: %s (write implies read, admin implies all)', (held, needed, expected) => {
    expect(grants(new Set<GrantedPermission>(held), needed)).toBe(expected);
  });

  it('a permission list is normalised: trimmed, deduplicated, in nesting order', () => {
    expect(parsePermissionList(' write , read,write')).toEqual(['read', 'write']);
    expect(parsePermissionList('admin')).toEqual(['admin']);
  });

  it.each(['', ' , ', 'read,fly', 'READ', 'read;write'])('the list %j is refused with 400 naming the field', (text) => {
    let thrown: unknown;
    try {
      parsePermissionList(text);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(QuiverError);
    expect((thrown as QuiverError).status).toBe(400);
    expect((thrown as QuiverError).message).toMatch(/^permission: /);
  });
});
