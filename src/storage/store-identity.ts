// Is the store the one the data directory's other files belong to? (docs/durability.md)
// LevelDB silently creates an empty database when its CURRENT file is missing; a server that
// then started would serve an empty store beside the old collections' checkpoint files, and a
// new collection reusing an old number would load a foreign checkpoint. So: before opening, a
// store without CURRENT next to store files or collection directories is refused; after
// opening, the store carries a random database id (written once), which every checkpoint is
// bound to together with its collection's incarnation id (collection-registry.ts).
import { randomUUID } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { ClassicLevel } from 'classic-level';
import { collectionRecordRange, databaseIdKey, registryCounterKey } from './keys.js';

// Not database.ts's alias: that module imports this one.
type Database = ClassicLevel<Buffer, Buffer>;

/** Start refused: the store and the directory disagree. The message names the recovery steps. */
export class StoreMismatchError extends Error {
  override readonly name = 'StoreMismatchError';
}

/** LevelDB's own files that say nothing about data (a lock, its info logs). */
const housekeepingFiles = new Set(['LOCK', 'LOG', 'LOG.old']);

async function entries(directory: string): Promise<string[]> {
  try {
    return await readdir(directory);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

const recoverySteps =
  'Restore the data directory from a backup (stop the server first); or, if the data is to be given up on purpose, move the data directory away and start with an empty one. ' +
  'Do not delete single files: see docs/durability.md.';

/**
 * Before the store is opened: refuses a `db` folder without CURRENT that holds store files, and
 * a store about to be created while `collections/` holds collection directories.
 */
export async function checkStoreBeforeOpen(dataDirectory: string): Promise<{ storeExists: boolean }> {
  const storeDirectory = join(dataDirectory, 'db');
  const storeFiles = await entries(storeDirectory);
  if (storeFiles.includes('CURRENT')) return { storeExists: true };
  const dataFiles = storeFiles.filter((file) => !housekeepingFiles.has(file));
  if (dataFiles.length > 0) {
    throw new StoreMismatchError(
      `the store in ${storeDirectory} has no CURRENT file but holds ${dataFiles.length} store files (${dataFiles.slice(0, 5).join(', ')}): ` +
        `opening it would start an empty database and hide every collection. ${recoverySteps}`,
    );
  }
  const collections = await entries(join(dataDirectory, 'collections'));
  if (collections.length > 0) {
    throw new StoreMismatchError(
      `${join(dataDirectory, 'collections')} holds ${collections.length} collection directories but the store in ${storeDirectory} is missing: ` +
        `starting would serve an empty database beside them. ${recoverySteps}`,
    );
  }
  return { storeExists: false };
}

/**
 * After opening: the database id, written once. A store from before database ids keeps its
 * data and gets one now (its checkpoints are unbound and are rebuilt once); an empty store
 * while `collections/` holds directories is refused as above.
 */
export async function ensureDatabaseId(database: Database, dataDirectory: string): Promise<string> {
  const stored = await database.get(databaseIdKey);
  if (stored !== undefined) return stored.toString('utf8');
  const hasCounter = (await database.get(registryCounterKey)) !== undefined;
  let hasRecords = false;
  for await (const _key of database.keys({ ...collectionRecordRange, limit: 1 })) hasRecords = true;
  if (!hasCounter && !hasRecords) {
    const collections = await entries(join(dataDirectory, 'collections'));
    if (collections.length > 0) {
      throw new StoreMismatchError(
        `the store in ${join(dataDirectory, 'db')} is empty but ${join(dataDirectory, 'collections')} holds ${collections.length} collection directories: ` +
          `the store was replaced or lost. ${recoverySteps}`,
      );
    }
  }
  const created = randomUUID();
  // Written alone and synced: every later checkpoint names it.
  await database.put(databaseIdKey, Buffer.from(created, 'utf8'), { sync: true });
  return created;
}

/** The id `ensureDatabaseId` wrote (the registry binds checkpoints to it). */
export async function databaseIdOf(database: Database): Promise<string> {
  const stored = await database.get(databaseIdKey);
  if (stored === undefined) throw new Error('the store has no database id (openDatabase writes it)');
  return stored.toString('utf8');
}
