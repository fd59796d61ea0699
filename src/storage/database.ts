// The one place that opens classic-level. Everything durable lives in this database; keys are
// bytes so that numeric parts sort big-endian, values carry a format-version byte (codec.ts).
import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';
import { preparePrivateDirectory } from './private-directory.js';
import type { Logger } from 'pino';
import { findTornLogTail } from './leveldb-log.js';
import { checkStoreTables } from './leveldb-table-check.js';
import { trackStorageHealth } from './storage-health.js';
import { lostOperations } from './torn-log-report.js';
import { checkStoreBeforeOpen, ensureDatabaseId } from './store-identity.js';

export type Database = ClassicLevel<Buffer, Buffer>;

export interface DatabaseOptions {
  /** Data directory; the LSM store lives in its `db` folder. */
  directory: string;
  /** storage.free_space_reserve_bytes (storage-health.ts); 0 or absent disables the check. */
  freeSpaceReserveBytes?: number;
  logger?: Logger;
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  // Created 0700 when missing: it holds the auth records (src/storage/private-directory.ts).
  await preparePrivateDirectory(options.directory);
  // Refuses a store LevelDB would silently re-create empty beside existing data (store-identity.ts).
  await checkStoreBeforeOpen(options.directory);
  // Read before LevelDB opens: its recovery drops a torn last record without a word (leveldb-log.ts).
  const tornTail = await findTornLogTail(join(options.directory, 'db'));
  // And every table block against its checksum, which classic-level's reads never verify.
  const tables = await checkStoreTables(join(options.directory, 'db'));
  if (tables.files > 0) options.logger?.info({ files: tables.files, bytes: tables.bytes }, "the store's table files pass their checksums");
  if (tables.leftOut.length > 0) {
    options.logger?.info(
      { files: tables.leftOut },
      "table files the store's manifest does not hold (left by a compaction the last stop interrupted) were not checked: LevelDB deletes them as it opens",
    );
  }
  const database = new ClassicLevel<Buffer, Buffer>(join(options.directory, 'db'), {
    keyEncoding: 'buffer',
    valueEncoding: 'buffer',
  });
  await database.open();
  try {
    await ensureDatabaseId(database, options.directory);
  } catch (error) {
    await database.close();
    throw error;
  }
  const health = trackStorageHealth(database, { directory: options.directory, freeSpaceReserveBytes: options.freeSpaceReserveBytes ?? 0, logger: options.logger });
  if (tornTail) {
    const lost = await lostOperations(database, tornTail);
    health.recordTornLog(lost, tornTail.lostBytes);
    options.logger?.error(
      { file: tornTail.file, problem: tornTail.problem, lost_bytes: tornTail.lostBytes, lost_operations: lost },
      `the store's log ended in a torn record (${tornTail.problem}): the write it held is lost — ` +
        `${lost.map((entry) => `collection number ${entry.collection} operation ${entry.operationIds.join(', ')}`).join('; ') || 'no collection write identified'}; ` +
        'it was acknowledged unless the server stopped while writing it (docs/durability.md)',
    );
  }
  return database;
}
