// Hybrid search (docs/api.md §5.6): dense and sparse prefetches fused by rrf or dbsf, and the
// requests LangChain (RetrievalMode.HYBRID), LlamaIndex (enable_hybrid=True) and Haystack
// (QdrantHybridRetriever) send, verbatim in the JSON their Python clients produce. Every
// answer is checked against references written here: an exact dense scorer, the exact sparse
// scorer of test/support/sparse-reference.ts, and the fusion formulas.
import { describe, expect, it } from 'vitest';
import { mulberry32 } from './support/seeded-random.js';
import { idfWeighted, randomSparse, referenceSearch, type PlainSparse, type ReferencePoint } from './support/sparse-reference.js';
import { serverForFile } from './support/server.js';

const random = mulberry32(11);
const dimension = 4;
interface HybridPoint extends ReferencePoint {
  dense: number[];
}
const points: HybridPoint[] = Array.from({ length: 120 }, (_, id) => ({
  id,
  dense: Array.from({ length: dimension }, () => Math.round((random() * 2 - 1) * 1000) / 1000),
  sparse: randomSparse(random, 40, 1 + Math.floor(random() * 6)),
  payload: { text: `document ${id}`, metadata: { group: id % 4 } },
}));
const denseQuery = [0.3, -0.2, 0.9, 0.1];
const sparseQuery: PlainSparse = { indices: [3, 17, 25], values: [0.7, 1.2, 0.4] };

const server = serverForFile({});

function cosine(left: number[], right: number[]): number {
  let product = 0;
  let leftNorm = 0;
  let rightNorm = 0;
  left.forEach((value, position) => {
    product += value * right[position]!;
    leftNorm += value * value;
    rightNorm += right[position]! * right[position]!;
  });
  return product / Math.sqrt(leftNorm * rightNorm);
}

function denseRanking(accept: (point: HybridPoint) => boolean, limit: number): { id: number; score: number }[] {
  return points
    .filter(accept)
    .map((point) => ({ id: point.id, score: cosine(denseQuery, point.dense) }))
    .sort((left, right) => right.score - left.score)
    .slice(0, limit);
}

function rrf(lists: { id: number }[][]): Map<number, number> {
  const totals = new Map<number, number>();
  for (const list of lists) list.forEach((point, rank) => totals.set(point.id, (totals.get(point.id) ?? 0) + 1 / (rank + 2)));
  return totals;
}

function dbsf(lists: { id: number; score: number }[][]): Map<number, number> {
  const totals = new Map<number, number>();
  for (const list of lists) {
    const scores = list.map((point) => point.score);
    const mean = scores.reduce((sum, score) => sum + score, 0) / scores.length;
    const deviation = Math.sqrt(scores.reduce((sum, score) => sum + (score - mean) ** 2, 0) / (scores.length - 1));
    const low = mean - 3 * deviation;
    const high = mean + 3 * deviation;
    list.forEach((point) => totals.set(point.id, (totals.get(point.id) ?? 0) + (point.score - low) / (high - low)));
  }
  return totals;
}

/** Each returned point carries its fused score, and they are the best `limit` fused scores. */
function expectFused(actual: { id: unknown; score: number }[], fused: Map<number, number>, limit: number): void {
  const best = [...fused.values()].sort((left, right) => right - left).slice(0, limit);
  expect(actual.length).toBe(best.length);
  actual.forEach((point, position) => {
    expect(point.score).toBeCloseTo(fused.get(point.id as number)!, 5);
    expect(point.score).toBeCloseTo(best[position]!, 5);
  });
}

function expectRanking(actual: { id: unknown; score: number }[], expected: { id: number; score: number }[]): void {
  expect(actual.map((point) => point.id)).toEqual(expected.map((point) => point.id));
  actual.forEach((point, position) => expect(point.score).toBeCloseTo(expected[position]!.score, 3));
}

const everything = () => true;

describe('hybrid — LangChain RetrievalMode.HYBRID', () => {
  it('langchain — prefetch [dense "", sparse "langchain-sparse"] fused by rrf, as QdrantVectorStore sends it', async () => {
    // langchain_qdrant names the dense vector "" and the sparse one "langchain-sparse", and
    // creates the collection with exactly this body.
    const created = await server.request('PUT', '/collections/langchain', {
      vectors: { '': { size: dimension, distance: 'Cosine' } },
      sparse_vectors: { 'langchain-sparse': {} },
    });
    expect(created.status).toBe(200);
    const upserted = await server.request('PUT', '/collections/langchain/points?wait=true', {
      points: points.map((point) => ({ id: point.id, vector: { '': point.dense, 'langchain-sparse': point.sparse }, payload: { page_content: point.payload!.text, metadata: point.payload!.metadata } })),
    });
    expect(upserted.status).toBe(200);
    const k = 4;
    const response = await server.request('POST', '/collections/langchain/points/query', {
      prefetch: [
        { using: '', query: denseQuery, filter: null, limit: k, params: null },
        { using: 'langchain-sparse', query: sparseQuery, filter: null, limit: k, params: null },
      ],
      query: { fusion: 'rrf' },
      filter: null,
      params: null,
      limit: k,
      offset: 0,
      with_payload: true,
      with_vector: false,
      score_threshold: null,
    });
    expect(response.status).toBe(200);
    const fused = rrf([denseRanking(everything, k), referenceSearch(points, sparseQuery, { limit: k })]);
    expectFused(response.body.result.points, fused, k);
    expect(response.body.result.points[0].payload.page_content).toMatch(/^document /);

    // RetrievalMode.SPARSE: the sparse query alone.
    const sparseOnly = await server.request('POST', '/collections/langchain/points/query', { query: sparseQuery, using: 'langchain-sparse', limit: k, offset: 0, with_payload: true, with_vector: false, filter: null, params: null, score_threshold: null });
    expectRanking(sparseOnly.body.result.points, referenceSearch(points, sparseQuery, { limit: k }));
  });
});

describe('hybrid — LlamaIndex enable_hybrid=True', () => {
  it('llamaindex — "text-dense" and "text-sparse-new" written together, searched by one search batch', async () => {
    const created = await server.request('PUT', '/collections/llamaindex', {
      vectors: { 'text-dense': { size: dimension, distance: 'Cosine' } },
      sparse_vectors: { 'text-sparse-new': { index: { full_scan_threshold: null, on_disk: null, datatype: null }, modifier: null } },
    });
    expect(created.status).toBe(200);
    const upserted = await server.request('PUT', '/collections/llamaindex/points?wait=true', {
      points: points.map((point) => ({
        id: `00000000-0000-4000-8000-${point.id.toString(16).padStart(12, '0')}`,
        payload: { _node_content: '{}', doc_id: `doc-${point.id}`, group: point.payload!.metadata },
        vector: { 'text-sparse-new': point.sparse, 'text-dense': point.dense },
      })),
    });
    expect(upserted.status).toBe(200);
    const response = await server.request('POST', '/collections/llamaindex/points/search/batch', {
      searches: [
        { vector: { name: 'text-dense', vector: denseQuery }, filter: null, limit: 2, with_payload: true, shard_key: null },
        { vector: { name: 'text-sparse-new', vector: sparseQuery }, filter: null, limit: 2, with_payload: true, shard_key: null },
      ],
    });
    expect(response.status).toBe(200);
    const uuidOf = (id: number) => `00000000-0000-4000-8000-${id.toString(16).padStart(12, '0')}`;
    const asUuids = (list: { id: number; score: number }[]) => list.map((point) => ({ id: uuidOf(point.id) as unknown as number, score: point.score }));
    expectRanking(response.body.result[0], asUuids(denseRanking(everything, 2)));
    expectRanking(response.body.result[1], asUuids(referenceSearch(points, sparseQuery, { limit: 2 })));
  });
});

describe('hybrid — Haystack QdrantHybridRetriever', () => {
  it('haystack — prefetch [sparse "text-sparse", dense "text-dense"] with a filter, fused by rrf (JS client too)', async () => {
    await server.request('PUT', '/collections/haystack', {
      vectors: { 'text-dense': { size: dimension, distance: 'Cosine', on_disk: false } },
      sparse_vectors: { 'text-sparse': { index: { on_disk: false }, modifier: 'idf' } },
    });
    await server.client.upsert('haystack', {
      wait: true,
      points: points.map((point) => ({ id: point.id, vector: { 'text-dense': point.dense, 'text-sparse': point.sparse! }, payload: { content: point.payload!.text, meta: point.payload!.metadata } })),
    });
    const filter = { must: [{ key: 'meta.group', match: { any: [1, 2] } }] };
    const accept = (point: ReferencePoint) => [1, 2].includes((point.payload!.metadata as { group: number }).group);
    const topK = 5;
    const body = {
      prefetch: [
        { query: sparseQuery, using: 'text-sparse', filter, limit: topK },
        { query: denseQuery, using: 'text-dense', filter, limit: topK },
      ],
      query: { fusion: 'rrf' as const },
      limit: topK,
      score_threshold: null,
      with_payload: true,
      with_vector: false,
    };
    const response = await server.request('POST', '/collections/haystack/points/query', body);
    expect(response.status).toBe(200);
    // With modifier idf the sparse ranking is the IDF-weighted one.
    const sparseRanking = referenceSearch(points, idfWeighted(sparseQuery, points), { limit: topK, accept });
    const fused = rrf([sparseRanking, denseRanking(accept, topK)]);
    expectFused(response.body.result.points, fused, topK);
    const viaClient = await server.client.query('haystack', body);
    expectFused(viaClient.points, fused, topK);
  });
});

describe('hybrid — fusion over sparse lists', () => {
  it('dbsf — a sparse and a dense prefetch are normalised and summed as the formula says', async () => {
    const limit = 6;
    const response = await server.client.query('langchain', {
      prefetch: [
        { query: denseQuery, using: '', limit },
        { query: sparseQuery, using: 'langchain-sparse', limit },
      ],
      query: { fusion: 'dbsf' },
      limit,
    });
    const fused = dbsf([denseRanking(everything, limit), referenceSearch(points, sparseQuery, { limit })]);
    expectFused(response.points, fused, limit);
  });

  it('rrf — a BM25 Document query as a prefetch fuses with a dense one', async () => {
    await server.request('PUT', '/collections/documents', { vectors: { dense: { size: 2, distance: 'Dot' } }, sparse_vectors: { bm25: { modifier: 'idf' } } });
    const texts = ['red apples and green pears', 'a red sports car', 'green tea with lemon', 'apples, pears and plums'];
    await server.client.upsert('documents', {
      wait: true,
      points: texts.map((text, id) => ({ id, vector: { dense: [id, 1], bm25: { text, model: 'qdrant/bm25' } as never } })),
    });
    const response = await server.request('POST', '/collections/documents/points/query', {
      prefetch: [
        { query: { text: 'pears', model: 'qdrant/bm25' }, using: 'bm25', limit: 2 },
        { query: [1, 0], using: 'dense', limit: 2 },
      ],
      query: { fusion: 'rrf' },
      limit: 3,
    });
    // bm25 ranks 3 then 0 (both mention pears, 3 is shorter); dense ranks 3 then 2. 0 and 2 tie
    // at 1/3 and keep the order they were first seen in (the bm25 prefetch comes first).
    expect(response.body.result.points.map((point: { id: number }) => point.id)).toEqual([3, 0, 2]);
  });
});
