// A real app listening on 127.0.0.1 (port 0) over a data directory, with the official Qdrant
// client pointed at it. Reopening the same directory is how restart tests work.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QdrantClient } from '@qdrant/js-client-rest';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll } from 'vitest';
import type { Config } from '../../src/config.js';
import { createTestApp, type Overrides } from './app.js';

export interface TestServer {
  app: FastifyInstance;
  config: Config;
  url: string;
  client: QdrantClient;
  /** Raw request against the server; the body is sent as JSON text when given as an object. */
  request(method: string, path: string, body?: unknown): Promise<{ status: number; body: any; text: string }>;
  /** Closes the server cleanly (checkpoints at shutdown); leaves the data directory. */
  close(): Promise<void>;
}

export async function makeDataDirectory(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'quiver-points-'));
}

export async function removeDataDirectory(directory: string): Promise<void> {
  await rm(directory, { recursive: true, force: true });
}

/**
 * Makes data directories for one test file and removes them all after its tests: for tests that
 * stop and restart servers over directories of their own. Call it at the top of the file.
 */
export function dataDirectoriesForFile(): () => Promise<string> {
  const made: string[] = [];
  afterAll(async () => {
    for (const directory of made) await removeDataDirectory(directory);
  });
  return async () => {
    const directory = await makeDataDirectory();
    made.push(directory);
    return directory;
  };
}

/** Starts the app over `directory` and waits until the engine is ready. */
export async function startServer(directory: string, overrides: Overrides = {}): Promise<TestServer> {
  const { app, config } = await createTestApp({
    directory,
    open: false,
    overrides: { ...overrides, service: { ...overrides.service, host: '127.0.0.1', http_port: 0 } },
  });
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  await app.engine.open();
  const url = new URL(address);
  const client = new QdrantClient({ host: url.hostname, port: Number(url.port), https: false, checkCompatibility: false });
  return {
    app,
    config,
    url: address,
    client,
    async request(method, path, body) {
      const response = await fetch(`${address}${path}`, {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      });
      const text = await response.text();
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      return { status: response.status, body: parsed, text };
    },
    async close() {
      await app.close();
    },
  };
}

export interface FileServer extends TestServer {
  /** The data directory the server runs over. */
  readonly directory: string;
}

/**
 * One server for a whole test file: before its tests, a new data directory, the server over it
 * (`overrides` as for startServer), then `setUp` to fill it; after them, the server closed and
 * the directory removed. Call it at the top of the file. The handle forwards to that server,
 * so it works inside tests and hooks only; `request` may be passed around unbound.
 */
export function serverForFile(options: { overrides?: Overrides; setUp?: (server: TestServer) => Promise<void> } = {}): FileServer {
  let directory: string | undefined;
  let server: TestServer | undefined;
  beforeAll(async () => {
    directory = await makeDataDirectory();
    server = await startServer(directory, options.overrides);
    await options.setUp?.(server);
  });
  afterAll(async () => {
    await server?.close();
    if (directory) await removeDataDirectory(directory);
  });
  const started = (): TestServer => {
    if (!server) throw new Error('serverForFile: the server starts in beforeAll; use it inside a test or a hook');
    return server;
  };
  return {
    get app() {
      return started().app;
    },
    get config() {
      return started().config;
    },
    get url() {
      return started().url;
    },
    get client() {
      return started().client;
    },
    get directory() {
      started();
      return directory!;
    },
    request: (method, path, body) => started().request(method, path, body),
    close: () => started().close(),
  };
}
