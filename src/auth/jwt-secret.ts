// The JWT signing secret: from configuration, or generated once and kept in the data directory
// (mode 0600) so that JWTs survive a restart. It is never logged. Written atomically
// (storage/atomic-file.ts); a file found empty or torn anyway is replaced only when no JWT
// signed by it can still be valid (docs/durability.md).
import { randomBytes } from 'node:crypto';
import { chmod, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { createFileAtomically } from '../storage/atomic-file.js';

export const jwtSecretFileName = 'jwt_secret';
const generatedLengthBytes = 48;
const minimumLengthCharacters = 32;

export interface JwtSecretContext {
  /**
   * An admin user exists in the store. JWTs are only issued to the admin at login and are not
   * recorded, so without one no JWT can exist; with one, some may still be valid.
   */
  adminExists: boolean;
  /** Told when a damaged secret file is replaced. */
  warn?: (message: string) => void;
}

async function generate(path: string): Promise<Uint8Array | undefined> {
  const generated = randomBytes(generatedLengthBytes).toString('base64url');
  // Never overwrites an existing secret (that would log every admin out).
  if (!(await createFileAtomically(path, `${generated}\n`, 0o600))) return undefined;
  return new TextEncoder().encode(generated);
}

export async function loadJwtSecret(configured: string | null, dataDirectory: string, context: JwtSecretContext = { adminExists: true }): Promise<Uint8Array> {
  if (configured !== null) return new TextEncoder().encode(configured);
  const path = join(dataDirectory, jwtSecretFileName);
  const created = await generate(path);
  if (created) return created;
  // A copy or restore may have widened the mode; the secret signs admin JWTs, so close it again.
  await chmod(path, 0o600);
  const stored = (await readFile(path, 'utf8')).trim();
  if (stored.length >= minimumLengthCharacters) return new TextEncoder().encode(stored);
  const problem = `${path} holds a damaged JWT secret (${stored.length} characters, at least ${minimumLengthCharacters} expected)`;
  if (context.adminExists) {
    throw new Error(
      `${problem}, and an admin user exists, so JWTs signed with the lost secret may still be valid. ` +
        `Restore the file from a backup, or delete it to generate a new secret (every admin JWT becomes invalid: the admin logs in again), then start again.`,
    );
  }
  context.warn?.(`${problem}; no admin user exists, so no JWT was signed with it: generating a new secret`);
  await rm(path, { force: true });
  const replaced = await generate(path);
  if (!replaced) throw new Error(`${path} was created by another process while being replaced`);
  return replaced;
}
