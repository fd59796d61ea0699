// POST C/points/search and C/points/search/batch end to end (docs/api.md §3-4), through raw HTTP and
// the official client, against brute force computed in the test.
import { describe, expect, it } from 'vitest';
import { bruteForce, clusteredVectors, expectSameHits, largerIsBetter, pointsOf, randomVectors, referenceScore, upsertAll, type DistanceName } from './support/search-data.js';
import { serverForFile } from './support/server.js';
import { waitGreen } from './support/wait-green.js';

const distances: DistanceName[] = ['Cosine', 'Euclid', 'Dot', 'Manhattan'];
const dimension = 8;
const vectors = randomVectors(7, 300, dimension);
const queries = randomVectors(99, 5, dimension);

const server = serverForFile({
  setUp: async () => {
    for (const distance of distances) {
      await server.request('PUT', `/collections/${distance}`, { vectors: { size: dimension, distance } });
      await upsertAll(server.request, distance, pointsOf(vectors));
    }
    await server.request('PUT', '/collections/named', {
      vectors: { image: { size: 4, distance: 'Euclid' }, text: { size: dimension, distance: 'Cosine' } },
    });
    await upsertAll(
      server.request,
      'named',
      vectors.map((vector, id) => ({ id, vector: { image: vector.slice(0, 4), text: vector } })),
    );
  },
});

async function search(collection: string, body: unknown) {
  const response = await server.request('POST', `/collections/${collection}/points/search`, body);
  return response;
}

describe('search — scores and order per distance', () => {
  it.each(distances)('%s — exact: true equals brute force, ids and scores', async (distance) => {
    for (const query of queries) {
      const response = await search(distance, { vector: query, limit: 10, params: { exact: true } });
      expect(response.status).toBe(200);
      expectSameHits(response.body.result, bruteForce(distance, query, vectors, 10));
    }
  });

  it.each(distances)('%s — default settings find the exact top 10 on a small collection', async (distance) => {
    for (const query of queries) {
      const response = await search(distance, { vector: query, limit: 10 });
      expectSameHits(response.body.result, bruteForce(distance, query, vectors, 10));
    }
  });

  it('Euclid reports the L2 distance, smaller first; Cosine the dot of unit vectors, larger first', async () => {
    const query = queries[0]!;
    const euclid = (await search('Euclid', { vector: query, limit: 5 })).body.result as { score: number }[];
    for (let position = 1; position < euclid.length; position++) expect(euclid[position]!.score).toBeGreaterThanOrEqual(euclid[position - 1]!.score);
    expect(euclid[0]!.score).toBeCloseTo(Math.min(...vectors.map((vector) => referenceScore('Euclid', query, vector))), 4);
    const cosine = (await search('Cosine', { vector: query.map((value) => value * 7), limit: 5 })).body.result as { score: number }[];
    for (let position = 1; position < cosine.length; position++) expect(cosine[position]!.score).toBeLessThanOrEqual(cosine[position - 1]!.score);
    expect(cosine[0]!.score).toBeLessThanOrEqual(1.0001);
    expect(cosine[0]!.score).toBeCloseTo(bruteForce('Cosine', query, vectors, 1)[0]!.score, 4);
  });

  it('every ScoredPoint has id, version and score; payload and vector only when asked', async () => {
    const [hit] = (await search('Dot', { vector: queries[1], limit: 1 })).body.result;
    expect(Object.keys(hit).sort()).toEqual(['id', 'score', 'version']);
    expect(hit.version).toEqual(expect.any(Number));
  });
});

describe('search — limit, offset, threshold', () => {
  it('top is an alias of limit', async () => {
    const response = await search('Euclid', { vector: queries[0], top: 3 });
    expectSameHits(response.body.result, bruteForce('Euclid', queries[0]!, vectors, 3));
  });

  it('offset skips the first results', async () => {
    const response = await search('Manhattan', { vector: queries[2], limit: 5, offset: 7, params: { exact: true } });
    expectSameHits(response.body.result, bruteForce('Manhattan', queries[2]!, vectors, 12).slice(7));
  });

  it.each(distances)('%s — score_threshold keeps only scores better than the threshold', async (distance) => {
    const query = queries[3]!;
    const reference = bruteForce(distance, query, vectors, 50);
    // Midway between two neighbours, so float32 rounding cannot move a point across it.
    const threshold = (reference[20]!.score + reference[21]!.score) / 2;
    const response = await search(distance, { vector: query, limit: 50, score_threshold: threshold, params: { exact: true } });
    const expected = reference.filter((hit) => (largerIsBetter(distance) ? hit.score > threshold : hit.score < threshold));
    expectSameHits(response.body.result, expected);
    expect(expected.length).toBeGreaterThan(15);
  });

  it('a missing limit and a bad limit are 400s naming limit', async () => {
    for (const body of [{ vector: [1] }, { vector: queries[0], limit: 0 }]) {
      const response = await search('Dot', body);
      expect(response.status).toBe(400);
      expect(response.body.status.error).toContain('limit');
    }
  });

  it('an over-large limit is clamped to the configured cap, not refused', async () => {
    const response = await search('Dot', { vector: queries[0], limit: 1_000_000 });
    expect(response.status).toBe(200);
    expect(response.body.result.length).toBeGreaterThan(0);
  });
});

describe('search — vectors, selectors, errors', () => {
  it('a named vector is searched with {name, vector}', async () => {
    const query = queries[4]!;
    const image = await search('named', { vector: { name: 'image', vector: query.slice(0, 4) }, limit: 5 });
    expectSameHits(image.body.result, bruteForce('Euclid', query.slice(0, 4), vectors.map((vector) => vector.slice(0, 4)), 5));
    const text = await search('named', { vector: { name: 'text', vector: query }, limit: 5 });
    expectSameHits(text.body.result, bruteForce('Cosine', query, vectors, 5));
  });

  it('an unknown vector name is a 400 naming it', async () => {
    const response = await search('named', { vector: { name: 'audio', vector: [1, 2, 3, 4] }, limit: 5 });
    expect(response.status).toBe(400);
    expect(response.body.status.error).toContain('audio');
  });

  it('a wrong dimension is a 400 saying expected N, got M', async () => {
    const response = await search('Dot', { vector: [1, 2, 3], limit: 5 });
    expect(response.status).toBe(400);
    expect(response.body.status.error).toMatch(/expected 8, got 3/);
  });

  it('with_payload and with_vector select what comes back', async () => {
    const body = { vector: queries[0], limit: 2 };
    const all = (await search('Euclid', { ...body, with_payload: true, with_vector: true })).body.result;
    const id = all[0].id as number;
    expect(all[0].payload).toEqual(pointsOf(vectors)[id]!.payload);
    expect(all[0].vector).toEqual(vectors[id]);
    const some = (await search('Euclid', { ...body, with_payload: ['group', 'nested.even'] })).body.result;
    expect(some[0].payload).toEqual({ group: id % 3, nested: { even: id % 2 === 0 } });
    expect(some[0]).not.toHaveProperty('vector');
    const without = (await search('Euclid', { ...body, with_payload: { exclude: ['price', 'tag', 'nested'] } })).body.result;
    expect(without[0].payload).toEqual({ group: id % 3 });
    const named = (await search('named', { vector: { name: 'text', vector: queries[0] }, limit: 1, with_vector: ['image'] })).body.result;
    expect(Object.keys(named[0].vector)).toEqual(['image']);
  });

  it('a missing collection is a 404', async () => {
    const response = await search('nothing-here', { vector: [1], limit: 1 });
    expect(response.status).toBe(404);
    expect(response.body.status.error).toBe('Collection not found: nothing-here');
  });

  it('a filter keeps only the points it accepts, with or without an index, exact or not', async () => {
    const keep = (id: number) => id % 3 === 1;
    for (const params of [{}, { exact: true }]) {
      const response = await search('Dot', { vector: queries[0], limit: 7, params, filter: { must: [{ key: 'group', match: { value: 1 } }] } });
      expect(response.status).toBe(200);
      expectSameHits(response.body.result, bruteForce('Dot', queries[0]!, vectors, 7, { keep }));
    }
    const nested = await search('Euclid', { vector: queries[1], limit: 5, filter: { must_not: [{ key: 'nested.even', match: { value: true } }] } });
    expectSameHits(nested.body.result, bruteForce('Euclid', queries[1]!, vectors, 5, { keep: (id) => id % 2 === 1 }));
  });

  it('a malformed filter is a 400 naming the condition', async () => {
    const response = await search('Dot', { vector: queries[0], limit: 3, filter: { must: [{ key: 'group', range: { gt: 'x' } }] } });
    expect(response.status).toBe(400);
    expect(response.body.status.error).toContain('filter.must[0].range');
  });
});

describe('search batch', () => {
  it('batch — answers equal single searches, in request order, mixing fast and slow paths', async () => {
    const searches = [
      { vector: queries[0], limit: 3 },
      { vector: queries[1], limit: 5, offset: 2 },
      { vector: queries[2], limit: 4, with_payload: true },
      { vector: queries[3], limit: 2, params: { exact: true } },
      { vector: queries[4], limit: 6, score_threshold: 0.9 },
    ];
    const batch = await server.request('POST', '/collections/Euclid/points/search/batch', { searches });
    expect(batch.status).toBe(200);
    expect(batch.body.result).toHaveLength(searches.length);
    for (const [position, body] of searches.entries()) {
      const single = await search('Euclid', body);
      expect(batch.body.result[position]).toEqual(single.body.result);
    }
  });

  it('batch — the one-kernel-call fast path equals its slow twin, search by search', async () => {
    // Three exact plain searches share a vector name and tuning: they go to the kernel as one
    // batch. Each is repeated alone with a filter that accepts everything, which takes the
    // one-by-one path; the answers must be identical.
    const searches = queries.slice(0, 3).map((vector, position) => ({ vector, limit: 4 + position, offset: position, params: { exact: true } }));
    const fast = await server.request('POST', '/collections/Manhattan/points/search/batch', { searches });
    const slow = await server.request('POST', '/collections/Manhattan/points/search/batch', {
      searches: searches.map((body) => ({ ...body, filter: { must_not: [{ key: 'absent', match: { value: 'x' } }] } })),
    });
    expect(fast.status).toBe(200);
    expect(fast.body.result).toEqual(slow.body.result);
    fast.body.result.forEach((hits: { id: number; score: number }[], position: number) => {
      expectSameHits(hits, bruteForce('Manhattan', queries[position]!, vectors, 4 + 2 * position).slice(position));
    });
  });

  it('batch — a bad search is a 400 naming its position', async () => {
    const response = await server.request('POST', '/collections/Euclid/points/search/batch', { searches: [{ vector: queries[0], limit: 3 }, { vector: [1, 2], limit: 3 }] });
    expect(response.status).toBe(400);
    expect(response.body.status.error).toContain('searches[1]');
  });
});

describe('search through the official client', () => {
  // @qdrant/js-client-rest 1.19 dropped search and searchBatch (they live on as query and
  // queryBatch), so the client's path to nearest search is the query API.
  it('client.query and client.queryBatch return the brute-force answer', async () => {
    const query = queries[0]!;
    const hits = await server.client.query('Cosine', { query, limit: 4, with_payload: false });
    expectSameHits(hits.points as { id: number; score: number }[], bruteForce('Cosine', query, vectors, 4));
    const batch = await server.client.queryBatch('Dot', { searches: [{ query, limit: 2 }, { query: queries[1]!, limit: 3 }] });
    expectSameHits(batch[0]!.points as { id: number; score: number }[], bruteForce('Dot', query, vectors, 2));
    expectSameHits(batch[1]!.points as { id: number; score: number }[], bruteForce('Dot', queries[1]!, vectors, 3));
  });

  it('ids above 2^53 come back as the same integer literal', async () => {
    await server.request('PUT', '/collections/big-ids', { vectors: { size: 2, distance: 'Dot' } });
    const put = await server.request('PUT', '/collections/big-ids/points?wait=true', '{"points":[{"id":424242424242424242,"vector":[1,0]}]}');
    expect(put.status).toBe(200);
    const response = await server.request('POST', '/collections/big-ids/points/search', { vector: [1, 0], limit: 1 });
    expect(response.text).toContain('"id":424242424242424242');
  });
});

describe('search recall', () => {
  it('recall@10 >= 0.95 at default settings on clustered data', async () => {
    const count = 3_000;
    const clustered = clusteredVectors(5, count, 16, 20);
    // A tiny full-scan threshold (KB) so the graph answers, not the exact scan small sets get.
    await server.request('PUT', '/collections/recall', { vectors: { size: 16, distance: 'Euclid' }, hnsw_config: { full_scan_threshold: 10 } });
    await upsertAll(server.request, 'recall', clustered.map((vector, id) => ({ id, vector })));
    await waitGreen(server.client, 'recall');
    const probes = clusteredVectors(6, 40, 16, 20);
    let found = 0;
    for (const probe of probes) {
      const truth = new Set(bruteForce('Euclid', probe, clustered, 10).map((hit) => hit.id));
      const hits = (await search('recall', { vector: probe, limit: 10 })).body.result as { id: number }[];
      found += hits.filter((hit) => truth.has(hit.id)).length;
    }
    expect(found / (probes.length * 10)).toBeGreaterThanOrEqual(0.95);
    // exact: true is brute force whatever the index holds.
    for (const probe of probes.slice(0, 10)) {
      const exact = (await search('recall', { vector: probe, limit: 10, params: { exact: true } })).body.result;
      expectSameHits(exact, bruteForce('Euclid', probe, clustered, 10));
    }
  });
});
