// The approximate on-disk size of the whole classic-level database (docs/api.md §13.2's
// quiverdb_storage_bytes): LevelDB's own estimate over every key, which reads only its file
// metadata, not the data.
import type { Database } from './database.js';

// Every key QuiverDB writes starts with a one-byte tag (keys.ts), so this range covers them all.
const firstKey = Buffer.from([0x00]);
const pastLastKey = Buffer.alloc(32, 0xff);

export async function approximateDatabaseBytes(database: Database): Promise<number> {
  return database.approximateSize(firstKey, pastLastKey);
}
