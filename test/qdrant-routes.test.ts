// Qdrant's routes answer honestly: the table in docs/api.md §11 is read here, so every
// route it marks 501 must answer 501, every route it marks implemented must be served, and every
// 501 the server registers must have its row. The table cannot go stale without a failing test.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notImplementedRoutes } from '../src/http/not-implemented.js';
import { createTestApp } from './support/app.js';
import { makeDataDirectory, removeDataDirectory, startServer, type TestServer } from './support/server.js';

type Status = 'implemented' | '501 by spec' | '501 not yet' | 'implemented by the facet+matrix work';

interface TableRow {
  method: string;
  /** Qdrant's form: `/collections/{collection_name}/points/{id}`. */
  path: string;
  status: Status;
  feature: string;
  /** True for the first table (Qdrant v1.19's OpenAPI), false for the routes outside it. */
  inQdrant119: boolean;
}

const statuses: readonly Status[] = ['implemented', '501 by spec', '501 not yet', 'implemented by the facet+matrix work'];

function readTable(): TableRow[] {
  const text = readFileSync(new URL('../docs/api.md', import.meta.url), 'utf8');
  const section = text.slice(text.indexOf('## 11. Qdrant v1.19 route conformance'));
  const rows: TableRow[] = [];
  let table = 0;
  let inTable = false;
  for (const line of section.split('\n')) {
    if (line.startsWith('| Method and path')) {
      table += 1;
      inTable = true;
      continue;
    }
    if (!line.startsWith('|')) {
      inTable = false;
      continue;
    }
    const match = /^\| `([A-Z]+) ([^`]+)`[^|]* \| ([^|]+?) \| ([^|]+?) \|$/.exec(line);
    if (!inTable || !match) continue;
    const status = match[3] as Status;
    if (!statuses.includes(status)) throw new Error(`unknown status in docs/api.md §11: ${line}`);
    rows.push({
      method: match[1]!,
      path: match[2]!.replace(/^C(?=\/|$)/, '/collections/{collection_name}'),
      status,
      feature: match[4]!,
      inQdrant119: table === 1,
    });
  }
  return rows;
}

const table = readTable();
const probeCollection = 'routes_probe';
const sampleParameters: Record<string, string> = {
  collection_name: probeCollection,
  id: '1',
  field_name: 'field',
  snapshot_name: 'snapshot-1',
  vector_name: 'extra',
  shard_id: '0',
  peer_id: '1',
};

function concreteUrl(path: string): string {
  return path.replace(/\{([a-z_]+)\}/g, (_match, name: string) => sampleParameters[name] ?? 'x');
}

/** The registry's `:name` form to the table's `{name}` form. */
function tableForm(url: string): string {
  return url.replace(/:([a-z_]+)/g, '{$1}');
}

let server: TestServer;
let directory: string;

beforeAll(async () => {
  directory = await makeDataDirectory();
  server = await startServer(directory);
  await server.client.createCollection(probeCollection, { vectors: { size: 2, distance: 'Dot' } });
  await server.client.upsert(probeCollection, { wait: true, points: [{ id: 1, vector: [1, 0] }] });
});

afterAll(async () => {
  await server.close();
  await removeDataDirectory(directory);
});

async function call(row: TableRow) {
  const hasBody = row.method !== 'GET' && row.method !== 'DELETE';
  return server.request(row.method, concreteUrl(row.path), hasBody ? {} : undefined);
}

describe('the route table', () => {
  it('table — lists every path and method of Qdrant v1.19 once, and the routes outside it', () => {
    const keys = table.map((row) => `${row.method} ${row.path}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(table.filter((row) => row.inQdrant119)).toHaveLength(69);
    expect(table.filter((row) => !row.inQdrant119).length).toBeGreaterThan(10);
  });

  it('table — every 501 route the server registers has its row, with the same reason and feature', () => {
    for (const route of notImplementedRoutes) {
      const row = table.find((candidate) => candidate.method === route.method && candidate.path === tableForm(route.url));
      expect(row, `${route.method} ${route.url}`).toBeDefined();
      expect(row!.status, `${route.method} ${route.url}`).toBe(route.reason === 'spec' ? '501 by spec' : '501 not yet');
      expect(row!.feature).toBe(route.feature);
    }
  });
});

describe('each route answers as the table says', () => {
  it.each(table.filter((row) => row.status.startsWith('501')).map((row) => [`${row.method} ${row.path}`, row] as const))(
    '%s — 501 naming the feature, in the error envelope',
    async (_name, row) => {
      const response = await call(row);
      expect(response.status).toBe(501);
      expect(response.body).toEqual({ time: expect.any(Number), status: { error: `${row.feature} is not implemented in QuiverDB` } });
    },
  );

  it.each(table.filter((row) => row.status === 'implemented').map((row) => [`${row.method} ${row.path}`, row] as const))(
    '%s — served: neither 501 nor route not found',
    async (_name, row) => {
      const response = await call(row);
      expect(response.status).not.toBe(501);
      expect(String(response.body?.status?.error ?? '')).not.toMatch(/^route not found/);
    },
  );

  it.each(table.filter((row) => row.status === 'implemented by the facet+matrix work').map((row) => [`${row.method} ${row.path}`, row] as const))(
    '%s — never registered as a 501 (another module serves it)',
    async (_name, row) => {
      expect((await call(row)).status).not.toBe(501);
    },
  );
});

describe('unknown routes and the checks before a 501', () => {
  it('unknown route — 404 "route not found: METHOD /path", never read as a missing collection', async () => {
    const response = await server.request('POST', '/collections/x/points/nothing?wait=true', {});
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ time: expect.any(Number), status: { error: 'route not found: POST /collections/x/points/nothing' } });
    expect((await server.request('GET', '/no/such/thing')).body.status.error).toBe('route not found: GET /no/such/thing');
  });

  it('501 routes — still 412 Engine not initialized while loading; the probes answer like GET /', async () => {
    const loading = await createTestApp({ open: false });
    try {
      const telemetry = await loading.app.inject({ method: 'GET', url: '/telemetry' });
      expect(telemetry.statusCode).toBe(412);
      expect(telemetry.json().status.error).toBe('Engine not initialized');
      const batch = await loading.app.inject({ method: 'POST', url: '/collections/c/points/batch', payload: {} });
      expect(batch.statusCode).toBe(412);
      expect((await loading.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    } finally {
      await loading.dispose();
    }
  });

  it('501 routes — the official client sees the 501 and its message', async () => {
    const refusals = [
      () => server.client.listSnapshots(probeCollection),
      () => server.client.getCollectionAliases(probeCollection),
      () => server.client.createSnapshot(probeCollection),
    ];
    for (const refusal of refusals) {
      await expect(refusal()).rejects.toMatchObject({ status: 501, data: { status: { error: expect.stringMatching(/ is not implemented in QuiverDB$/) } } });
    }
  });
});
