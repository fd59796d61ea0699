import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { openDatabase, type Database } from '../storage/database.js';
import { AuthService } from './service.js';

const opened: Database[] = [];
const directories: string[] = [];
afterEach(async () => {
  for (const database of opened.splice(0)) await database.close();
  for (const directory of directories.splice(0)) await rm(directory, { recursive: true, force: true });
});

async function freshDatabase(): Promise<{ database: Database; directory: string }> {
  const directory = await mkdtemp(join(tmpdir(), 'quiver-auth-service-'));
  directories.push(directory);
  const database = await openDatabase({ directory });
  opened.push(database);
  return { database, directory };
}

function service(directory: string, database: Database | undefined, auth: Record<string, unknown> = {}): AuthService {
  const config = loadConfig({ overrides: { storage: { path: directory, fsync: false }, auth: { enabled: true, ...auth } } });
  return new AuthService({ settings: config.auth, dataDirectory: directory, fsync: false, logger: pino({ level: 'silent' }), database: () => database });
}

describe('admin exists while earlier start-up steps still load', () => {
  it('reads the database directly before the auth step has run', async () => {
    const { database, directory } = await freshDatabase();
    expect(await service(directory, database).adminExists()).toBe(false);

    // Create an admin through a service that did run its step, then ask one that has not.
    const loadedService = service(directory, database);
    await loadedService.startupStep().open(database);
    await loadedService.createAdmin('boss', 'long enough password', { setupCode: loadedService.setupCode, address: '127.0.0.1' });
    expect(await service(directory, database).adminExists()).toBe(true);
  });

  it('counts an admin from configuration, which the auth step creates at this start', async () => {
    const { database, directory } = await freshDatabase();
    expect(await service(directory, database, { admin_username: 'root', admin_password: 'long enough password' }).adminExists()).toBe(true);
  });
});
