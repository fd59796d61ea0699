// Hostile bodies on every write endpoint (docs/api.md §1, §8): each a 400 naming the field,
// never a 500, and the collection left unchanged.
import { beforeAll, describe, expect, it } from 'vitest';
import { createWithPoints, snapshot } from '../support/base-points.js';
import { expectError, expectSuccess } from '../support/envelope.js';
import { serverForFile } from '../support/server.js';

const server = serverForFile();

describe('hostile bodies — 400 naming the field, collection unchanged', () => {
  const name = 'hostile';
  beforeAll(async () => {
    await createWithPoints(server, name);
  });

  const nestedFilter = (depth: number): unknown => {
    let filter: unknown = { must: [{ key: 'city', match: { value: 'Berlin' } }] };
    for (let level = 0; level < depth; level += 1) filter = { must: [filter] };
    return filter;
  };

  // [method, path, body, a word the message must contain]
  const cases: [string, string, unknown, string][] = [
    // upsert
    ['PUT', 'points', { points: 'all' }, 'points'],
    ['PUT', 'points', { points: null }, 'points'],
    ['PUT', 'points', { points: [null] }, 'points[0]'],
    ['PUT', 'points', { points: [{ id: -1, vector: [1, 2, 3, 4] }] }, 'points[0].id'],
    ['PUT', 'points', { points: [{ id: 1.5, vector: [1, 2, 3, 4] }] }, 'points[0].id'],
    ['PUT', 'points', { points: [{ id: 'NaN', vector: [1, 2, 3, 4] }] }, 'points[0].id'],
    ['PUT', 'points', { points: [{ id: 1e300, vector: [1, 2, 3, 4] }] }, 'points[0].id'],
    ['PUT', 'points', { points: [{ id: null, vector: [1, 2, 3, 4] }] }, 'points[0].id'],
    ['PUT', 'points', { points: [{ id: 1 }] }, 'points[0].vector'],
    ['PUT', 'points', { points: [{ id: 1, vector: null }] }, 'points[0].vector'],
    ['PUT', 'points', { points: [{ id: 1, vector: ['NaN', 0, 0, 0] }] }, 'points[0].vector[0]'],
    ['PUT', 'points', { points: [{ id: 1, vector: [1, 2, 3, '4'] }] }, 'points[0].vector[3]'],
    ['PUT', 'points', { points: [{ id: 1, vector: [1e39, 0, 0, 0] }] }, 'points[0].vector[0]'],
    ['PUT', 'points', { points: [{ id: 1, vector: [] }] }, 'points[0].vector'],
    ['PUT', 'points', { points: [{ id: 1, vector: [1, 2, 3, 4], payload: [1, 2] }] }, 'points[0].payload'],
    ['PUT', 'points', { points: [{ id: 1, vector: [1, 2, 3, 4], payload: 'text' }] }, 'points[0].payload'],
    ['PUT', 'points', { batch: { ids: [1, 2], vectors: [[1, 2, 3, 4]] } }, 'batch.vectors'],
    ['PUT', 'points', { batch: { ids: 'x', vectors: [] } }, 'batch.ids'],
    ['PUT', 'points', { batch: { ids: [1], vectors: [[1, 2, 3, 4]], payloads: [1] } }, 'batch.payloads[0]: expected object'],
    ['PUT', 'points', { points: [{ id: 1, vector: [1, 2, 3, 4] }], update_mode: 'sometimes' }, 'update_mode: expected one of "upsert", "insert_only", "update_only" (got "sometimes")'],
    ['PUT', 'points', {}, 'points'],
    ['PUT', 'points', [], 'body'],
    // retrieve (a read, but a body all the same)
    ['POST', 'points', { ids: 'all' }, 'ids'],
    ['POST', 'points', { ids: [-5] }, 'ids'],
    ['POST', 'points', { ids: [1], with_payload: 5 }, 'with_payload'],
    // delete points
    ['POST', 'points/delete', { points: '1' }, 'points'],
    ['POST', 'points/delete', { points: [null] }, 'points'],
    ['POST', 'points/delete', { points: [1], filter: { must: [] } }, 'points'],
    ['POST', 'points/delete', {}, 'points'],
    ['POST', 'points/delete', { filter: { must: 'everything' } }, 'filter.must'],
    ['POST', 'points/delete', { filter: { bogus: [] } }, 'filter'],
    ['POST', 'points/delete', { filter: [] }, 'filter'],
    ['POST', 'points/delete', { filter: nestedFilter(40) }, 'filter'],
    ['POST', 'points/delete', { filter: { must: [{ key: 'rank', range: { gt: 'NaN' } }] } }, 'filter.must[0].range'],
    ['POST', 'points/delete', { filter: { must: [{ key: 'rank', match: { value: null } }] } }, 'filter.must[0].match'],
    // update vectors
    ['PUT', 'points/vectors', { points: [] }, 'points'],
    ['PUT', 'points/vectors', { points: [{ id: 1, vector: 'x' }] }, 'points[0].vector'],
    ['PUT', 'points/vectors', { points: [{ id: 'x', vector: [1, 2, 3, 4] }] }, 'points[0].id'],
    ['PUT', 'points/vectors', { points: [{ id: 1, vector: [1, 2, 3, 4] }, { id: 2, vector: [1, 2] }] }, 'points[1].vector'],
    // set / overwrite payload
    ['POST', 'points/payload', { payload: null, points: [1] }, 'payload'],
    ['POST', 'points/payload', { payload: [1], points: [1] }, 'payload'],
    ['POST', 'points/payload', { payload: { a: 1 } }, 'points'],
    ['POST', 'points/payload', { payload: { a: 1 }, points: [-1] }, 'points'],
    ['POST', 'points/payload', { payload: { a: 1 }, points: [1], key: 5 }, 'key'],
    ['POST', 'points/payload', { payload: { a: 1 }, points: [1], key: 'a..b' }, 'key'],
    ['POST', 'points/payload', { payload: { a: 1 }, filter: { must: { key: 5 } } }, 'filter.must'],
    ['PUT', 'points/payload', { payload: 'text', points: [1] }, 'payload'],
    ['PUT', 'points/payload', { points: [1] }, 'payload'],
    ['PUT', 'points/payload', { payload: { a: 1 }, points: [{}] }, 'points'],
    // delete payload keys
    ['POST', 'points/payload/delete', { keys: 'city', points: [1] }, 'keys'],
    ['POST', 'points/payload/delete', { keys: [1], points: [1] }, 'keys[0]'],
    ['POST', 'points/payload/delete', { keys: null, points: [1] }, 'keys'],
    ['POST', 'points/payload/delete', { keys: ['city'], points: ['nope'] }, 'points'],
    // clear payload
    ['POST', 'points/payload/clear', { points: {} }, 'points'],
    ['POST', 'points/payload/clear', { filter: 5 }, 'filter'],
    ['POST', 'points/payload/clear', {}, 'points'],
    // payload index
    ['PUT', 'index', { field_name: 5, field_schema: 'keyword' }, 'field_name'],
    ['PUT', 'index', { field_schema: 'keyword' }, 'field_name'],
    ['PUT', 'index', { field_name: 'city', field_schema: 'bogus' }, 'field_schema'],
    ['PUT', 'index', { field_name: 'city', field_schema: { type: 'integer', lookup: 'yes' } }, 'field_schema'],
    ['PUT', 'index', { field_name: 'city', field_schema: 7 }, 'field_schema'],
    ['PUT', 'index', { field_name: '', field_schema: 'keyword' }, 'field_name'],
    // reads with hostile limits and filters
    ['POST', 'points/search', { vector: [1, 0, 0, 0], limit: -1 }, 'limit: expected integer to be greater or equal to 1 (got -1)'],
    ['POST', 'points/search', { vector: [1, 0, 0, 0], limit: '10' }, 'limit'],
    ['POST', 'points/search', { vector: [1, 0, 0, 0], limit: 1e20 }, 'limit'],
    ['POST', 'points/search', { vector: [1, 0, 0, 0], limit: 2, offset: -3 }, 'offset'],
    ['POST', 'points/search', { vector: ['NaN', 0, 0, 0], limit: 2 }, 'vector'],
    ['POST', 'points/search', { vector: 'x', limit: 2 }, 'vector'],
    ['POST', 'points/search', { vector: [1, 0, 0, 0], limit: 2, score_threshold: 'high' }, 'score_threshold'],
    ['POST', 'points/search', { vector: [1, 0, 0, 0], limit: 2, filter: nestedFilter(40) }, 'filter'],
    ['POST', 'points/search/batch', { searches: [{ vector: [1, 0, 0, 0], limit: -2 }] }, 'searches[0].limit'],
    ['POST', 'points/search/batch', { searches: null }, 'searches'],
    ['POST', 'points/search/batch', { searches: [{ vector: [1, 0, 0, 0], limit: 1 }, { vector: [0, 1e39, 0, 0], limit: 1 }] }, 'searches[1].vector[1]'],
    ['POST', 'points/query', { query: [1, 0, 0, 0], limit: -1 }, 'limit'],
    ['POST', 'points/query', { query: [1, 0, 0, 0], limit: 1e20 }, 'limit'],
    ['POST', 'points/query', { query: 'x' }, 'query'],
    ['POST', 'points/query', { query: [1e39, 0, 0, 0] }, 'query'],
    ['POST', 'points/query', { prefetch: { query: { nearest: 'not-an-id' } }, query: { fusion: 'rrf' } }, 'prefetch[0].query.nearest'],
    ['POST', 'points/query', { query: { recommend: { positive: [-4] } } }, 'query.recommend.positive[0]'],
    ['POST', 'points/query', { query: { recommend: { positive: [1], negative: [[1e39, 0, 0, 0]] } } }, 'query.recommend.negative[0]'],
    ['POST', 'points/query', { query: { recommend: { positive: [1], negative: [[1, 0, 0, 0]], strategy: 'best_score' } }, params: { exact: 'yes' } }, 'params'],
    ['POST', 'points/query/batch', { searches: [{ query: 'x' }] }, 'searches[0].query'],
    ['POST', 'points/query', { query: { order_by: '' } }, 'query.order_by: expected string length greater or equal to 1'],
    ['POST', 'points/query', { query: [1, 0, 0, 0], with_payload: { include: ['a'], extra: 1 } }, 'with_payload.extra'],
    ['POST', 'points/query', { query: { fusion: 'max' }, prefetch: { query: [1, 0, 0, 0] } }, 'query.fusion'],
    ['PUT', 'points', { points: [{ id: 1, vector: [1, 2, 3, 4] }], update_mode: 5 }, 'update_mode'],
    ['POST', 'points/search', { vector: [1e39, 0, 0, 0], limit: 2 }, 'vector'],
    ['POST', 'points/scroll', { limit: -1 }, 'limit'],
    ['POST', 'points/scroll', { limit: 0 }, 'limit'],
    ['POST', 'points/scroll', { limit: 1e20 }, 'limit'],
    ['POST', 'points/scroll', { offset: -1 }, 'offset'],
    ['POST', 'points/scroll', { filter: { must: [{ key: 'rank', range: { gt: [] } }] } }, 'filter.must[0].range'],
    ['POST', 'points/count', { exact: 'yes' }, 'exact'],
    ['POST', 'points/count?timeout=soon', {}, 'timeout'],
    ['POST', 'points/search?timeout=-5', { vector: [1, 0, 0, 0], limit: 1 }, 'timeout'],
    ['PUT', 'index', { field_name: 'city', field_schema: { type: 'text', min_token_len: -1 } }, 'field_schema'],
    ['PUT', 'index', { field_name: 'city', field_schema: { type: 'text', tokenizer: 'emoji' } }, 'field_schema'],
    ['POST', 'points/count', { filter: nestedFilter(40) }, 'filter'],
    ['POST', 'points/count', { filter: { should: [{ has_id: 'all' }] } }, 'filter.should[0]'],
  ];

  it.each(cases)('%s %s, case %# — 400 naming the field', async (method, path, body, field) => {
    const before = await snapshot(server, name);
    for (const wait of ['true', 'false']) {
      const response = await server.request(method, `/collections/${name}/${path}?wait=${wait}`, body);
      const message = expectError(response, 400);
      expect(message).toContain(field);
    }
    expect(await snapshot(server, name)).toEqual(before);
  });

  it('PUT C — hostile collection configs are 400s naming the field and create nothing', async () => {
    const configs: [unknown, string][] = [
      [{ vectors: { size: '4', distance: 'Cosine' } }, 'vectors.size'],
      [{ vectors: { size: -1, distance: 'Cosine' } }, 'vectors.size'],
      [{ vectors: { size: 0, distance: 'Cosine' } }, 'vectors.size'],
      [{ vectors: { size: 1e20, distance: 'Cosine' } }, 'vectors.size'],
      [{ vectors: { size: 65537, distance: 'Cosine' } }, 'vectors.size'],
      [{ vectors: { size: 4, distance: 'Cosinus' } }, 'vectors.distance'],
      [{ vectors: { size: 4 } }, 'vectors.distance'],
      [{ vectors: [] }, 'vectors'],
      [{ vectors: 'dense' }, 'vectors'],
      [{ vectors: { image: { size: 'x', distance: 'Dot' } } }, 'vectors.image.size'],
      [{ vectors_config: { size: 4, distance: 'Dot' }, hnsw_config: { m: 'x' } }, 'hnsw_config.m'],
      [{ vectors_config: { size: 4, distance: 'Dot' }, shard_number: -1 }, 'shard_number'],
      [{ vectors_config: { size: 4, distance: 'Dot' }, on_disk_payload: 'yes' }, 'on_disk_payload'],
      [[], 'body'],
    ];
    for (const [config, field] of configs) {
      const response = await server.request('PUT', '/collections/hostile-config', config);
      const message = expectError(response, 400);
      expect(`${JSON.stringify(config)} -> ${message}`).toContain(field);
    }
    expect(expectSuccess(await server.request('GET', '/collections/hostile-config/exists'))).toEqual({ exists: false });
  });

  it('PATCH C — hostile updates are 400s naming the field and change nothing', async () => {
    const before = expectSuccess(await server.request('GET', `/collections/${name}`)).config;
    const updates: [unknown, string][] = [
      [{ hnsw_config: { m: -1 } }, 'hnsw_config.m'],
      [{ optimizers_config: { indexing_threshold: 'x' } }, 'optimizers_config.indexing_threshold'],
      [{ vectors: { '': { on_disk: 'x' } } }, 'on_disk'],
    ];
    for (const [update, field] of updates) {
      const message = expectError(await server.request('PATCH', `/collections/${name}`, update), 400);
      expect(`${JSON.stringify(update)} -> ${message}`).toContain(field);
    }
    expect(expectSuccess(await server.request('GET', `/collections/${name}`)).config).toEqual(before);
  });

  const deepObject = (levels: number) => `${'{"child":'.repeat(levels)}{"leaf":1}${'}'.repeat(levels)}`;
  const deepArray = (levels: number) => `${'['.repeat(levels)}1${']'.repeat(levels)}`;

  it.each([
    ['PUT', 'points', (deep: string) => `{"points":[{"id":9,"vector":[1,2,3,4],"payload":${deep}}]}`],
    ['POST', 'points/payload', (deep: string) => `{"points":[1],"payload":{"a":${deep}}}`],
    ['PUT', 'points/payload', (deep: string) => `{"points":[1],"payload":{"a":${deep}}}`],
    ['POST', 'points/count', (deep: string) => `{"filter":{"must":[{"key":"a","match":{"value":${deep}}}]}}`],
    ['POST', 'points/query', (deep: string) => `{"query":${deep}}`],
  ] as const)('%s %s — a body nested thousands of levels deep is a 400, never a stack overflow 500', async (method, path, body) => {
    const before = await snapshot(server, name);
    for (const levels of [300, 5_000, 50_000]) {
      for (const deep of [deepObject(levels), deepArray(levels)]) {
        const message = expectError(await server.request(method, `/collections/${name}/${path}?wait=true`, body(deep)), 400);
        expect(message).toBe('Format error in JSON body: the body is nested deeper than 256 levels');
      }
    }
    expect(await snapshot(server, name)).toEqual(before);
  });

  it('a payload nested just under the bound (250 levels) is still accepted and returned whole', async () => {
    expectSuccess(await server.request('PUT', `/collections/hostile-nested/`, { vectors: { size: 2, distance: 'Dot' } }));
    expectSuccess(await server.request('PUT', '/collections/hostile-nested/points?wait=true', `{"points":[{"id":1,"vector":[1,2],"payload":${deepObject(250)}}]}`));
    expect(JSON.stringify(expectSuccess(await server.request('GET', '/collections/hostile-nested/points/1')).payload)).toBe(deepObject(250));
  });

  it('a metadata object nested very deeply is a 400 and creates nothing', async () => {
    const response = await server.request('PUT', '/collections/hostile-deep', `{"vectors":{"size":2,"distance":"Dot"},"metadata":${deepObject(50_000)}}`);
    expectError(response, 400, /nested deeper than/);
    expect(expectSuccess(await server.request('GET', '/collections/hostile-deep/exists'))).toEqual({ exists: false });
  });

  it('a number beyond the double range (1e400) is a 400, not stored as null', async () => {
    const before = await snapshot(server, name);
    expectError(await server.request('PUT', `/collections/${name}/points?wait=true`, '{"points":[{"id":1,"vector":[1,2,3,4],"payload":{"big":1e400}}]}'), 400, /1e400 is out of range/);
    expectError(await server.request('POST', `/collections/${name}/points/payload?wait=true`, '{"points":[1],"payload":{"big":-1e400}}'), 400, /-1e400 is out of range/);
    expectError(await server.request('POST', `/collections/${name}/points/search`, '{"vector":[1,0,0,0],"limit":1,"score_threshold":1e400}'), 400, /out of range/);
    expect(await snapshot(server, name)).toEqual(before);
  });
});
