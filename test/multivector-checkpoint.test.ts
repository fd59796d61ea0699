// The multivector checkpoint (docs/architecture.md §17, docs/api.md §20): a restart loads a
// multivector index from its checkpoint pair (the rows' kernel checkpoint `.qvi` and the sub-slot
// map `.qvm`) plus the log after it, instead of re-inserting every row. Which way each index was
// obtained is read from the "collection loaded" log line (its `indexes.<name>.source`), never from
// timing. Answers after a restart are checked against brute-force MaxSim written in the test
// (multivector-reference.ts): the exact scan must equal it, the graph path must score every hit
// exactly and find ≥ 95% of it. A damaged, truncated, unknown-version or mismatched map file is
// refused with one warning and the index rebuilt, still answering correctly. A multivector whose
// rows are `on_disk` recovers the same way (issue 19: restart tests cover on-disk collections).
import { cp, readFile, rm, writeFile } from 'node:fs/promises';
import { Writable } from 'node:stream';
import { QdrantClient } from '@qdrant/js-client-rest';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { checkpointPath } from '../src/engine/checkpointer.js';
import { multivectorMapPath } from '../src/engine/multi-vector-checkpoint.js';
import { crc32c } from '../src/storage/crc32c.js';
import { createTestApp, type Overrides } from './support/app.js';
import { startChildServer, waitUntilReady, type ChildServer } from './support/child-server.js';
import { call } from './support/http-call.js';
import { maxSim, referenceTop, seededMatrices } from './support/multivector-reference.js';
import { graphInUseConfig, randomVectors, referenceScore, type DistanceName } from './support/search-data.js';
import { dataDirectoriesForFile } from './support/server.js';
import { waitGreen } from './support/wait-green.js';

const newDirectory = dataDirectoriesForFile();
const dimension = 8;
const name = 'colbert-docs';

interface LoggedServer {
  app: FastifyInstance;
  url: string;
  client: QdrantClient;
  /** Every log line so far (pino JSON objects). */
  lines: Record<string, any>[];
  request(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

/** The real app over `directory`, listening, with its log lines kept for the test to read. */
async function startLogged(directory: string, overrides: Overrides = {}): Promise<LoggedServer> {
  const lines: Record<string, any>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line) as Record<string, any>);
      done();
    },
  });
  const { app } = await createTestApp({ directory, open: false, build: { logger: pino({ level: 'info' }, sink) }, overrides: { ...overrides, service: { host: '127.0.0.1', http_port: 0 } } });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  await app.engine.open();
  const address = new URL(url);
  return {
    app,
    url,
    lines,
    client: new QdrantClient({ host: address.hostname, port: Number(address.port), https: false, checkCompatibility: false }),
    request: (method, path, body) => call(url, method, path, body),
    close: () => app.close(),
  };
}

/** How each index of `collection` was obtained at the last start ("collection loaded" line). */
function recovery(lines: Record<string, any>[], collection = name): Record<string, { source: string; replayedSlots: number; checkpointOperationId: number; reason?: string }> {
  const loaded = lines.filter((line) => line.msg === 'collection loaded' && line.collection === collection);
  expect(loaded).toHaveLength(1);
  return loaded[0]!.indexes;
}

function multivectorWarnings(lines: Record<string, any>[]): Record<string, any>[] {
  return lines.filter((line) => line.msg === 'no usable multivector checkpoint: rebuilding the index from the point records');
}

async function create(server: LoggedServer, distance: DistanceName, extra: Record<string, unknown> = {}, colbert: Record<string, unknown> = {}): Promise<void> {
  const response = await server.request('PUT', `/collections/${name}`, {
    vectors: { dense: { size: dimension, distance: 'Cosine' }, colbert: { size: dimension, distance, multivector_config: { comparator: 'max_sim' }, ...colbert } },
    ...graphInUseConfig,
    ...extra,
  });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
}

async function upsert(server: LoggedServer, documents: Map<number, number[][]>, ids: number[]): Promise<void> {
  const points = ids.map((id) => ({ id, vector: { dense: documents.get(id)![0]!, colbert: documents.get(id)! } }));
  const response = await server.request('PUT', `/collections/${name}/points?wait=true`, { points });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
}

async function remove(server: LoggedServer, documents: Map<number, number[][]>, ids: number[]): Promise<void> {
  expect((await server.request('POST', `/collections/${name}/points/delete?wait=true`, { points: ids })).status).toBe(200);
  for (const id of ids) documents.delete(id);
}

/** Replaces the matrices of `ids` with new seeded ones of other row counts. */
async function replace(server: LoggedServer, documents: Map<number, number[][]>, ids: number[], seed: number): Promise<void> {
  const fresh = seededMatrices(seed, Math.max(...ids) + 1, dimension);
  for (const id of ids) documents.set(id, fresh.get(id)!);
  await upsert(server, documents, ids);
}

const queries = [randomVectors(901, 3, dimension), randomVectors(902, 1, dimension), randomVectors(903, 5, dimension)];

/** The exact scan of every query: it must be the reference exactly (ids in order, scores). */
async function exactAnswers(server: LoggedServer, distance: DistanceName, documents: Map<number, number[][]>): Promise<unknown[]> {
  const answers: unknown[] = [];
  for (const query of queries) {
    const found = await server.request('POST', `/collections/${name}/points/query`, { query, using: 'colbert', limit: 10, params: { exact: true } });
    expect(found.status, JSON.stringify(found.body)).toBe(200);
    const expected = referenceTop(distance, query, documents, 10);
    expect(found.body.result.points.map((hit: { id: number }) => hit.id)).toEqual(expected.map((hit) => hit.id));
    found.body.result.points.forEach((hit: { score: number }, position: number) => expect(hit.score).toBeCloseTo(expected[position]!.score, 3));
    answers.push(found.body.result.points);
  }
  return answers;
}

/**
 * The graph path through the official client: every hit scored with its exact MaxSim, best
 * first, and ≥ 95% of the reference top 10 found over the queries (HNSW is approximate).
 */
async function checkGraph(server: LoggedServer, distance: DistanceName, documents: Map<number, number[][]>): Promise<void> {
  let found = 0;
  let expectedTotal = 0;
  const larger = distance === 'Cosine' || distance === 'Dot';
  for (const query of queries) {
    const answer = await server.client.query(name, { query, using: 'colbert', limit: 10, params: { hnsw_ef: 200 } });
    const expected = referenceTop(distance, query, documents, 10);
    expect(answer.points).toHaveLength(expected.length);
    answer.points.forEach((hit, position) => {
      expect(hit.score).toBeCloseTo(maxSim(distance, query, documents.get(hit.id as number)!), 3);
      if (position > 0) expect(larger ? hit.score <= answer.points[position - 1]!.score + 1e-6 : hit.score >= answer.points[position - 1]!.score - 1e-6).toBe(true);
    });
    const ids = new Set(answer.points.map((hit) => hit.id));
    found += expected.filter((hit) => ids.has(hit.id)).length;
    expectedTotal += expected.length;
  }
  expect(found / expectedTotal).toBeGreaterThanOrEqual(0.95);
}

/** The dense name of the same collection, exact: the reference top 5 by Cosine of the first rows. */
async function checkDense(server: LoggedServer, documents: Map<number, number[][]>): Promise<void> {
  const query = randomVectors(904, 1, dimension)[0]!;
  const found = await server.request('POST', `/collections/${name}/points/query`, { query, using: 'dense', limit: 5, params: { exact: true } });
  const expected = [...documents]
    .map(([id, matrix]) => ({ id, score: referenceScore('Cosine', query, matrix[0]!) }))
    .sort((left, right) => right.score - left.score || left.id - right.id)
    .slice(0, 5);
  expect(found.body.result.points.map((hit: { id: number }) => hit.id)).toEqual(expected.map((hit) => hit.id));
}

describe('multivector checkpoint — restart', () => {
  it('restart — a clean shutdown saves the pair, and the next start loads it (source checkpoint, no row re-inserted) for the dense and the multivector name, answering as before', async () => {
    const directory = await newDirectory();
    const documents = seededMatrices(71, 150, dimension);
    let server = await startLogged(directory);
    let exactBefore: unknown[];
    let collectionDirectory: string;
    try {
      await create(server, 'Dot');
      await upsert(server, documents, [...documents.keys()]);
      // Deletes and replacements before the explicit checkpoint, and more after it (saved at shutdown).
      await remove(server, documents, [0, 1, 2]);
      await replace(server, documents, [10, 11, 12, 13], 72);
      expect(await server.app.collections.get(name).checkpoint('test')).toBe(true);
      await remove(server, documents, [20, 21]);
      await replace(server, documents, [30, 31, 10], 73);
      await waitGreen(server.client, name);
      exactBefore = await exactAnswers(server, 'Dot', documents);
      await checkGraph(server, 'Dot', documents);
      collectionDirectory = server.app.collections.get(name).directory;
    } finally {
      await server.close();
    }
    // Both files of the pair exist beside each other.
    await readFile(checkpointPath(collectionDirectory, 'colbert'));
    await readFile(multivectorMapPath(checkpointPath(collectionDirectory, 'colbert')));

    server = await startLogged(directory);
    try {
      const indexes = recovery(server.lines);
      expect(indexes.colbert).toMatchObject({ source: 'checkpoint', replayedSlots: 0 });
      expect(indexes.dense).toMatchObject({ source: 'checkpoint', replayedSlots: 0 });
      expect(multivectorWarnings(server.lines)).toEqual([]);
      expect(server.lines.some((line) => line.task === 'multivector rebuild')).toBe(false);
      expect(await exactAnswers(server, 'Dot', documents)).toEqual(exactBefore);
      await waitGreen(server.client, name);
      await checkGraph(server, 'Dot', documents);
      await checkDense(server, documents);
      // Writes after the load: freed rows are reused, the answers follow the reference.
      await remove(server, documents, [40]);
      await replace(server, documents, [41, 42, 200], 74);
      await exactAnswers(server, 'Dot', documents);
      expect((await server.client.getCollection(name)).points_count).toBe(documents.size);
    } finally {
      await server.close();
    }
  }, 60_000);

  it('replay — writes acknowledged after the last checkpoint are applied from the log over the loaded pair', async () => {
    const directory = await newDirectory();
    const copy = await newDirectory();
    const documents = seededMatrices(81, 120, dimension);
    const server = await startLogged(directory, { storage: { checkpoint_operations: 1_000_000 } });
    let checkpointed: number;
    try {
      await create(server, 'Euclid');
      await upsert(server, documents, [...documents.keys()]);
      const collection = server.app.collections.get(name);
      expect(await collection.checkpoint('test')).toBe(true);
      checkpointed = collection.checkpointedOperationId;
      await remove(server, documents, [5, 6, 7]);
      await replace(server, documents, [8, 9, 130], 82);
      const vectorDelete = await server.request('POST', `/collections/${name}/points/vectors/delete?wait=true`, { points: [50], vector: ['colbert'] });
      expect(vectorDelete.status).toBe(200);
      documents.delete(50);
      // What a crash leaves behind: the directory as it is, no shutdown checkpoint.
      await cp(directory, copy, { recursive: true });
    } finally {
      await server.close();
    }
    const restarted = await startLogged(copy);
    try {
      const indexes = recovery(restarted.lines);
      expect(indexes.colbert).toMatchObject({ source: 'checkpoint', checkpointOperationId: checkpointed });
      // Points 5..9, 130 and 50 (130 may take a freed slot): the slots the log touched after the checkpoint.
      expect(indexes.colbert!.replayedSlots).toBeGreaterThanOrEqual(6);
      expect(indexes.colbert!.replayedSlots).toBeLessThanOrEqual(7);
      await exactAnswers(restarted, 'Euclid', documents);
      await waitGreen(restarted.client, name);
      await checkGraph(restarted, 'Euclid', documents);
      const record = await restarted.request('POST', `/collections/${name}/points`, { ids: [50, 130], with_vector: ['colbert'] });
      const vectors = new Map(record.body.result.map((point: { id: number; vector: Record<string, unknown> }) => [point.id, point.vector]));
      expect(vectors.get(50)).toEqual({});
      expect((vectors.get(130) as { colbert: number[][] }).colbert).toHaveLength(documents.get(130)!.length);
    } finally {
      await restarted.close();
    }
  }, 60_000);

  it('int8 — a quantized multivector recovers from its checkpoint and answers as before', async () => {
    const directory = await newDirectory();
    const documents = seededMatrices(91, 120, dimension);
    let server = await startLogged(directory);
    try {
      await create(server, 'Cosine', { quantization_config: { scalar: { type: 'int8', always_ram: true } } });
      await upsert(server, documents, [...documents.keys()]);
      await remove(server, documents, [3, 4]);
      await waitGreen(server.client, name);
      await exactAnswers(server, 'Cosine', documents);
      await checkGraph(server, 'Cosine', documents);
    } finally {
      await server.close();
    }
    server = await startLogged(directory);
    try {
      expect(recovery(server.lines).colbert).toMatchObject({ source: 'checkpoint' });
      await exactAnswers(server, 'Cosine', documents);
      await waitGreen(server.client, name);
      await checkGraph(server, 'Cosine', documents);
    } finally {
      await server.close();
    }
  }, 60_000);
});

describe('multivector checkpoint — on_disk rows', () => {
  it('on_disk — a multivector whose rows live on disk (int8 codes in RAM) recovers a crash copy from its checkpoint plus the log, answering and returning its matrices as before', async () => {
    const directory = await newDirectory();
    const copy = await newDirectory();
    const documents = seededMatrices(95, 120, dimension);
    const server = await startLogged(directory, { storage: { checkpoint_operations: 1_000_000 } });
    try {
      await create(server, 'Cosine', { quantization_config: { scalar: { type: 'int8' } } }, { on_disk: true });
      const info = await server.request('GET', `/collections/${name}`);
      expect(info.body.result.config.params.vectors.colbert.on_disk).toBe(true);
      await upsert(server, documents, [...documents.keys()]);
      await waitGreen(server.client, name);
      expect(await server.app.collections.get(name).checkpoint('test')).toBe(true);
      await remove(server, documents, [10, 11]);
      await replace(server, documents, [12, 140], 96);
      // What a crash leaves behind: the directory as it is, no shutdown checkpoint.
      await cp(directory, copy, { recursive: true });
    } finally {
      await server.close();
    }
    const restarted = await startLogged(copy);
    try {
      expect(recovery(restarted.lines).colbert).toMatchObject({ source: 'checkpoint' });
      await exactAnswers(restarted, 'Cosine', documents);
      await waitGreen(restarted.client, name);
      await checkGraph(restarted, 'Cosine', documents);
      const record = await restarted.request('POST', `/collections/${name}/points`, { ids: [12, 140, 10], with_vector: ['colbert'] });
      const vectors = new Map<number, number[][]>(record.body.result.map((point: { id: number; vector: { colbert: number[][] } }) => [point.id, point.vector.colbert]));
      expect(vectors.has(10)).toBe(false);
      for (const id of [12, 140]) {
        const stored = vectors.get(id)!;
        expect(stored).toHaveLength(documents.get(id)!.length);
        // Cosine rows come back normalised: compare directions.
        stored.forEach((row, index) => expect(referenceScore('Cosine', row, documents.get(id)![index]!)).toBeCloseTo(1, 4));
      }
    } finally {
      await restarted.close();
    }
  }, 60_000);
});

describe('multivector checkpoint — refused map files', () => {
  it('fallback — a corrupt, truncated, unknown-version, mismatched or missing map file is refused with one warning naming the file and reason, and the rebuilt index answers correctly', async () => {
    const directory = await newDirectory();
    const documents = seededMatrices(61, 100, dimension);
    let server = await startLogged(directory);
    let mapFile: string;
    let older: Buffer;
    try {
      await create(server, 'Dot');
      await upsert(server, documents, [...documents.keys()]);
      const collection = server.app.collections.get(name);
      expect(await collection.checkpoint('test')).toBe(true);
      mapFile = multivectorMapPath(checkpointPath(collection.directory, 'colbert'));
      older = await readFile(mapFile);
      await remove(server, documents, [1, 2]);
    } finally {
      await server.close();
    }
    const good = await readFile(mapFile);
    const resealed = (bytes: Buffer) => {
      const copy = Buffer.from(bytes);
      copy.writeUInt32LE(crc32c(copy.subarray(0, copy.length - 4)), copy.length - 4);
      return copy;
    };
    const flipped = Buffer.from(good);
    flipped[flipped.length >> 1] = flipped[flipped.length >> 1]! ^ 0x40;
    const wrongVersion = Buffer.from(good);
    wrongVersion[8] = 2;
    const variants: { label: string; bytes: Buffer | undefined; reason: RegExp }[] = [
      { label: 'corrupt', bytes: flipped, reason: /checksum mismatch/ },
      { label: 'truncated', bytes: good.subarray(0, Math.floor(good.length / 2)), reason: /checksum mismatch|truncated/ },
      { label: 'unknown version', bytes: resealed(wrongVersion), reason: /unknown multivector map format 2/ },
      { label: 'mismatched pair', bytes: older, reason: /not one pair/ },
      { label: 'missing', bytes: undefined, reason: /no map file/ },
    ];
    for (const variant of variants) {
      if (variant.bytes) await writeFile(mapFile, variant.bytes);
      else await rm(mapFile);
      server = await startLogged(directory);
      try {
        const indexes = recovery(server.lines);
        expect(indexes.colbert!.source, variant.label).toBe('rebuilt');
        expect(indexes.colbert!.reason, variant.label).toMatch(variant.reason);
        expect(indexes.dense!.source, variant.label).toBe('checkpoint');
        const warnings = multivectorWarnings(server.lines);
        expect(warnings, variant.label).toHaveLength(1);
        expect(warnings[0]).toMatchObject({ collection: name, vector: 'colbert', file: mapFile });
        expect(warnings[0]!.reason).toMatch(variant.reason);
        await exactAnswers(server, 'Dot', documents);
      } finally {
        // The clean shutdown writes a good pair again; the next variant damages it anew.
        await server.close();
      }
    }
    // And with the pair intact again, the checkpoint is used.
    server = await startLogged(directory);
    try {
      expect(recovery(server.lines).colbert).toMatchObject({ source: 'checkpoint' });
      await exactAnswers(server, 'Dot', documents);
    } finally {
      await server.close();
    }
  }, 90_000);
});

let child: ChildServer | undefined;
afterAll(async () => {
  await child?.kill('SIGKILL');
});

function childRecovery(server: ChildServer, collection: string) {
  const loaded = server.logLines.filter((line) => line.includes('"collection loaded"')).map((line) => JSON.parse(line) as Record<string, any>);
  return loaded.find((line) => line.collection === collection)?.indexes as Record<string, { source: string; replayedSlots: number }> | undefined;
}

/** Polls the child's log until its collection has been loaded (the engine loads after listening). */
async function loadedIndexes(server: ChildServer, collection: string) {
  const started = Date.now();
  for (;;) {
    const indexes = childRecovery(server, collection);
    if (indexes) return indexes;
    if (Date.now() - started > 60_000) throw new Error('the collection was not loaded within 60 s');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('multivector checkpoint — real server', () => {
  it('SIGTERM then SIGKILL — the start after SIGTERM loads the pair; acknowledged writes after it survive a SIGKILL and are replayed over it', async () => {
    const directory = await newDirectory();
    const documents = seededMatrices(51, 80, dimension);
    // No checkpoint by operation count: the only pair is the one the SIGTERM shutdown saves.
    const environment = { QUIVER__STORAGE__CHECKPOINT_OPERATIONS: '1000000', QUIVER__STORAGE__FSYNC: 'true' };
    const query = randomVectors(52, 2, dimension);
    const points = (ids: number[]) => ids.map((id) => ({ id, vector: documents.get(id)! }));
    child = await startChildServer(directory, environment);
    await waitUntilReady(child.url);
    expect((await call(child.url, 'PUT', '/collections/killed', { vectors: { size: dimension, distance: 'Dot', multivector_config: { comparator: 'max_sim' } } })).status).toBe(200);
    expect((await call(child.url, 'PUT', '/collections/killed/points?wait=true', { points: points([...documents.keys()]) })).status).toBe(200);
    await child.kill('SIGTERM');

    child = await startChildServer(directory, environment);
    await waitUntilReady(child.url);
    expect(await loadedIndexes(child, 'killed')).toMatchObject({ '': { source: 'checkpoint', replayedSlots: 0 } });
    // Acknowledged after the checkpoint: a delete, replacements, new points (wait=false too).
    expect((await call(child.url, 'POST', '/collections/killed/points/delete?wait=true', { points: [7, 8] })).status).toBe(200);
    documents.delete(7);
    documents.delete(8);
    const fresh = seededMatrices(53, 100, dimension);
    for (const id of [9, 10, 90, 91]) documents.set(id, fresh.get(id)!);
    expect((await call(child.url, 'PUT', '/collections/killed/points?wait=true', { points: points([9, 10, 90]) })).status).toBe(200);
    expect((await call(child.url, 'PUT', '/collections/killed/points?wait=false', { points: points([91]) })).status).toBe(200);
    await child.kill('SIGKILL');

    child = await startChildServer(directory, environment);
    await waitUntilReady(child.url);
    const indexes = await loadedIndexes(child, 'killed');
    // Points 7..10, 90 and 91 (new points may take freed slots): replayed over the pair, not rebuilt.
    expect(indexes['']).toMatchObject({ source: 'checkpoint' });
    expect(indexes['']!.replayedSlots).toBeGreaterThanOrEqual(4);
    const found = await call(child.url, 'POST', '/collections/killed/points/query', { query, limit: 100, params: { exact: true } });
    expect(found.status).toBe(200);
    const expected = referenceTop('Dot', query, documents, 100);
    expect(found.body.result.points.map((hit: { id: number }) => hit.id)).toEqual(expected.map((hit) => hit.id));
    found.body.result.points.forEach((hit: { score: number }, position: number) => expect(hit.score).toBeCloseTo(expected[position]!.score, 3));
    await child.kill('SIGTERM');
  }, 120_000);
});

// Start-up with and without the checkpoint, ~3,000 points × 8 rows × 64-d (bench/README.md,
// "Multivectors"). A measurement, not a rule: it logs and asserts only how each index was
// obtained, and runs only when asked (QUIVER_MEASURE_MULTIVECTOR_START=1), never in CI.
describe.skipIf(process.env.QUIVER_MEASURE_MULTIVECTOR_START !== '1')('multivector checkpoint — start-up measurement', () => {
  it('measure — start-up of 3,000 × 8 × 64 rows from the checkpoint pair against the rebuild', async () => {
    const directory = await newDirectory();
    const size = 64;
    const rowsPerPoint = 8;
    const count = 3_000;
    let server = await startLogged(directory);
    let mapFile: string;
    try {
      const response = await server.request('PUT', '/collections/measured', { vectors: { size, distance: 'Dot', multivector_config: { comparator: 'max_sim' } }, ...graphInUseConfig });
      expect(response.status).toBe(200);
      for (let start = 0; start < count; start += 250) {
        const rows = randomVectors(start + 1, 250 * rowsPerPoint, size);
        const points = Array.from({ length: 250 }, (_, position) => ({ id: start + position, vector: rows.slice(position * rowsPerPoint, (position + 1) * rowsPerPoint) }));
        expect((await server.request('PUT', '/collections/measured/points?wait=true', { points })).status).toBe(200);
      }
      await waitGreen(server.client, 'measured', 600_000);
      mapFile = multivectorMapPath(checkpointPath(server.app.collections.get('measured').directory, ''));
    } finally {
      await server.close();
    }
    const timedStart = async () => {
      const started = performance.now();
      const startedServer = await startLogged(directory);
      const ready = performance.now() - started;
      await waitGreen(startedServer.client, 'measured', 600_000);
      return { server: startedServer, readyMs: Math.round(ready), greenMs: Math.round(performance.now() - started) };
    };
    const fromCheckpoint = await timedStart();
    server = fromCheckpoint.server;
    const checkpointIndexes = recovery(server.lines, 'measured');
    await server.close();
    expect(checkpointIndexes['']!.source).toBe('checkpoint');
    await rm(mapFile);
    const rebuilt = await timedStart();
    server = rebuilt.server;
    const rebuiltIndexes = recovery(server.lines, 'measured');
    await server.close();
    expect(rebuiltIndexes['']!.source).toBe('rebuilt');
    console.log(
      JSON.stringify({
        points: count,
        rows: count * rowsPerPoint,
        dimension: size,
        checkpoint: { readyMs: fromCheckpoint.readyMs, greenMs: fromCheckpoint.greenMs, rowsReinserted: checkpointIndexes['']!.replayedSlots * rowsPerPoint },
        rebuild: { readyMs: rebuilt.readyMs, greenMs: rebuilt.greenMs, rowsReinserted: count * rowsPerPoint },
      }),
    );
  }, 900_000);
});
