// One engine, two doors (docs/api.md §14): one shared scenario — ids above 2^53 and UUIDs, named
// dense and sparse vectors, filters, payload paths, scroll, count, query with fusion — is run
// through REST on one collection and through gRPC on another; every answer must be the same.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Distance, FieldType, Fusion, Modifier, type QdrantClient } from '@qdrant/js-client-grpc';
import { parseJson } from '../../src/json/parse.js';
import { serializeJson } from '../../src/json/serialize.js';
import { valueToJson } from '../../src/grpc/convert/values.js';
import { mulberry32 } from '../support/seeded-random.js';
import { startGrpcServer, type GrpcTestServer } from './grpc-server.js';

let server: GrpcTestServer;
beforeAll(async () => {
  server = await startGrpcServer();
});
afterAll(async () => {
  await server.stop();
});

const restName = 'equivalence_rest';
const grpcName = 'equivalence_grpc';

/** REST with lossless JSON both ways, so ids above 2^53 compare exactly. */
async function rest(method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : serializeJson(body),
  });
  const parsed = parseJson(await response.text()) as { result: unknown; status: unknown };
  if (response.status !== 200) throw new Error(`${method} ${path}: ${response.status} ${serializeJson(parsed.status)}`);
  return parsed.result;
}

// ---- the shared data ----------------------------------------------------------------------------

type Id = number | bigint | string;
interface ScenarioPoint {
  id: Id;
  text: number[];
  keywords?: { indices: number[]; values: number[] };
  payload: Record<string, unknown>;
}

const cities = ['Lyon', 'Oslo', 'Kyoto'];
function scenarioPoints(): ScenarioPoint[] {
  const random = mulberry32(15);
  const points: ScenarioPoint[] = [];
  for (let index = 0; index < 24; index++) {
    const id: Id = index % 3 === 0 ? 9007199254740993n + BigInt(index) : index % 3 === 1 ? index + 1 : `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`;
    const round = (value: number) => Math.round(value * 1000) / 1000;
    points.push({
      id,
      text: [round(random()), round(random()), round(random()), round(random() - 0.5)],
      keywords: index % 4 === 3 ? undefined : { indices: [index % 5, 10 + (index % 7)], values: [round(random() + 0.1), round(random() + 0.1)] },
      payload: {
        city: { name: cities[index % 3], zone: index % 2 },
        price: round(random() * 100),
        stock: index,
        big: 1152921504606846976n + BigInt(index),
        tags: index % 2 === 0 ? ['even', 'sale'] : ['odd'],
        ...(index % 5 === 0 ? { note: null } : {}),
      },
    });
  }
  return points;
}

// ---- gRPC builders ------------------------------------------------------------------------------

function grpcId(id: Id) {
  return typeof id === 'string' ? { pointIdOptions: { case: 'uuid' as const, value: id } } : { pointIdOptions: { case: 'num' as const, value: BigInt(id) } };
}

function grpcValue(json: unknown): any {
  if (json === null) return { kind: { case: 'nullValue', value: 0 } };
  if (typeof json === 'bigint') return { kind: { case: 'integerValue', value: json } };
  if (typeof json === 'number') return Number.isInteger(json) ? { kind: { case: 'integerValue', value: BigInt(json) } } : { kind: { case: 'doubleValue', value: json } };
  if (typeof json === 'string') return { kind: { case: 'stringValue', value: json } };
  if (typeof json === 'boolean') return { kind: { case: 'boolValue', value: json } };
  if (Array.isArray(json)) return { kind: { case: 'listValue', value: { values: json.map(grpcValue) } } };
  return { kind: { case: 'structValue', value: { fields: grpcPayload(json as Record<string, unknown>) } } };
}

function grpcPayload(json: Record<string, unknown>): Record<string, any> {
  return Object.fromEntries(Object.entries(json).map(([key, value]) => [key, grpcValue(value)]));
}

const field = (key: string, match: any) => ({ conditionOneOf: { case: 'field' as const, value: { key, match } } });
const keyword = (value: string) => ({ matchValue: { case: 'keyword' as const, value } });
const filter = (parts: { must?: any[]; should?: any[]; mustNot?: any[] }) => ({ must: parts.must ?? [], should: parts.should ?? [], mustNot: parts.mustNot ?? [] });
const denseInput = (data: number[]) => ({ variant: { case: 'dense' as const, value: { data } } });
const withPayload = (value: boolean) => ({ selectorOptions: { case: 'enable' as const, value } });

// ---- normalising answers ----------------------------------------------------------------------

interface Normal {
  id: string;
  score?: number;
  payload?: unknown;
  vector?: unknown;
}

function restNormal(point: any): Normal {
  const normal: Normal = { id: String(point.id) };
  if (point.score !== undefined) normal.score = Math.round(point.score * 1e5) / 1e5;
  normal.payload = point.payload ?? {};
  if (point.vector !== undefined && point.vector !== null) normal.vector = point.vector;
  return normal;
}

function grpcVector(output: any): unknown {
  const one = output.vector;
  if (one.case === 'dense') return one.value.data;
  if (one.case === 'sparse') return { indices: one.value.indices, values: one.value.values };
  return one.value.vectors.map((dense: { data: number[] }) => dense.data);
}

function grpcNormal(point: any): Normal {
  const normal: Normal = { id: String(point.id.pointIdOptions.value) };
  if (point.score !== undefined) normal.score = Math.round(point.score * 1e5) / 1e5;
  normal.payload = Object.fromEntries(Object.entries(point.payload).map(([key, value]) => [key, valueToJson(value as never, key)]));
  const vectors = point.vectors?.vectorsOptions;
  if (vectors?.case === 'vectors') normal.vector = Object.fromEntries(Object.entries(vectors.value.vectors).map(([name, output]) => [name, grpcVector(output)]));
  else if (vectors?.case === 'vector') normal.vector = grpcVector(vectors.value);
  return normal;
}

/** Float32 storage rounds vectors; both doors read the same store, so compare rounded. */
function rounded(value: unknown): unknown {
  if (typeof value === 'number') return Math.round(value * 1e5) / 1e5;
  if (Array.isArray(value)) return value.map(rounded);
  if (typeof value === 'object' && value !== null && typeof value !== 'bigint') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, rounded(item)]));
  return value;
}

function same(restAnswer: Normal[], grpcAnswer: Normal[]): void {
  expect(grpcAnswer.length).toBeGreaterThan(0);
  expect(rounded(grpcAnswer)).toEqual(rounded(restAnswer));
}

// ---- the scenario -----------------------------------------------------------------------------

describe('REST and gRPC run one scenario to the same answers', () => {
  const points = scenarioPoints();
  let grpc: QdrantClient;
  const api = () => grpc.api('points');

  it('equivalence — writes: create (named dense + sparse), upsert, payload indexes', async () => {
    grpc = server.grpc;
    await rest('PUT', `/collections/${restName}`, { vectors: { text: { size: 4, distance: 'Cosine' } }, sparse_vectors: { keywords: { modifier: 'idf' } } });
    await grpc.api('collections').create({
      collectionName: grpcName,
      vectorsConfig: { config: { case: 'paramsMap', value: { map: { text: { size: 4n, distance: Distance.Cosine } } } } },
      sparseVectorsConfig: { map: { keywords: { modifier: Modifier.Idf } } },
    });
    await rest('PUT', `/collections/${restName}/points?wait=true`, {
      points: points.map((point) => ({ id: point.id, vector: { text: point.text, ...(point.keywords ? { keywords: point.keywords } : {}) }, payload: point.payload })),
    });
    await api().upsert({
      collectionName: grpcName,
      wait: true,
      points: points.map((point) => ({
        id: grpcId(point.id),
        payload: grpcPayload(point.payload),
        vectors: {
          vectorsOptions: {
            case: 'vectors' as const,
            value: {
              vectors: {
                text: { vector: { case: 'dense' as const, value: { data: point.text } } },
                ...(point.keywords ? { keywords: { vector: { case: 'sparse' as const, value: point.keywords } } } : {}),
              },
            },
          },
        },
      })),
    });
    await rest('PUT', `/collections/${restName}/index?wait=true`, { field_name: 'city.name', field_schema: 'keyword' });
    await rest('PUT', `/collections/${restName}/index?wait=true`, { field_name: 'price', field_schema: 'float' });
    await api().createFieldIndex({ collectionName: grpcName, wait: true, fieldName: 'city.name', fieldType: FieldType.FieldTypeKeyword });
    await api().createFieldIndex({ collectionName: grpcName, wait: true, fieldName: 'price', fieldType: FieldType.FieldTypeFloat });

    const restInfo = await rest('GET', `/collections/${restName}`);
    const grpcInfo = (await grpc.api('collections').get({ collectionName: grpcName })).result!;
    expect(grpcInfo.pointsCount).toBe(BigInt(restInfo.points_count));
    expect(Object.keys(grpcInfo.payloadSchema).sort()).toEqual(Object.keys(restInfo.payload_schema).sort());
    expect(Object.values(grpcInfo.payloadSchema).map((schema) => Number(schema.points))).toEqual(Object.values(restInfo.payload_schema).map((schema: any) => schema.points));
  });

  it('equivalence — retrieve by ids (big, small, UUID) with payload and vectors', async () => {
    const ids = [points[0]!.id, points[1]!.id, points[2]!.id, points[3]!.id];
    const restAnswer = await rest('POST', `/collections/${restName}/points`, { ids, with_payload: true, with_vector: true });
    const grpcAnswer = await api().get({ collectionName: grpcName, ids: ids.map(grpcId), withPayload: withPayload(true), withVectors: { selectorOptions: { case: 'enable', value: true } } });
    same(restAnswer.map(restNormal), grpcAnswer.result.map(grpcNormal));
  });

  it('equivalence — search with a keyword match on a payload path and a range', async () => {
    const restAnswer = await rest('POST', `/collections/${restName}/points/search`, {
      vector: { name: 'text', vector: [0.3, 0.2, 0.9, 0.1] },
      filter: { must: [{ key: 'city.name', match: { value: 'Oslo' } }, { key: 'price', range: { gte: 10, lt: 90 } }] },
      limit: 5,
      with_payload: true,
    });
    const grpcAnswer = await api().search({
      collectionName: grpcName,
      vector: [0.3, 0.2, 0.9, 0.1],
      vectorName: 'text',
      filter: filter({ must: [field('city.name', keyword('Oslo')), { conditionOneOf: { case: 'field', value: { key: 'price', range: { gte: 10, lt: 90 } } } }] }),
      limit: 5n,
      withPayload: withPayload(true),
    });
    same(restAnswer.map(restNormal), grpcAnswer.result.map(grpcNormal));
  });

  it('equivalence — query: should + must_not + has_id + values_count, payload include', async () => {
    const excluded = [points[4]!.id, points[5]!.id];
    const restAnswer = await rest('POST', `/collections/${restName}/points/query`, {
      query: [0.5, 0.5, 0.1, 0],
      using: 'text',
      filter: {
        should: [{ key: 'city.name', match: { any: ['Lyon', 'Kyoto'] } }, { key: 'tags', match: { value: 'sale' } }],
        must_not: [{ has_id: excluded }, { key: 'tags', values_count: { gt: 1 } }],
      },
      limit: 6,
      with_payload: { include: ['city', 'big'] },
    });
    const grpcAnswer = await api().query({
      collectionName: grpcName,
      query: { variant: { case: 'nearest', value: denseInput([0.5, 0.5, 0.1, 0]) } },
      using: 'text',
      filter: filter({
        should: [field('city.name', { matchValue: { case: 'keywords', value: { strings: ['Lyon', 'Kyoto'] } } }), field('tags', keyword('sale'))],
        mustNot: [
          { conditionOneOf: { case: 'hasId', value: { hasId: excluded.map(grpcId) } } },
          { conditionOneOf: { case: 'field', value: { key: 'tags', valuesCount: { gt: 1n } } } },
        ],
      }),
      limit: 6n,
      withPayload: { selectorOptions: { case: 'include', value: { fields: ['city', 'big'] } } },
    });
    same(restAnswer.points.map(restNormal), grpcAnswer.result.map(grpcNormal));
  });

  it('equivalence — query with fusion (rrf and dbsf) over dense and sparse prefetches', async () => {
    for (const fusion of ['rrf', 'dbsf'] as const) {
      const restAnswer = await rest('POST', `/collections/${restName}/points/query`, {
        prefetch: [
          { query: [0.1, 0.9, 0.3, 0.2], using: 'text', limit: 8 },
          { query: { indices: [1, 12], values: [0.7, 0.4] }, using: 'keywords', limit: 8 },
        ],
        query: { fusion },
        limit: 6,
        with_payload: false,
      });
      const grpcAnswer = await api().query({
        collectionName: grpcName,
        prefetch: [
          { query: { variant: { case: 'nearest', value: denseInput([0.1, 0.9, 0.3, 0.2]) } }, using: 'text', limit: 8n, prefetch: [] },
          { query: { variant: { case: 'nearest', value: { variant: { case: 'sparse', value: { indices: [1, 12], values: [0.7, 0.4] } } } } }, using: 'keywords', limit: 8n, prefetch: [] },
        ],
        query: { variant: { case: 'fusion', value: fusion === 'rrf' ? Fusion.RRF : Fusion.DBSF } },
        limit: 6n,
        withPayload: withPayload(false),
      });
      same(restAnswer.points.map(restNormal), grpcAnswer.result.map(grpcNormal));
    }
  });

  it('equivalence — scroll pages (filtered) and counts', async () => {
    const restPages: Normal[][] = [];
    let restOffset: Id | undefined;
    do {
      const page = await rest('POST', `/collections/${restName}/points/scroll`, { filter: { must_not: [{ key: 'city.name', match: { value: 'Kyoto' } }] }, limit: 5, ...(restOffset === undefined ? {} : { offset: restOffset }) });
      restPages.push(page.points.map(restNormal));
      restOffset = page.next_page_offset ?? undefined;
    } while (restOffset !== undefined);
    const grpcPages: Normal[][] = [];
    let grpcOffset: any;
    do {
      const page = await api().scroll({ collectionName: grpcName, filter: filter({ mustNot: [field('city.name', keyword('Kyoto'))] }), limit: 5, offset: grpcOffset, withPayload: withPayload(true) });
      grpcPages.push(page.result.map(grpcNormal));
      grpcOffset = page.nextPageOffset;
    } while (grpcOffset !== undefined);
    expect(grpcPages.length).toBe(restPages.length);
    expect(rounded(grpcPages)).toEqual(rounded(restPages));

    const restCount = await rest('POST', `/collections/${restName}/points/count`, { filter: { must: [{ key: 'tags', match: { value: 'even' } }] }, exact: true });
    const grpcCount = await api().count({ collectionName: grpcName, filter: filter({ must: [field('tags', keyword('even'))] }), exact: true });
    expect(grpcCount.result?.count).toBe(BigInt(restCount.count));

    // A prefix match and a slice of the ids, through both doors.
    const restSliced = await rest('POST', `/collections/${restName}/points/scroll`, { filter: { must: [{ key: 'city.name', match: { prefix: 'Ly' } }, { slice: { total: 2, index: 1 } }] }, limit: 24 });
    const grpcSliced = await api().scroll({
      collectionName: grpcName,
      filter: filter({ must: [field('city.name', { matchValue: { case: 'prefix', value: 'Ly' } }), { conditionOneOf: { case: 'slice', value: { total: 2, index: 1 } } }] }),
      limit: 24,
      withPayload: withPayload(true),
    });
    same(restSliced.points.map(restNormal), grpcSliced.result.map(grpcNormal));
  });

  it('equivalence — payload paths: set under a key, delete a nested key, then the points read the same', async () => {
    const targets = [points[0]!.id, points[2]!.id];
    await rest('POST', `/collections/${restName}/points/payload?wait=true`, { payload: { zip: '0150' }, points: targets, key: 'city' });
    await rest('POST', `/collections/${restName}/points/payload/delete?wait=true`, { keys: ['city.zone'], points: targets });
    const selector = { pointsSelectorOneOf: { case: 'points' as const, value: { ids: targets.map(grpcId) } } };
    await api().setPayload({ collectionName: grpcName, wait: true, payload: grpcPayload({ zip: '0150' }), pointsSelector: selector, key: 'city' });
    await api().deletePayload({ collectionName: grpcName, wait: true, keys: ['city.zone'], pointsSelector: selector });
    const restAnswer = await rest('POST', `/collections/${restName}/points`, { ids: targets, with_payload: true });
    const grpcAnswer = await api().get({ collectionName: grpcName, ids: targets.map(grpcId), withPayload: withPayload(true) });
    same(restAnswer.map(restNormal), grpcAnswer.result.map(grpcNormal));
    expect((restAnswer[0].payload as any).city).toEqual({ name: 'Lyon', zip: '0150' });
  });

  it('equivalence — a formula query (score plus a payload term) and relevance feedback', async () => {
    const restAnswer = await rest('POST', `/collections/${restName}/points/query`, {
      prefetch: [{ query: [0.2, 0.4, 0.6, 0.1], using: 'text', limit: 10 }],
      query: { formula: { sum: ['$score', { mult: [0.01, 'price'] }] }, defaults: { price: 0 } },
      limit: 5,
    });
    const constant = (value: number) => ({ variant: { case: 'constant' as const, value } });
    const variable = (value: string) => ({ variant: { case: 'variable' as const, value } });
    const grpcAnswer = await api().query({
      collectionName: grpcName,
      prefetch: [{ query: { variant: { case: 'nearest', value: denseInput([0.2, 0.4, 0.6, 0.1]) } }, using: 'text', limit: 10n, prefetch: [] }],
      query: {
        variant: {
          case: 'formula',
          value: {
            expression: { variant: { case: 'sum', value: { sum: [variable('$score'), { variant: { case: 'mult', value: { mult: [constant(0.01), variable('price')] } } }] } } },
            defaults: grpcPayload({ price: 0 }),
          },
        },
      },
      limit: 5n,
    });
    same(restAnswer.points.map(restNormal), grpcAnswer.result.map(grpcNormal));

    const example = points[7]!.id;
    const restFeedback = await rest('POST', `/collections/${restName}/points/query`, {
      query: { relevance_feedback: { target: [0.3, 0.3, 0.3, 0.3], feedback: [{ example, score: 0.9 }], strategy: { naive: { a: 1, b: 1, c: 1 } } } },
      using: 'text',
      limit: 5,
    });
    const grpcFeedback = await api().query({
      collectionName: grpcName,
      query: {
        variant: {
          case: 'relevanceFeedback',
          value: {
            target: denseInput([0.3, 0.3, 0.3, 0.3]),
            feedback: [{ example: { variant: { case: 'id', value: grpcId(example) } }, score: 0.9 }],
            strategy: { variant: { case: 'naive', value: { a: 1, b: 1, c: 1 } } },
          },
        },
      },
      using: 'text',
      limit: 5n,
    });
    same(restFeedback.points.map(restNormal), grpcFeedback.result.map(grpcNormal));
  });

  it('equivalence — facet counts and the search matrix (pairs and offsets)', async () => {
    const restFacet = await rest('POST', `/collections/${restName}/facet`, { key: 'city.name', exact: true });
    const grpcFacet = await api().facet({ collectionName: grpcName, key: 'city.name', exact: true });
    expect(grpcFacet.hits.map((hit) => [hit.value?.variant.value, Number(hit.count)])).toEqual(restFacet.hits.map((hit: any) => [hit.value, hit.count]));

    const restPairs = await rest('POST', `/collections/${restName}/points/search/matrix/pairs`, { sample: 8, limit: 2, using: 'text' });
    const grpcPairs = await api().searchMatrixPairs({ collectionName: grpcName, sample: 8n, limit: 2n, using: 'text' });
    const text = (id: any) => String(id.pointIdOptions.value);
    expect(rounded(grpcPairs.result!.pairs.map((pair) => [text(pair.a), text(pair.b), pair.score]))).toEqual(rounded(restPairs.pairs.map((pair: any) => [String(pair.a), String(pair.b), pair.score])));
    const restOffsets = await rest('POST', `/collections/${restName}/points/search/matrix/offsets`, { sample: 8, limit: 2, using: 'text' });
    const grpcOffsets = (await api().searchMatrixOffsets({ collectionName: grpcName, sample: 8n, limit: 2n, using: 'text' })).result!;
    expect(grpcOffsets.ids.map(text)).toEqual(restOffsets.ids.map(String));
    expect(grpcOffsets.offsetsRow.map(Number)).toEqual(restOffsets.offsets_row);
    expect(grpcOffsets.offsetsCol.map(Number)).toEqual(restOffsets.offsets_col);
    expect(rounded(grpcOffsets.scores)).toEqual(rounded(restOffsets.scores));
  });

  it('equivalence — one UpdateBatch (upsert, set payload, delete) leaves both collections the same', async () => {
    const newId = 18446744073709551000n;
    await rest('POST', `/collections/${restName}/points/batch?wait=true`, {
      operations: [
        { upsert: { points: [{ id: newId, vector: { text: [0.1, 0.1, 0.1, 0.1] }, payload: { fresh: true } }] } },
        { set_payload: { payload: { batch: 1 }, points: [newId, points[1]!.id] } },
        { delete: { points: [points[2]!.id] } },
      ],
    });
    const batch = await api().updateBatch({
      collectionName: grpcName,
      wait: true,
      operations: [
        {
          operation: {
            case: 'upsert',
            value: { points: [{ id: grpcId(newId), payload: grpcPayload({ fresh: true }), vectors: { vectorsOptions: { case: 'vectors', value: { vectors: { text: { vector: { case: 'dense', value: { data: [0.1, 0.1, 0.1, 0.1] } } } } } } } }] },
          },
        },
        { operation: { case: 'setPayload', value: { payload: grpcPayload({ batch: 1 }), pointsSelector: { pointsSelectorOneOf: { case: 'points', value: { ids: [grpcId(newId), grpcId(points[1]!.id)] } } } } } },
        { operation: { case: 'deletePoints', value: { points: { pointsSelectorOneOf: { case: 'points', value: { ids: [grpcId(points[2]!.id)] } } } } } },
      ],
    });
    expect(batch.result).toHaveLength(3);
    const ids = [newId, points[1]!.id, points[2]!.id];
    const restAnswer = await rest('POST', `/collections/${restName}/points`, { ids, with_payload: true, with_vector: true });
    const grpcAnswer = await api().get({ collectionName: grpcName, ids: ids.map(grpcId), withPayload: withPayload(true), withVectors: { selectorOptions: { case: 'enable', value: true } } });
    same(restAnswer.map(restNormal), grpcAnswer.result.map(grpcNormal));
    expect(grpcAnswer.result.map((point) => String(point.id?.pointIdOptions.value))).toEqual([newId.toString(), String(points[1]!.id)]);
  });

  it('equivalence — a named vector added and removed on a live collection', async () => {
    await rest('PUT', `/collections/${restName}/vectors/extra?wait=true`, { dense: { size: 2, distance: 'Euclid' } });
    await api().createVectorName({ collectionName: grpcName, wait: true, vectorName: 'extra', vectorConfig: { case: 'denseConfig', value: { size: 2n, distance: Distance.Euclid } } });
    const restInfo = await rest('GET', `/collections/${restName}`);
    const grpcInfo = (await grpc.api('collections').get({ collectionName: grpcName })).result!;
    const vectors = grpcInfo.config?.params?.vectorsConfig?.config;
    expect(vectors?.case).toBe('paramsMap');
    const map = vectors?.case === 'paramsMap' ? vectors.value.map : {};
    expect(Object.keys(map).sort()).toEqual(Object.keys(restInfo.config.params.vectors).sort());
    expect(map.extra?.distance).toBe(Distance.Euclid);
    await rest('DELETE', `/collections/${restName}/vectors/extra?wait=true`);
    await api().deleteVectorName({ collectionName: grpcName, wait: true, vectorName: 'extra' });
    const after = (await grpc.api('collections').get({ collectionName: grpcName })).result!.config?.params?.vectorsConfig?.config;
    expect(after?.case === 'paramsMap' ? Object.keys(after.value.map) : []).toEqual(['text']);
  });

  it('equivalence — gRPC reads of the REST-written collection equal REST reads of it', async () => {
    const restAnswer = await rest('POST', `/collections/${restName}/points/query`, { query: [0.9, 0.1, 0.1, 0.1], using: 'text', limit: 24, with_payload: true, with_vector: true });
    const grpcAnswer = await api().query({ collectionName: restName, query: { variant: { case: 'nearest', value: denseInput([0.9, 0.1, 0.1, 0.1]) } }, using: 'text', limit: 24n, withPayload: withPayload(true), withVectors: { selectorOptions: { case: 'enable', value: true } } });
    same(restAnswer.points.map(restNormal), grpcAnswer.result.map(grpcNormal));
  });
});
