// Temporary files a killed process left behind: the kernel's checkpoint temporaries
// (`.<name>.tmp-<pid>`, crates/quiver-core/src/checkpoint.rs) in each collection directory and
// atomic-file.ts's (`.quiver-tmp-*`) in the data directory and in each collection directory (the
// multivector sub-slot maps). Removed at start, once the store's lock is held, so no
// other server can be writing them (docs/durability.md).
import { lstat, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { temporaryFilePrefix } from './atomic-file.js';

const checkpointTemporary = /^\..+\.tmp-\d+$/;

export interface LeftoverReport {
  files: number;
  bytes: number;
}

async function namesIn(directory: string): Promise<string[]> {
  try {
    return await readdir(directory);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return [];
    throw error;
  }
}

async function removeMatching(directory: string, matches: (name: string) => boolean, report: LeftoverReport): Promise<void> {
  for (const name of await namesIn(directory)) {
    if (!matches(name)) continue;
    const path = join(directory, name);
    const status = await lstat(path);
    if (!status.isFile()) continue;
    await rm(path, { force: true });
    report.files += 1;
    report.bytes += status.size;
  }
}

/** Removes every leftover temporary file under `dataDirectory`; returns how many and how big. */
export async function removeLeftoverTemporaryFiles(dataDirectory: string): Promise<LeftoverReport> {
  const report: LeftoverReport = { files: 0, bytes: 0 };
  await removeMatching(dataDirectory, (name) => name.startsWith(temporaryFilePrefix), report);
  const collections = join(dataDirectory, 'collections');
  for (const name of await namesIn(collections)) {
    await removeMatching(join(collections, name), (file) => checkpointTemporary.test(file) || file.startsWith(temporaryFilePrefix), report);
  }
  return report;
}
