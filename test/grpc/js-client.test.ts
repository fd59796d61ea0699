// @qdrant/js-client-grpc runs a whole workflow against the gRPC door (docs/api.md §14).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Distance, FieldType, Fusion, Modifier } from '@qdrant/js-client-grpc';
import { startGrpcServer, type GrpcTestServer } from './grpc-server.js';

let server: GrpcTestServer;
beforeAll(async () => {
  server = await startGrpcServer();
});
afterAll(async () => {
  await server.stop();
});

const bigId = 18446744073709551615n; // 2^64 - 1: far beyond 2^53
const uuid = '5c56c793-69f3-4fbf-87e6-c4bf54c28c26';
const num = (value: bigint) => ({ pointIdOptions: { case: 'num' as const, value } });
const uuidId = (value: string) => ({ pointIdOptions: { case: 'uuid' as const, value } });
const dense = (data: number[]) => ({ vector: { case: 'dense' as const, value: { data } } });
const sparse = (indices: number[], values: number[]) => ({ vector: { case: 'sparse' as const, value: { indices, values } } });
const keyword = (key: string, value: string) => ({ conditionOneOf: { case: 'field' as const, value: { key, match: { matchValue: { case: 'keyword' as const, value } } } } });

function idText(id: { pointIdOptions: { case?: string; value?: unknown } } | undefined): string {
  return String(id?.pointIdOptions.value);
}

describe('@qdrant/js-client-grpc against the gRPC door', () => {
  const collectionName = 'grpc_workflow';
  const points = () => server.grpc.api('points');

  it('grpc — HealthCheck answers the REST title and API version', async () => {
    const health = await server.grpc.api('service').healthCheck({});
    expect(health.title).toBe('quiverdb - vector search engine');
    expect(health.version).toBe('1.19.0');
  });

  it('grpc — create with named dense + sparse vectors, then Get describes them', async () => {
    const created = await server.grpc.api('collections').create({
      collectionName,
      vectorsConfig: { config: { case: 'paramsMap', value: { map: { text: { size: 3n, distance: Distance.Cosine } } } } },
      sparseVectorsConfig: { map: { keywords: { modifier: Modifier.Idf } } },
    });
    expect(created.result).toBe(true);
    const exists = await server.grpc.api('collections').collectionExists({ collectionName });
    expect(exists.result?.exists).toBe(true);
    const info = await server.grpc.api('collections').get({ collectionName });
    const vectors = info.result?.config?.params?.vectorsConfig?.config;
    expect(vectors?.case).toBe('paramsMap');
    if (vectors?.case === 'paramsMap') {
      expect(vectors.value.map.text?.size).toBe(3n);
      expect(vectors.value.map.text?.distance).toBe(Distance.Cosine);
    }
    expect(info.result?.config?.params?.sparseVectorsConfig?.map.keywords?.modifier).toBe(Modifier.Idf);
    const list = await server.grpc.api('collections').list({});
    expect(list.collections.map((collection) => collection.name)).toContain(collectionName);
  });

  it('grpc — upsert keeps ids above 2^53 and UUIDs exact; Get returns them with payload and vectors', async () => {
    const answer = await points().upsert({
      collectionName,
      wait: true,
      points: [
        { id: num(1n), vectors: { vectorsOptions: { case: 'vectors', value: { vectors: { text: dense([1, 0, 0]), keywords: sparse([1, 7], [1, 2]) } } } }, payload: { color: { kind: { case: 'stringValue', value: 'red' } }, rank: { kind: { case: 'integerValue', value: 9007199254740993n } } } },
        { id: num(bigId), vectors: { vectorsOptions: { case: 'vectors', value: { vectors: { text: dense([0, 1, 0]), keywords: sparse([7], [1]) } } } }, payload: { color: { kind: { case: 'stringValue', value: 'blue' } } } },
        { id: uuidId(uuid), vectors: { vectorsOptions: { case: 'vectors', value: { vectors: { text: dense([0.9, 0.1, 0]), keywords: sparse([1], [3]) } } } }, payload: { color: { kind: { case: 'stringValue', value: 'red' } } } },
        { id: num(4n), vectors: { vectorsOptions: { case: 'vectors', value: { vectors: { text: dense([0, 0, 1]) } } } }, payload: { color: { kind: { case: 'stringValue', value: 'green' } } } },
      ],
    });
    expect(answer.result?.status).toBe(2); // Completed
    const got = await points().get({
      collectionName,
      ids: [num(bigId), uuidId(uuid), num(1n)],
      withPayload: { selectorOptions: { case: 'enable', value: true } },
      withVectors: { selectorOptions: { case: 'enable', value: true } },
    });
    expect(got.result.map((point) => idText(point.id))).toEqual([bigId.toString(), uuid, '1']);
    const first = got.result[2]!;
    expect(first.payload.rank?.kind).toEqual({ case: 'integerValue', value: 9007199254740993n });
    const named = first.vectors?.vectorsOptions;
    expect(named?.case).toBe('vectors');
    if (named?.case === 'vectors') {
      expect(named.value.vectors.keywords?.vector).toMatchObject({ case: 'sparse', value: { indices: [1, 7], values: [1, 2] } });
    }
  });

  it('grpc — a keyword payload index, then a filtered query returns only matching points', async () => {
    await points().createFieldIndex({ collectionName, wait: true, fieldName: 'color', fieldType: FieldType.FieldTypeKeyword });
    const info = await server.grpc.api('collections').get({ collectionName });
    expect(Object.keys(info.result?.payloadSchema ?? {})).toContain('color');
    const answer = await points().query({
      collectionName,
      query: { variant: { case: 'nearest', value: { variant: { case: 'dense', value: { data: [1, 0, 0] } } } } },
      using: 'text',
      filter: { must: [keyword('color', 'red')], should: [], mustNot: [] },
      limit: 10n,
      withPayload: { selectorOptions: { case: 'enable', value: true } },
    });
    expect(answer.result.map((point) => idText(point.id))).toEqual(['1', uuid]);
    expect(answer.result[0]!.score).toBeCloseTo(1, 5);
  });

  it('grpc — fusion: prefetch dense and sparse, rrf merges them', async () => {
    const answer = await points().query({
      collectionName,
      prefetch: [
        { query: { variant: { case: 'nearest', value: { variant: { case: 'dense', value: { data: [0, 1, 0] } } } } }, using: 'text', limit: 3n, prefetch: [] },
        { query: { variant: { case: 'nearest', value: { variant: { case: 'sparse', value: { indices: [7], values: [1] } } } } }, using: 'keywords', limit: 3n, prefetch: [] },
      ],
      query: { variant: { case: 'fusion', value: Fusion.RRF } },
      limit: 2n,
    });
    expect(answer.result).toHaveLength(2);
    // The big id is first in both lists, so it leads the fusion.
    expect(idText(answer.result[0]!.id)).toBe(bigId.toString());
  });

  it('grpc — Search and SearchBatch on a named vector', async () => {
    const search = await points().search({ collectionName, vector: [1, 0, 0], vectorName: 'text', limit: 2n });
    expect(search.result.map((point) => idText(point.id))).toEqual(['1', uuid]);
    const batch = await points().searchBatch({ collectionName, searchPoints: [{ collectionName, vector: [0, 0, 1], vectorName: 'text', limit: 1n }] });
    expect(idText(batch.result[0]!.result[0]!.id)).toBe('4');
  });

  it('grpc — scroll pages through every point once, in id order, then count agrees', async () => {
    const seen: string[] = [];
    let offset: { pointIdOptions: { case: 'num' | 'uuid'; value: bigint | string } } | undefined;
    for (let page = 0; page < 10; page++) {
      const answer = await points().scroll({ collectionName, limit: 2, offset: offset as never });
      seen.push(...answer.result.map((point) => idText(point.id)));
      if (!answer.nextPageOffset) break;
      offset = answer.nextPageOffset as never;
    }
    expect(seen).toEqual(['1', '4', bigId.toString(), uuid]);
    const count = await points().count({ collectionName, exact: true });
    expect(count.result?.count).toBe(4n);
    const red = await points().count({ collectionName, exact: true, filter: { must: [keyword('color', 'red')], should: [], mustNot: [] } });
    expect(red.result?.count).toBe(2n);
  });

  it('grpc — payload edits: set, overwrite, delete a key, clear', async () => {
    const selector = (id: bigint) => ({ pointsSelectorOneOf: { case: 'points' as const, value: { ids: [num(id)] } } });
    await points().setPayload({ collectionName, wait: true, pointsSelector: selector(4n), payload: { size: { kind: { case: 'doubleValue', value: 1.5 } } } });
    let got = await points().get({ collectionName, ids: [num(4n)], withPayload: { selectorOptions: { case: 'enable', value: true } } });
    expect(Object.keys(got.result[0]!.payload).sort()).toEqual(['color', 'size']);
    await points().overwritePayload({ collectionName, wait: true, pointsSelector: selector(4n), payload: { only: { kind: { case: 'boolValue', value: true } } } });
    got = await points().get({ collectionName, ids: [num(4n)], withPayload: { selectorOptions: { case: 'enable', value: true } } });
    expect(Object.keys(got.result[0]!.payload)).toEqual(['only']);
    await points().deletePayload({ collectionName, wait: true, pointsSelector: selector(4n), keys: ['only'] });
    await points().setPayload({ collectionName, wait: true, pointsSelector: selector(bigId), payload: { extra: { kind: { case: 'stringValue', value: 'x' } } } });
    await points().clearPayload({ collectionName, wait: true, points: selector(bigId) });
    got = await points().get({ collectionName, ids: [num(4n), num(bigId)], withPayload: { selectorOptions: { case: 'enable', value: true } } });
    expect(got.result.map((point) => Object.keys(point.payload).length)).toEqual([0, 0]);
  });

  it('grpc — delete by filter and by id, then drop the collection', async () => {
    await points().delete({ collectionName, wait: true, points: { pointsSelectorOneOf: { case: 'filter', value: { must: [keyword('color', 'red')], should: [], mustNot: [] } } } });
    await points().delete({ collectionName, wait: true, points: { pointsSelectorOneOf: { case: 'points', value: { ids: [num(bigId)] } } } });
    const count = await points().count({ collectionName, exact: true });
    expect(count.result?.count).toBe(1n);
    const dropped = await server.grpc.api('collections').delete({ collectionName });
    expect(dropped.result).toBe(true);
    const exists = await server.grpc.api('collections').collectionExists({ collectionName });
    expect(exists.result?.exists).toBe(false);
  });
});
