// A real app listening on 127.0.0.1 (port 0) over a data directory, with the official Qdrant
// client pointed at it. Reopening the same directory is how restart tests work.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QdrantClient } from '@qdrant/js-client-rest';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { buildApp } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';

type Overrides = { [section: string]: Record<string, unknown> };

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

/** Starts the app over `directory` and waits until the engine is ready. */
export async function startServer(directory: string, overrides: Overrides = {}): Promise<TestServer> {
  const config = loadConfig({
    overrides: { ...overrides, storage: { fsync: false, ...overrides.storage, path: directory }, service: { ...overrides.service, host: '127.0.0.1', http_port: 0 } },
  });
  const app = buildApp(config, { logger: pino({ level: 'silent' }) });
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
