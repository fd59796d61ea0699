// The data directory holds the admin's scrypt hash, the access tokens' digests and every
// collection: it is made private to the server's user (docs/api.md §7.4, docs/architecture.md).
import { mkdir, stat } from 'node:fs/promises';

/** The mode a new data directory gets: only the server's user may enter it. */
export const privateDirectoryMode = 0o700;

/**
 * Set once at start (main.ts): every file and directory the process creates afterwards —
 * LevelDB's files, checkpoints, the JWT secret — is 0600 / 0700 whatever the caller asks for.
 */
export const privateUmask = 0o077;

export interface PrivateDirectoryState {
  /** The directory existed before this start. */
  existed: boolean;
  /** Its permission bits after the call. */
  mode: number;
  /** Group or other users may read, write or enter it (a warning at start, never changed). */
  openToOthers: boolean;
}

/**
 * Creates `directory` with mode 0700 when missing. An existing directory keeps its mode (an
 * operator may share it on purpose); the caller warns when it is more open than 0700.
 */
export async function preparePrivateDirectory(directory: string): Promise<PrivateDirectoryState> {
  const existed = await stat(directory).then(
    () => true,
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return false;
      throw error;
    },
  );
  // `mode` applies to every level `recursive` creates (less the umask, which only narrows it).
  if (!existed) await mkdir(directory, { recursive: true, mode: privateDirectoryMode });
  const mode = (await stat(directory)).mode & 0o777;
  return { existed, mode, openToOthers: (mode & ~privateDirectoryMode) !== 0 };
}

/** `0755`-style text for log lines. */
export function octalMode(mode: number): string {
  return `0${mode.toString(8).padStart(3, '0')}`;
}
