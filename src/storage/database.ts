// The one place that opens classic-level. Everything durable lives in this database; keys are
// bytes so that numeric parts sort big-endian, values carry a format-version byte (codec.ts).
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';

export type Database = ClassicLevel<Buffer, Buffer>;

export interface DatabaseOptions {
  /** Data directory; the LSM store lives in its `db` folder. */
  directory: string;
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  await mkdir(options.directory, { recursive: true });
  const database = new ClassicLevel<Buffer, Buffer>(join(options.directory, 'db'), {
    keyEncoding: 'buffer',
    valueEncoding: 'buffer',
  });
  await database.open();
  return database;
}
