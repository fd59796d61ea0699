// Multivectors with MaxSim (docs/api.md §20): a point's vector is a matrix of rows, a query is a
// matrix too, and the score is the sum over query rows of the best score of that row against any
// row of the point. Every answer is checked against a brute-force MaxSim written here from that
// definition, through raw HTTP and the official JS client, on the graph path and the exact scan,
// with filters, the "dense first, then multivector rerank" prefetch, deletes, re-upserts, a clean
// restart and a SIGKILLed server.
import { describe, expect, it } from 'vitest';
import { startChildServer, waitUntilReady } from './support/child-server.js';
import { call } from './support/http-call.js';
import { maxSim, referenceTop, seededMatrices } from './support/multivector-reference.js';
import { graphInUseConfig, normalise, randomVectors, referenceScore, type DistanceName } from './support/search-data.js';
import { dataDirectoriesForFile, startServer, type TestServer } from './support/server.js';
import { waitGreen as waitGreenOf } from './support/wait-green.js';

const newDirectory = dataDirectoriesForFile();
const dimension = 8;
const distances: DistanceName[] = ['Cosine', 'Dot', 'Euclid', 'Manhattan'];

/** Matrices of 1..6 rows per point, seeded. */
function matrices(seed: number, count: number): Map<number, number[][]> {
  return seededMatrices(seed, count, dimension);
}

function expectHits(actual: { id: unknown; score: number }[], expected: { id: number; score: number }[]): void {
  expect(actual.map((hit) => hit.id)).toEqual(expected.map((hit) => hit.id));
  actual.forEach((hit, position) => expect(hit.score).toBeCloseTo(expected[position]!.score, 3));
}

/**
 * An answer of the graph path, which is approximate (its row lists come from HNSW, whose build on
 * two threads differs from run to run): every hit is an admitted point scored with its exact
 * MaxSim, best first, and the share of the reference top-`limit` it found is returned (recall).
 */
function graphRecall(
  actual: { id: unknown; score: number }[],
  distance: DistanceName,
  query: number[][],
  documents: Map<number, number[][]>,
  limit: number,
  keep: (id: number) => boolean = () => true,
): number {
  const expected = referenceTop(distance, query, documents, limit, keep);
  expect(actual).toHaveLength(expected.length);
  const larger = distance === 'Cosine' || distance === 'Dot';
  actual.forEach((hit, position) => {
    const id = hit.id as number;
    expect(keep(id), `hit ${id} is not admitted by the filter`).toBe(true);
    expect(hit.score).toBeCloseTo(maxSim(distance, query, documents.get(id)!), 3);
    if (position > 0) expect(larger ? hit.score <= actual[position - 1]!.score + 1e-6 : hit.score >= actual[position - 1]!.score - 1e-6).toBe(true);
  });
  const found = new Set(actual.map((hit) => hit.id));
  return expected.filter((hit) => found.has(hit.id)).length / Math.max(1, expected.length);
}

const waitGreen = (server: TestServer, name: string) => waitGreenOf(server.client, name);

async function createColbert(server: TestServer, name: string, distance: DistanceName, extra: Record<string, unknown> = {}): Promise<void> {
  const response = await server.request('PUT', `/collections/${name}`, {
    vectors: { dense: { size: dimension, distance: 'Cosine' }, colbert: { size: dimension, distance, multivector_config: { comparator: 'max_sim' } } },
    ...extra,
  });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
}

async function upsertMatrices(server: TestServer, name: string, documents: Map<number, number[][]>): Promise<void> {
  const points = [...documents].map(([id, document]) => ({ id, vector: { dense: document[0]!, colbert: document }, payload: { even: id % 2 === 0 } }));
  const response = await server.request('PUT', `/collections/${name}/points?wait=true`, { points });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
}

describe('multivectors (MaxSim)', () => {
  it('multivector — every distance: the exact scan answers what brute-force MaxSim answers; the graph path scores its hits exactly and finds ≥ 95% of that answer, with and without a filter', async () => {
    const server = await startServer(await newDirectory());
    try {
      const documents = matrices(7, 300);
      const queries = [randomVectors(91, 3, dimension), randomVectors(92, 1, dimension), randomVectors(93, 5, dimension)];
      const recalls: number[] = [];
      for (const distance of distances) {
        const name = `mv_${distance.toLowerCase()}`;
        // The smallest full_scan_threshold and indexing threshold: the graph is walked.
        await createColbert(server, name, distance, graphInUseConfig);
        await upsertMatrices(server, name, documents);
        // Measured once every row is linked: the recall floor below is the built graph's.
        await waitGreen(server, name);
        for (const query of queries) {
          const expected = referenceTop(distance, query, documents, 10);
          const exactAnswer = await server.request('POST', `/collections/${name}/points/query`, { query, using: 'colbert', limit: 10, params: { exact: true } });
          expect(exactAnswer.status, JSON.stringify(exactAnswer.body)).toBe(200);
          expectHits(exactAnswer.body.result.points, expected);
          const graphAnswer = await server.request('POST', `/collections/${name}/points/query`, { query, using: 'colbert', limit: 10, params: { hnsw_ef: 300 } });
          expect(graphAnswer.status, JSON.stringify(graphAnswer.body)).toBe(200);
          recalls.push(graphRecall(graphAnswer.body.result.points, distance, query, documents, 10));
          const filtered = await server.request('POST', `/collections/${name}/points/query`, {
            query,
            using: 'colbert',
            limit: 5,
            filter: { must: [{ key: 'even', match: { value: true } }] },
            params: { hnsw_ef: 300 },
          });
          expect(filtered.status).toBe(200);
          recalls.push(graphRecall(filtered.body.result.points, distance, query, documents, 5, (id) => id % 2 === 0));
        }
      }
      // Approximate, so no single answer is required to be the exact one; together they must be
      // nearly so (one miss in all 24 answers reads 0.99), and none may be far off.
      expect(Math.min(...recalls)).toBeGreaterThanOrEqual(0.6);
      expect(recalls.reduce((sum, recall) => sum + recall, 0) / recalls.length).toBeGreaterThanOrEqual(0.95);
    } finally {
      await server.close();
    }
  });

  it('multivector — the official client upserts number[][] and queries with number[][]; with_vector returns the rows (Cosine: normalised)', async () => {
    const server = await startServer(await newDirectory());
    try {
      await server.client.createCollection('client', { vectors: { size: dimension, distance: 'Cosine', multivector_config: { comparator: 'max_sim' } } });
      const info = await server.client.getCollection('client');
      expect((info.config.params.vectors as { multivector_config?: unknown }).multivector_config).toEqual({ comparator: 'max_sim' });
      const documents = matrices(11, 40);
      await server.client.upsert('client', { wait: true, points: [...documents].map(([id, document]) => ({ id, vector: document, payload: { id } })) });
      const query = randomVectors(12, 4, dimension);
      const found = await server.client.query('client', { query, limit: 7 });
      expectHits(found.points, referenceTop('Cosine', query, documents, 7));
      const [record] = await server.client.retrieve('client', { ids: [5], with_vector: true });
      const rows = record!.vector as number[][];
      expect(rows).toHaveLength(documents.get(5)!.length);
      rows.forEach((row, position) => normalise(documents.get(5)![position]!).forEach((value, index) => expect(row[index]).toBeCloseTo(value, 5)));
      // A point id as the query: its own matrix.
      const byId = await server.client.query('client', { query: 5, limit: 3 });
      expect(byId.points.map((point) => point.id)).toEqual(referenceTop('Cosine', documents.get(5)!, new Map([...documents].filter(([id]) => id !== 5)), 3).map((hit) => hit.id));
      expect((await server.client.count('client', { exact: true })).count).toBe(40);
    } finally {
      await server.close();
    }
  });

  it('multivector — dense first, then multivector rerank: the prefetch candidates are rescored by MaxSim', async () => {
    const server = await startServer(await newDirectory());
    try {
      await createColbert(server, 'pipeline', 'Dot');
      const documents = matrices(21, 200);
      await upsertMatrices(server, 'pipeline', documents);
      const dense = randomVectors(22, 1, dimension)[0]!;
      const query = randomVectors(23, 3, dimension);
      const response = await server.request('POST', '/collections/pipeline/points/query', {
        prefetch: { query: dense, using: 'dense', limit: 30 },
        query,
        using: 'colbert',
        limit: 10,
      });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      const candidates = [...documents]
        .map(([id, document]) => ({ id, score: referenceScore('Cosine', dense, document[0]!) }))
        .sort((left, right) => right.score - left.score || left.id - right.id)
        .slice(0, 30)
        .map((hit) => hit.id);
      expectHits(response.body.result.points, referenceTop('Dot', query, documents, 10, (id) => candidates.includes(id)));
      // The legacy search takes one dense vector: on a multivector it is a one-row query.
      const legacy = await server.request('POST', '/collections/pipeline/points/search', { vector: { name: 'colbert', vector: query[0] }, limit: 5 });
      expect(legacy.status, JSON.stringify(legacy.body)).toBe(200);
      expectHits(legacy.body.result, referenceTop('Dot', [query[0]!], documents, 5));
    } finally {
      await server.close();
    }
  });

  it('multivector — recommend: average_vector averages the examples\' rows (one positive alone is the query as it is), sum_scores sums MaxSim; discover and context answer', async () => {
    const server = await startServer(await newDirectory());
    try {
      await createColbert(server, 'examples', 'Dot');
      const documents = matrices(61, 60);
      await upsertMatrices(server, 'examples', documents);
      const others = (excluded: number[]) => new Map([...documents].filter(([id]) => !excluded.includes(id)));
      const alone = await server.request('POST', '/collections/examples/points/query', { query: { recommend: { positive: [3] } }, using: 'colbert', limit: 5 });
      expect(alone.status, JSON.stringify(alone.body)).toBe(200);
      expectHits(alone.body.result.points, referenceTop('Dot', documents.get(3)!, others([3]), 5));
      // Two positives and a negative: every row averaged, then 2·positive − negative, as one row.
      const average = (ids: number[]) => {
        const rows = ids.flatMap((id) => documents.get(id)!);
        return rows[0]!.map((_, position) => rows.reduce((sum, row) => sum + row[position]!, 0) / rows.length);
      };
      const positive = average([4, 5]);
      const negative = average([6]);
      const averaged = [positive.map((value, position) => 2 * value - negative[position]!)];
      const mixed = await server.request('POST', '/collections/examples/points/query', { query: { recommend: { positive: [4, 5], negative: [6] } }, using: 'colbert', limit: 5 });
      expectHits(mixed.body.result.points, referenceTop('Dot', averaged, others([4, 5, 6]), 5));
      const summed = await server.request('POST', '/collections/examples/points/query', {
        query: { recommend: { positive: [4, 5], negative: [6], strategy: 'sum_scores' } },
        using: 'colbert',
        limit: 5,
      });
      const sumReference = [...others([4, 5, 6])]
        .map(([id, document]) => ({ id, score: maxSim('Dot', documents.get(4)!, document) + maxSim('Dot', documents.get(5)!, document) - maxSim('Dot', documents.get(6)!, document) }))
        .sort((left, right) => right.score - left.score || left.id - right.id)
        .slice(0, 5);
      expectHits(summed.body.result.points, sumReference);
      for (const query of [{ discover: { target: 7, context: [{ positive: 8, negative: 9 }] } }, { context: [{ positive: 8, negative: 9 }] }, { recommend: { positive: [8], strategy: 'best_score' } }]) {
        const response = await server.request('POST', '/collections/examples/points/query', { query, using: 'colbert', limit: 5 });
        expect(response.status, JSON.stringify(response.body)).toBe(200);
        expect(response.body.result.points).toHaveLength(5);
      }
    } finally {
      await server.close();
    }
  });

  it('multivector — bad input is a 400 naming the field, and nothing is written', async () => {
    const server = await startServer(await newDirectory(), { limits: { max_multivector_rows: 4 } } as never);
    try {
      await createColbert(server, 'checks', 'Dot');
      const cases: [unknown, RegExp][] = [
        [[], /points\[0\]\.vector\.colbert.*at least one row/],
        [[[1, 2, 3, 4, 5, 6, 7, 8], [1, 2]], /points\[0\]\.vector\.colbert\[1\]/],
        [Array.from({ length: 5 }, () => [1, 2, 3, 4, 5, 6, 7, 8]), /points\[0\]\.vector\.colbert.*at most 4 rows/],
        [[[1, 2, 3, 4, 5, 6, 7, 'x']], /points\[0\]\.vector\.colbert\[0\]\[7\]/],
      ];
      for (const [colbert, message] of cases) {
        const response = await server.request('PUT', '/collections/checks/points?wait=true', { points: [{ id: 1, vector: { colbert } }] });
        expect(response.status).toBe(400);
        expect(response.body.status.error).toMatch(message);
      }
      expect((await server.request('POST', '/collections/checks/points/count', { exact: true })).body.result.count).toBe(0);
      const onDense = await server.request('POST', '/collections/checks/points/query', { query: [[1, 2, 3, 4, 5, 6, 7, 8]], using: 'dense' });
      expect(onDense.status).toBe(400);
      expect(onDense.body.status.error).toMatch(/query.*not a multivector/);
      const tooManyRows = await server.request('POST', '/collections/checks/points/query', { query: Array.from({ length: 5 }, () => [1, 2, 3, 4, 5, 6, 7, 8]), using: 'colbert' });
      expect(tooManyRows.status).toBe(400);
      const mmr = await server.request('POST', '/collections/checks/points/query', { query: { nearest: [[1, 2, 3, 4, 5, 6, 7, 8]], mmr: { diversity: 0.5 } }, using: 'colbert' });
      expect(mmr.status).toBe(400);
      expect(mmr.body.status.error).toMatch(/query\.mmr.*not supported on the multivector/);
    } finally {
      await server.close();
    }
  });

  it('multivector — deletes and re-upserts change the answer as the reference says, and a clean restart keeps it', async () => {
    const directory = await newDirectory();
    let server = await startServer(directory);
    const documents = matrices(31, 120);
    const query = randomVectors(32, 3, dimension);
    try {
      await createColbert(server, 'kept', 'Euclid', graphInUseConfig);
      await upsertMatrices(server, 'kept', documents);
      await server.client.delete('kept', { wait: true, points: [0, 1, 2, 3, 4] });
      for (const id of [0, 1, 2, 3, 4]) documents.delete(id);
      const replaced = matrices(33, 20);
      for (let id = 10; id < 20; id += 1) documents.set(id, replaced.get(id)!);
      await upsertMatrices(server, 'kept', new Map([...documents].filter(([id]) => id >= 10 && id < 20)));
      // The exact scan must be the reference exactly; the graph path (loaded from its checkpoint at start, so
      // maybe still linking) must find nearly all of it, every hit scored exactly.
      const exactBefore = await server.request('POST', '/collections/kept/points/query', { query, using: 'colbert', limit: 10, params: { exact: true } });
      expectHits(exactBefore.body.result.points, referenceTop('Euclid', query, documents, 10));
      const before = await server.request('POST', '/collections/kept/points/query', { query, using: 'colbert', limit: 10, params: { hnsw_ef: 200 } });
      expect(graphRecall(before.body.result.points, 'Euclid', query, documents, 10)).toBeGreaterThanOrEqual(0.8);
      await server.close();
      server = await startServer(directory);
      const exactAfter = await server.request('POST', '/collections/kept/points/query', { query, using: 'colbert', limit: 10, params: { exact: true } });
      expectHits(exactAfter.body.result.points, referenceTop('Euclid', query, documents, 10));
      const after = await server.request('POST', '/collections/kept/points/query', { query, using: 'colbert', limit: 10, params: { hnsw_ef: 200 } });
      expect(graphRecall(after.body.result.points, 'Euclid', query, documents, 10)).toBeGreaterThanOrEqual(0.8);
      const record = await server.request('POST', '/collections/kept/points', { ids: [15], with_vector: ['colbert'] });
      expect(record.body.result[0].vector.colbert).toHaveLength(documents.get(15)!.length);
    } finally {
      await server.close();
    }
  });

  it('multivector — the other write forms: column batch, vector update, vector delete, an added multivector name, strict mode max_vectors, int8 quantization', async () => {
    const server = await startServer(await newDirectory());
    try {
      await createColbert(server, 'forms', 'Dot', { quantization_config: { scalar: { type: 'int8' } } });
      const documents = matrices(51, 20);
      const ids = [...documents.keys()];
      const batch = await server.request('PUT', '/collections/forms/points?wait=true', {
        batch: { ids, vectors: { colbert: ids.map((id) => documents.get(id)!), dense: ids.map((id) => documents.get(id)![0]!) } },
      });
      expect(batch.status, JSON.stringify(batch.body)).toBe(200);
      const replacement = randomVectors(52, 3, dimension);
      documents.set(4, replacement);
      expect((await server.request('PUT', '/collections/forms/points/vectors?wait=true', { points: [{ id: 4, vector: { colbert: replacement } }] })).status).toBe(200);
      expect((await server.request('POST', '/collections/forms/points/vectors/delete?wait=true', { points: [5], vector: ['colbert'] })).status).toBe(200);
      documents.delete(5);
      const query = randomVectors(53, 2, dimension);
      const found = await server.request('POST', '/collections/forms/points/query', { query, using: 'colbert', limit: 20 });
      expect(found.status, JSON.stringify(found.body)).toBe(200);
      expectHits(found.body.result.points, referenceTop('Dot', query, documents, 20));

      // A multivector added to an existing collection (docs/api.md §4.7).
      expect((await server.request('PUT', '/collections/forms/vectors/late', { dense: { size: dimension, distance: 'Cosine', multivector_config: { comparator: 'max_sim' } } })).status).toBe(200);
      const info = await server.request('GET', '/collections/forms');
      expect(info.body.result.config.params.vectors.late.multivector_config).toEqual({ comparator: 'max_sim' });
      expect((await server.request('PUT', '/collections/forms/points/vectors?wait=true', { points: [{ id: 1, vector: { late: replacement } }] })).status).toBe(200);
      const late = await server.request('POST', '/collections/forms/points/query', { query: replacement, using: 'late', limit: 3 });
      expect(late.body.result.points.map((point: { id: number }) => point.id)).toEqual([1]);
      expect(late.body.result.points[0].score).toBeCloseTo(3, 4);

      // Strict mode's per-name max_vectors bounds the rows below the server's limit.
      const strict = await server.request('PATCH', '/collections/forms', { strict_mode_config: { enabled: true, multivector_config: { colbert: { max_vectors: 2 } } } });
      expect(strict.status, JSON.stringify(strict.body)).toBe(200);
      const refused = await server.request('PUT', '/collections/forms/points?wait=true', { points: [{ id: 99, vector: { colbert: replacement } }] });
      expect(refused.status).toBe(400);
      expect(refused.body.status.error).toMatch(/points\[0\]\.vector\.colbert.*at most 2 rows/);
    } finally {
      await server.close();
    }
  });

  it('multivector — crash: a SIGKILLed server loses no acknowledged multivector write', async () => {
    const directory = await newDirectory();
    const documents = matrices(41, 80);
    const query = randomVectors(42, 2, dimension);
    let child = await startChildServer(directory);
    try {
      await waitUntilReady(child.url);
      await call(child.url, 'PUT', '/collections/crash', { vectors: { size: dimension, distance: 'Dot', multivector_config: { comparator: 'max_sim' } } });
      const points = [...documents].map(([id, document]) => ({ id, vector: document }));
      expect((await call(child.url, 'PUT', '/collections/crash/points?wait=false', { points })).status).toBe(200);
      expect((await call(child.url, 'POST', '/collections/crash/points/delete?wait=false', { points: [7] })).status).toBe(200);
      documents.delete(7);
      await child.kill('SIGKILL');
      child = await startChildServer(directory);
      await waitUntilReady(child.url);
      const found = await call(child.url, 'POST', '/collections/crash/points/query', { query, limit: 80, params: { exact: true } });
      expect(found.status).toBe(200);
      expectHits(found.body.result.points, referenceTop('Dot', query, documents, 80));
    } finally {
      await child.kill('SIGKILL');
    }
  });
});
