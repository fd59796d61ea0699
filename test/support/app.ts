// Builds a real app over a fresh temporary data directory for tests; silent logs.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { buildApp, type BuildOptions } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';

export interface TestApp {
  app: FastifyInstance;
  config: Config;
  directory: string;
  /** Closes the app and deletes its data directory. */
  dispose(): Promise<void>;
}

export type Overrides = { [section: string]: Record<string, unknown> };

/**
 * A new app over a new data directory (or over `directory`, which is then left in place);
 * `open: false` leaves the engine initializing; `build` replaces the silent logger or adds a clock.
 */
export async function createTestApp(options: { overrides?: Overrides; open?: boolean; directory?: string; build?: BuildOptions } = {}): Promise<TestApp> {
  const directory = options.directory ?? (await mkdtemp(join(tmpdir(), 'quiver-test-')));
  const config = loadConfig({
    overrides: { ...options.overrides, storage: { fsync: false, ...options.overrides?.storage, path: directory } },
  });
  const app = buildApp(config, { logger: pino({ level: 'silent' }), ...options.build });
  if (options.open !== false) await app.engine.open();
  return {
    app,
    config,
    directory,
    async dispose() {
      await app.close();
      if (!options.directory) await rm(directory, { recursive: true, force: true });
    },
  };
}
