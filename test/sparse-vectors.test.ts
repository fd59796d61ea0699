// Sparse vectors end to end (docs/api.md §3.6, §5.6): configuration, writes in every form,
// refusals that write nothing, records with {indices, values}, and search — raw HTTP and the
// official JS client — checked against the slow exact scorer of test/support/sparse-reference.ts.
import { describe, expect, it } from 'vitest';
import { mulberry32 } from './support/seeded-random.js';
import { dot, idfWeighted, randomSparse, referenceSearch, type PlainSparse, type ReferencePoint } from './support/sparse-reference.js';
import { serverForFile } from './support/server.js';

const random = mulberry32(7);
const corpus: ReferencePoint[] = Array.from({ length: 300 }, (_, id) => ({
  id,
  // Every 10th point has no sparse vector: it must never be found by a sparse query.
  ...(id % 10 === 9 ? {} : { sparse: randomSparse(random, 60, 1 + Math.floor(random() * 8)) }),
  payload: { group: id % 3 },
}));
const queries: PlainSparse[] = Array.from({ length: 6 }, () => randomSparse(random, 60, 3));

const server = serverForFile({
  setUp: async () => {
    await server.request('PUT', '/collections/corpus', {
      vectors: { dense: { size: 2, distance: 'Dot' } },
      sparse_vectors: { words: {}, weighted: { modifier: 'idf' } },
    });
    for (let start = 0; start < corpus.length; start += 100) {
      const points = corpus.slice(start, start + 100).map((point) => ({
        id: point.id,
        vector: { dense: [point.id, 1], ...(point.sparse ? { words: point.sparse, weighted: point.sparse } : {}) },
        payload: point.payload,
      }));
      const written = await server.request('PUT', '/collections/corpus/points?wait=true', { points });
      expect(written.status).toBe(200);
    }
  },
});

function scoresOf(points: { id: unknown; score: number }[]) {
  return points.map((point) => ({ id: point.id, score: point.score }));
}

function expectRanking(actual: { id: unknown; score: number }[], expected: { id: number; score: number }[]): void {
  expect(actual.map((point) => point.id)).toEqual(expected.map((point) => point.id));
  actual.forEach((point, position) => expect(point.score).toBeCloseTo(expected[position]!.score, 3));
}

describe('sparse vectors — configuration', () => {
  it('sparse config — shown in GET, PATCH changes index params and modifier, an unknown name is a 400', async () => {
    await server.request('PUT', '/collections/configured', { sparse_vectors: { text: { index: { on_disk: false } } } });
    const patched = await server.request('PATCH', '/collections/configured', { sparse_vectors: { text: { index: { full_scan_threshold: 500 }, modifier: 'idf' } } });
    expect(patched.status).toBe(200);
    const info = await server.client.getCollection('configured');
    expect(info.config.params.sparse_vectors).toEqual({ text: { index: { on_disk: false, full_scan_threshold: 500 }, modifier: 'idf' } });
    const unknown = await server.request('PATCH', '/collections/configured', { sparse_vectors: { other: { modifier: 'idf' } } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.status.error).toMatch(/sparse_vectors\.other/);
  });
});

describe('sparse vectors — writes', () => {
  it('writes — list and batch forms, sparse-only points count, records show {indices, values} ascending', async () => {
    await server.request('PUT', '/collections/writes', { vectors: { size: 2, distance: 'Cosine' }, sparse_vectors: { text: {}, title: {} } });
    const listed = await server.request('PUT', '/collections/writes/points?wait=true', {
      points: [
        { id: 1, vector: { '': [1, 0], text: { indices: [9, 2], values: [0.5, 1.5] } } },
        { id: 2, vector: { title: { indices: [4], values: [2] } } },
      ],
    });
    expect(listed.status).toBe(200);
    await server.client.upsert('writes', {
      wait: true,
      batch: { ids: [3, 4], vectors: { text: [{ indices: [1], values: [1] }, { indices: [7, 3], values: [3, 0.25] }] } },
    });
    expect((await server.client.getCollection('writes')).points_count).toBe(4);
    const records = await server.client.retrieve('writes', { ids: [1, 2, 4], with_vector: true });
    expect(records.map((record) => record.vector)).toEqual([
      { '': [1, 0], text: { indices: [2, 9], values: [1.5, 0.5] } },
      { title: { indices: [4], values: [2] } },
      { text: { indices: [3, 7], values: [0.25, 3] } },
    ]);
    const named = await server.request('POST', '/collections/writes/points', { ids: [1], with_vector: ['text'] });
    expect(named.body.result[0].vector).toEqual({ text: { indices: [2, 9], values: [1.5, 0.5] } });
  });

  it('writes — PUT points/vectors changes only the given sparse vector; a whole-point upsert drops the missing one', async () => {
    await server.request('PUT', '/collections/updates', { vectors: { dense: { size: 2, distance: 'Dot' } }, sparse_vectors: { text: {} } });
    await server.client.upsert('updates', { wait: true, points: [{ id: 1, vector: { dense: [1, 1], text: { indices: [1], values: [1] } } }] });
    const updated = await server.request('PUT', '/collections/updates/points/vectors?wait=true', { points: [{ id: 1, vector: { text: { indices: [5, 6], values: [2, 3] } } }] });
    expect(updated.status).toBe(200);
    let [record] = await server.client.retrieve('updates', { ids: [1], with_vector: true });
    expect(record!.vector).toEqual({ dense: [1, 1], text: { indices: [5, 6], values: [2, 3] } });
    const found = await server.client.query('updates', { query: { indices: [6], values: [1] }, using: 'text' });
    expect(scoresOf(found.points)).toEqual([{ id: 1, score: 3 }]);
    await server.client.upsert('updates', { wait: true, points: [{ id: 1, vector: { dense: [2, 2] } }] });
    [record] = await server.client.retrieve('updates', { ids: [1], with_vector: true });
    expect(record!.vector).toEqual({ dense: [2, 2] });
    expect((await server.client.query('updates', { query: { indices: [6], values: [1] }, using: 'text' })).points).toEqual([]);
  });

  it('writes — a Document is embedded with BM25 by the server; an unknown model is a 400 listing the supported ones', async () => {
    await server.request('PUT', '/collections/documents', { sparse_vectors: { bm25: { modifier: 'idf' } } });
    const written = await server.request('PUT', '/collections/documents/points?wait=true', {
      points: [{ id: 1, vector: { bm25: { text: 'Foxes jump over lazy dogs', model: 'qdrant/bm25' } } }],
    });
    expect(written.status).toBe(200);
    const [record] = await server.client.retrieve('documents', { ids: [1], with_vector: true });
    expect((record!.vector as Record<string, PlainSparse>).bm25!.indices.length).toBe(4);
    const refused = await server.request('PUT', '/collections/documents/points?wait=true', {
      points: [{ id: 2, vector: { bm25: { text: 'x', model: 'sentence-transformers/all-MiniLM-L6-v2' } } }],
    });
    expect(refused.status).toBe(400);
    expect(refused.body.status.error).toMatch(/points\[0\]\.vector\.bm25\.model: unsupported model .* \(supported: qdrant\/bm25\)/);
  });

  const refusals: [string, unknown, RegExp][] = [
    ['lengths differ', { points: [{ id: 50, vector: { text: { indices: [1, 2], values: [1] } } }] }, /points\[0\]\.vector\.text: indices and values must have the same length/],
    ['a duplicate index', { points: [{ id: 50, vector: { text: { indices: [3, 3], values: [1, 2] } } }] }, /points\[0\]\.vector\.text\.indices\[1\]: index 3 appears more than once/],
    ['an index above u32', { points: [{ id: 50, vector: { text: { indices: [4294967296], values: [1] } } }] }, /points\[0\]\.vector\.text\.indices\[0\]: expected an unsigned 32-bit integer/],
    ['a non-finite value', { points: [{ id: 50, vector: { text: { indices: [1], values: ['NaN'] } } }] }, /points\[0\]\.vector\.text\.values\[0\]: expected a finite number/],
    ['an unknown name', { points: [{ id: 50, vector: { body: { indices: [1], values: [1] } } }] }, /points\[0\]\.vector\.body: Not existing vector name/],
    ['sparse data for a dense name', { points: [{ id: 50, vector: { dense: { indices: [1], values: [1] } } }] }, /points\[0\]\.vector\.dense: "dense" is a dense vector/],
    ['dense data for a sparse name', { points: [{ id: 50, vector: { text: [1, 2] } }] }, /points\[0\]\.vector\.text: "text" is a sparse vector/],
    ['a bad second point of a batch', { batch: { ids: [50, 51], vectors: { text: [{ indices: [1], values: [1] }, { indices: [1], values: [] }] } } }, /batch\.vectors\[1\]\.text: indices and values must have the same length/],
  ];
  it.each(refusals)('refusal — %s is a 400 naming the field and nothing is written', async (_name, body, message) => {
    const before = await server.client.getCollection('updates');
    const response = await server.request('PUT', '/collections/updates/points?wait=true', body);
    expect(response.status).toBe(400);
    expect(response.body.status.error).toMatch(message);
    expect(await server.client.getCollection('updates')).toEqual(before);
    expect(await server.client.retrieve('updates', { ids: [50, 51] })).toEqual([]);
  });
});

describe('sparse vectors — search', () => {
  it('query — /points/query with {indices, values} and using matches the exact scorer (raw HTTP and the JS client)', async () => {
    for (const query of queries) {
      const expected = referenceSearch(corpus, query, { limit: 10 });
      const raw = await server.request('POST', '/collections/corpus/points/query', { query, using: 'words', limit: 10 });
      expectRanking(raw.body.result.points, expected);
      const client = await server.client.query('corpus', { query: { nearest: query }, using: 'words', limit: 10 });
      expectRanking(client.points, expected);
      const exact = await server.client.query('corpus', { query, using: 'words', limit: 10, params: { exact: true } });
      expectRanking(exact.points, expected);
    }
  });

  it('query — filter, score_threshold and offset apply to sparse results as to dense ones', async () => {
    for (const query of queries) {
      const threshold = dot(query, corpus.find((point) => point.sparse)!.sparse!) / 2;
      const expected = referenceSearch(corpus, query, { limit: 5, offset: 3, threshold, accept: (point) => point.payload!.group === 1 });
      const found = await server.client.query('corpus', {
        query,
        using: 'words',
        limit: 5,
        offset: 3,
        score_threshold: threshold,
        filter: { must: [{ key: 'group', match: { value: 1 } }] },
      });
      expectRanking(found.points, expected);
    }
  });

  it('query — with_payload and with_vector return the sparse vector as {indices, values}', async () => {
    const found = await server.client.query('corpus', { query: queries[0]!, using: 'words', limit: 1, with_payload: true, with_vector: ['words'] });
    const best = found.points[0]!;
    const stored = corpus[best.id as number]!;
    const order = stored.sparse!.indices.map((_, position) => position).sort((left, right) => stored.sparse!.indices[left]! - stored.sparse!.indices[right]!);
    expect(best.vector).toEqual({ words: { indices: order.map((position) => stored.sparse!.indices[position]), values: order.map((position) => stored.sparse!.values[position]) } });
    expect(best.payload).toEqual(stored.payload);
  });

  it('search — /points/search and both batch endpoints take the named sparse form', async () => {
    const query = queries[1]!;
    const expected = referenceSearch(corpus, query, { limit: 7 });
    const searched = await server.request('POST', '/collections/corpus/points/search', { vector: { name: 'words', vector: query }, limit: 7 });
    expectRanking(searched.body.result, expected);
    const batch = await server.request('POST', '/collections/corpus/points/search/batch', {
      searches: [
        { vector: { name: 'words', vector: query }, limit: 7 },
        { vector: { name: 'words', vector: queries[2]! }, limit: 3 },
      ],
    });
    expectRanking(batch.body.result[0], expected);
    expectRanking(batch.body.result[1], referenceSearch(corpus, queries[2]!, { limit: 3 }));
    // @qdrant/js-client-rest 1.19 reaches nearest search through query/queryBatch only.
    const queryBatch = await server.client.queryBatch('corpus', { searches: [{ query, using: 'words', limit: 7 }, { query: queries[2]!, using: 'words', limit: 3 }] });
    expectRanking(queryBatch[0]!.points, expected);
    expectRanking(queryBatch[1]!.points, referenceSearch(corpus, queries[2]!, { limit: 3 }));
  });

  it('search — a point id as nearest uses its stored sparse vector; a sparse prefetch is re-scored exactly', async () => {
    const byId = await server.client.query('corpus', { query: 5, using: 'words', limit: 4 });
    expectRanking(byId.points, referenceSearch(corpus.filter((point) => point.id !== 5), corpus[5]!.sparse!, { limit: 4 }));
    const query = queries[3]!;
    const rescored = await server.client.query('corpus', { prefetch: { query: [1, 0], using: 'dense', limit: 40 }, query, using: 'words', limit: 5 });
    // The prefetch keeps ids 299..260 (largest dense[0]); those holding the vector are re-scored.
    const top40 = new Set(Array.from({ length: 40 }, (_, position) => 299 - position));
    const candidates = corpus.filter((point) => top40.has(point.id) && point.sparse);
    const expected = candidates
      .map((point) => ({ id: point.id, score: dot(query, point.sparse!) }))
      .sort((left, right) => right.score - left.score || left.id - right.id)
      .slice(0, 5);
    expectRanking(rescored.points, expected);
  });

  it('search — equal scores are ordered by id, also where the limit cuts through them', async () => {
    await server.request('PUT', '/collections/ties', { sparse_vectors: { text: {} } });
    const ids = [40, 3, 17, 8, 25, 1, 33];
    await server.client.upsert('ties', { wait: true, points: ids.map((id) => ({ id, vector: { text: { indices: [1, 100 + id], values: [2, 1] } } })) });
    await server.client.upsert('ties', { wait: true, points: [{ id: 99, vector: { text: { indices: [1], values: [5] } } }] });
    const found = await server.client.query('ties', { query: { indices: [1], values: [1] }, using: 'text', limit: 4 });
    expect(scoresOf(found.points)).toEqual([{ id: 99, score: 5 }, { id: 1, score: 2 }, { id: 3, score: 2 }, { id: 8, score: 2 }]);
  });

  it('search — refusals: a dense query on a sparse name, a sparse query on a dense name, recommend or a matrix on a sparse name', async () => {
    const dense = await server.request('POST', '/collections/corpus/points/query', { query: [1, 2], using: 'words' });
    expect(dense.status).toBe(400);
    expect(dense.body.status.error).toMatch(/"words" is a sparse vector/);
    const sparse = await server.request('POST', '/collections/corpus/points/query', { query: { indices: [1], values: [1] }, using: 'dense' });
    expect(sparse.status).toBe(400);
    expect(sparse.body.status.error).toMatch(/"dense" is a dense vector/);
    const recommend = await server.request('POST', '/collections/corpus/points/query', { query: { recommend: { positive: [1] } }, using: 'words' });
    expect(recommend.status).toBe(400);
    expect(recommend.body.status.error).toMatch(/only nearest queries/);
    const matrix = await server.request('POST', '/collections/corpus/points/search/matrix/pairs', { using: 'words', sample: 5, limit: 2 });
    expect(matrix.status).toBe(400);
    expect(matrix.body.status.error).toMatch(/"words" is a sparse vector: this operation needs a dense vector/);
    const bad = await server.request('POST', '/collections/corpus/points/query', { query: { indices: [1, 1], values: [1, 1] }, using: 'words' });
    expect(bad.status).toBe(400);
    expect(bad.body.status.error).toMatch(/query\.indices\[1\]: index 1 appears more than once/);
  });

  it('filter — has_vector answers for sparse names', async () => {
    const count = await server.client.count('corpus', { filter: { must: [{ has_vector: 'words' }] }, exact: true });
    expect(count.count).toBe(corpus.filter((point) => point.sparse).length);
  });
});

describe('sparse vectors — IDF modifier', () => {
  it('idf — query values are weighted by ln(((N - n + 0.5) / (n + 0.5)) + 1), checked by hand', async () => {
    await server.request('PUT', '/collections/idf', { sparse_vectors: { text: { modifier: 'idf' } } });
    // N = 4 points hold the vector; index 1 is in 3 of them, index 2 in 1.
    await server.client.upsert('idf', {
      wait: true,
      points: [
        { id: 1, vector: { text: { indices: [1, 2], values: [1, 1] } } },
        { id: 2, vector: { text: { indices: [1], values: [2] } } },
        { id: 3, vector: { text: { indices: [1], values: [1] } } },
        { id: 4, vector: { text: { indices: [3], values: [1] } } },
      ],
    });
    const idf1 = Math.log((4 - 3 + 0.5) / (3 + 0.5) + 1); // ln(1.428571) = 0.356675
    const idf2 = Math.log((4 - 1 + 0.5) / (1 + 0.5) + 1); // ln(3.333333) = 1.203973
    const found = await server.client.query('idf', { query: { indices: [1, 2], values: [1, 1] }, using: 'text' });
    expectRanking(found.points, [
      { id: 1, score: idf1 + idf2 },
      { id: 2, score: 2 * idf1 },
      { id: 3, score: idf1 },
    ]);
    expect(found.points[0]!.score).toBeCloseTo(1.560648, 5);

    // After a delete and an update the statistics are the current ones: N = 3, n(1) = 1, n(2) = 2.
    await server.client.delete('idf', { wait: true, points: [3] });
    await server.client.upsert('idf', { wait: true, points: [{ id: 2, vector: { text: { indices: [2], values: [2] } } }] });
    const after = await server.client.query('idf', { query: { indices: [1, 2], values: [1, 1] }, using: 'text' });
    const idf1After = Math.log((3 - 1 + 0.5) / (1 + 0.5) + 1);
    const idf2After = Math.log((3 - 2 + 0.5) / (2 + 0.5) + 1);
    expectRanking(after.points, [
      { id: 1, score: idf1After + idf2After },
      { id: 2, score: 2 * idf2After },
    ]);
  });

  it('idf — the weighted search over the random corpus matches the exact scorer with IDF weights', async () => {
    for (const query of queries) {
      const expected = referenceSearch(corpus, idfWeighted(query, corpus), { limit: 10 });
      const found = await server.client.query('corpus', { query, using: 'weighted', limit: 10 });
      expectRanking(found.points, expected);
    }
  });
});

describe('sparse vectors — BM25 Documents', () => {
  const texts = [
    'The quick brown fox jumps over the lazy dog',
    'A recipe for apple pie with cinnamon and butter',
    'Rust programming language guarantees memory safety',
    'Foxes are small omnivorous mammals of the dog family',
    'Baking bread requires flour, water, yeast and salt',
    'Vector databases index embeddings for similarity search',
  ];

  it('bm25 — Documents stored and queried by text find the expected documents', async () => {
    await server.request('PUT', '/collections/bm25', { sparse_vectors: { bm25: { modifier: 'idf' } } });
    await server.client.upsert('bm25', {
      wait: true,
      points: texts.map((text, id) => ({ id, vector: { bm25: { text, model: 'qdrant/bm25' } as never }, payload: { text } })),
    });
    const top = async (text: string) =>
      (await server.request('POST', '/collections/bm25/points/query', { query: { text, model: 'qdrant/bm25' }, using: 'bm25', limit: 2 })).body.result.points.map(
        (point: { id: number }) => point.id,
      );
    expect(await top('fox')).toEqual([0, 3]);
    // "bake" meets "Baking" too (the stemmer), but the apple pie recipe shares more terms.
    expect(await top('how do I bake an apple pie')).toEqual([1, 4]);
    expect(await top('memory-safe programming')).toEqual([2]);
    expect((await top('similarity search with embeddings'))[0]).toBe(5);
    const nearest = await server.request('POST', '/collections/bm25/points/query', { query: { nearest: { text: 'bread yeast', model: 'Qdrant/bm25' } }, using: 'bm25' });
    expect(nearest.body.result.points[0].id).toBe(4);
  });
});
