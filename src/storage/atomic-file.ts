// Every file the server writes outside the store (the JWT secret, the multivector sub-slot maps) goes through here:
// temp file, fsync, then link (create: never replaces an existing file) or rename (replace),
// directory fsync. A crash or a failing
// disk leaves the old file or the new one, never an empty or half-written one
// (docs/durability.md). Checkpoints do the same in the kernel (crates/quiver-core/src/checkpoint.rs).
import { randomBytes } from 'node:crypto';
import { link, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** The prefix of this module's temporary files; start-up removes leftovers (leftover-files.ts). */
export const temporaryFilePrefix = '.quiver-tmp-';

async function syncDirectory(directory: string): Promise<void> {
  const handle = await open(directory, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** What a file is written from: whole, or a chunk at a time (a large file never held whole). */
export type FileContents = string | Uint8Array | Iterable<Uint8Array>;

async function writeTemporary(path: string, data: FileContents, mode: number): Promise<string> {
  const temporary = join(dirname(path), `${temporaryFilePrefix}${basename(path)}-${randomBytes(6).toString('hex')}`);
  const handle = await open(temporary, 'wx', mode);
  try {
    if (typeof data === 'string' || data instanceof Uint8Array) await handle.writeFile(data);
    else {
      for (const chunk of data) {
        // A write to a regular file may still be short; finish each chunk before the next.
        for (let written = 0; written < chunk.byteLength; ) written += (await handle.write(chunk, written)).bytesWritten;
      }
    }
    await handle.chmod(mode);
    await handle.sync();
  } catch (error) {
    await handle.close().catch(() => undefined);
    await rm(temporary, { force: true });
    throw error;
  }
  await handle.close();
  return temporary;
}

/**
 * Creates `path` atomically and durably with `data` unless it exists: false, and nothing
 * changed, when it does (a hard link, unlike a rename, never replaces its target).
 */
export async function createFileAtomically(path: string, data: string | Uint8Array, mode = 0o600): Promise<boolean> {
  const temporary = await writeTemporary(path, data, mode);
  try {
    await link(temporary, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await rm(temporary, { force: true });
  }
  await syncDirectory(dirname(path));
  return true;
}

/**
 * Writes `path` atomically and durably with `data`, replacing the file when it exists: temp
 * file, fsync, rename, directory fsync (the pattern of the kernel's checkpoints). A crash leaves
 * the old file or the new one, and at worst a temporary that start-up removes (leftover-files.ts).
 */
export async function replaceFileAtomically(path: string, data: FileContents, mode = 0o600): Promise<void> {
  const temporary = await writeTemporary(path, data, mode);
  try {
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  await syncDirectory(dirname(path));
}

/** Removes `path` if present and syncs its directory, so the removal survives a power loss. */
export async function removeFileDurably(path: string): Promise<void> {
  await rm(path, { force: true });
  await syncDirectory(dirname(path));
}
