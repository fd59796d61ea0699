import { describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from './password.js';

describe('password hashing', () => {
  it('scrypt with a per-user salt: the same password hashes differently, and verifies', async () => {
    const first = await hashPassword('correct horse');
    const second = await hashPassword('correct horse');
    expect(first.algorithm).toBe('scrypt');
    expect(first.salt).not.toBe(second.salt);
    expect(first.hash).not.toBe(second.hash);
    expect(await verifyPassword('correct horse', first)).toBe(true);
    expect(await verifyPassword('correct horse', second)).toBe(true);
  });

  it('a different password, or a damaged hash, does not verify', async () => {
    const stored = await hashPassword('correct horse');
    expect(await verifyPassword('correct horsf', stored)).toBe(false);
    expect(await verifyPassword('correct horse', { ...stored, hash: stored.hash.slice(0, 20) })).toBe(false);
  });

  it('the stored record holds no trace of the password', async () => {
    const stored = await hashPassword('correct horse');
    expect(JSON.stringify(stored)).not.toContain('correct horse');
  });
});
