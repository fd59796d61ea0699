// Multivectors through the gRPC door (docs/api.md §14, §20) with @qdrant/js-client-grpc:
// multivector_config at create and in Get, MultiDenseVector in upsert, VectorInput.multi_dense in
// a query, the deprecated flat form (data + vectors_count), and VectorOutput.multi_dense in Get,
// each answer checked against brute-force MaxSim.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Distance, MultiVectorComparator } from '@qdrant/js-client-grpc';
import { referenceTop, seededMatrices } from '../support/multivector-reference.js';
import { randomVectors } from '../support/search-data.js';
import { startGrpcServer, type GrpcTestServer } from './grpc-server.js';

let server: GrpcTestServer;
beforeAll(async () => {
  server = await startGrpcServer();
});
afterAll(async () => {
  await server.stop();
});

const dimension = 4;
const num = (value: bigint) => ({ pointIdOptions: { case: 'num' as const, value } });
const multiDense = (rows: number[][]) => ({ case: 'multiDense' as const, value: { vectors: rows.map((data) => ({ data })) } });

describe('multivectors through the gRPC door', () => {
  const collectionName = 'grpc_colbert';
  const documents = seededMatrices(5, 30, dimension);

  it('grpc multivector — create with multivector_config; Get describes it', async () => {
    await server.grpc.api('collections').create({
      collectionName,
      vectorsConfig: { config: { case: 'paramsMap', value: { map: { colbert: { size: BigInt(dimension), distance: Distance.Dot, multivectorConfig: { comparator: MultiVectorComparator.MaxSim } } } } } },
    });
    const info = await server.grpc.api('collections').get({ collectionName });
    const vectors = info.result?.config?.params?.vectorsConfig?.config;
    expect(vectors?.case).toBe('paramsMap');
    if (vectors?.case === 'paramsMap') expect(vectors.value.map.colbert?.multivectorConfig?.comparator).toBe(MultiVectorComparator.MaxSim);
  });

  it('grpc multivector — MultiDenseVector and the flat form upsert; a multi_dense query answers as brute-force MaxSim; Get returns multi_dense', async () => {
    const points = [...documents].map(([id, rows]) =>
      id % 2 === 0
        ? { id: num(BigInt(id)), vectors: { vectorsOptions: { case: 'vectors' as const, value: { vectors: { colbert: { vector: multiDense(rows) } } } } }, payload: {} }
        : // The deprecated flat form: all numbers in data, the row count in vectors_count.
          { id: num(BigInt(id)), vectors: { vectorsOptions: { case: 'vectors' as const, value: { vectors: { colbert: { data: rows.flat(), vectorsCount: rows.length } } } } }, payload: {} },
    );
    await server.grpc.api('points').upsert({ collectionName, wait: true, points });
    const query = randomVectors(6, 3, dimension);
    const answer = await server.grpc.api('points').query({ collectionName, query: { variant: { case: 'nearest', value: { variant: multiDense(query) } } }, using: 'colbert', limit: 5n });
    const expected = referenceTop('Dot', query, documents, 5);
    expect(answer.result.map((point) => Number(point.id?.pointIdOptions.value))).toEqual(expected.map((hit) => hit.id));
    answer.result.forEach((point, position) => expect(point.score).toBeCloseTo(expected[position]!.score, 3));
    const got = await server.grpc.api('points').get({ collectionName, ids: [num(3n)], withVectors: { selectorOptions: { case: 'enable', value: true } } });
    const output = got.result[0]?.vectors?.vectorsOptions;
    expect(output?.case).toBe('vectors');
    if (output?.case === 'vectors') {
      const colbert = output.value.vectors.colbert?.vector;
      expect(colbert?.case).toBe('multiDense');
      if (colbert?.case === 'multiDense') {
        expect(colbert.value.vectors.map((row) => row.data.map((value) => Math.round(value * 1000) / 1000))).toEqual(documents.get(3));
      }
    }
  });
});
