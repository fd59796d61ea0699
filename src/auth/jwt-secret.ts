// The JWT signing secret: from configuration, or generated once and kept in the data directory
// (mode 0600) so that JWTs survive a restart. It is never logged.
import { randomBytes } from 'node:crypto';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export const jwtSecretFileName = 'jwt_secret';
const generatedLengthBytes = 48;
const minimumLengthCharacters = 32;

export async function loadJwtSecret(configured: string | null, dataDirectory: string): Promise<Uint8Array> {
  if (configured !== null) return new TextEncoder().encode(configured);
  const path = join(dataDirectory, jwtSecretFileName);
  const generated = randomBytes(generatedLengthBytes).toString('base64url');
  try {
    // `wx`: never overwrite an existing secret (that would log every admin out).
    await writeFile(path, `${generated}\n`, { mode: 0o600, flag: 'wx' });
    // The umask may have widened the mode the file was created with.
    await chmod(path, 0o600);
    return new TextEncoder().encode(generated);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  // A copy or restore may have widened the mode; the secret signs admin JWTs, so close it again.
  await chmod(path, 0o600);
  const stored = (await readFile(path, 'utf8')).trim();
  if (stored.length < minimumLengthCharacters) {
    throw new Error(`${path} holds a JWT secret shorter than ${minimumLengthCharacters} characters; delete it to generate a new one`);
  }
  return new TextEncoder().encode(stored);
}
