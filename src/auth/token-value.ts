// Raw access-token values: `qv_` + 32 random bytes, base64url. Only their SHA-256 is stored;
// a raw value is shown once (create, rotate) and cannot be recovered from the database.
import { createHash, randomBytes } from 'node:crypto';

export const accessTokenPrefix = 'qv_';
const randomLengthBytes = 32;

export function newAccessTokenValue(): string {
  return accessTokenPrefix + randomBytes(randomLengthBytes).toString('base64url');
}

/** Lookup key of a raw value. A hash-keyed map lookup leaks nothing useful through timing: an attacker cannot steer the digest. */
export function accessTokenDigest(raw: string): string {
  return createHash('sha256').update(raw, 'utf8').digest('hex');
}

export function looksLikeAccessToken(credential: string): boolean {
  return credential.startsWith(accessTokenPrefix);
}
