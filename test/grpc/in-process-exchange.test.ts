// The gRPC door hands bodies and success envelopes to the REST routes as values
// (src/http/in-process-exchange.ts): no call leaves its exchange behind, a route answers an
// exchanging caller with an empty body, and a client cannot use the exchange from outside.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Code } from '@connectrpc/connect';
import { closeExchange, exchangeContentType, exchangeHeader, openExchange, openExchangeCount } from '../../src/http/in-process-exchange.js';
import { grpcFailure as failure } from './grpc-failure.js';
import { startGrpcServer, type GrpcTestServer } from './grpc-server.js';

let server: GrpcTestServer;
const collectionName = 'grpc_exchange';
const numericId = (value: bigint) => ({ pointIdOptions: { case: 'num' as const, value } });
const denseVectors = (data: number[]) => ({ vectorsOptions: { case: 'vector' as const, value: { vector: { case: 'dense' as const, value: { data } } } } });

beforeAll(async () => {
  server = await startGrpcServer();
  await server.request('PUT', `/collections/${collectionName}`, { vectors: { size: 3, distance: 'Dot' } });
  await server.request('PUT', `/collections/${collectionName}/points?wait=true`, {
    points: [
      { id: 1, vector: [1, 0, 0], payload: { colour: 'red' } },
      { id: 2, vector: [0, 1, 0], payload: { colour: 'blue' } },
    ],
  });
});
afterAll(async () => {
  await server.stop();
});

describe('in-process exchange', () => {
  it('every gRPC call closes its exchange, whether it is answered or refused', async () => {
    const points = server.grpc.api('points');
    const found = await points.search({ collectionName, vector: [1, 0, 0], limit: 2n, withPayload: { selectorOptions: { case: 'enable', value: true } } });
    expect(found.result.map((point) => point.id?.pointIdOptions.value)).toEqual([1n, 2n]);
    expect(found.result[0]!.payload.colour?.kind).toEqual({ case: 'stringValue', value: 'red' });
    const refused = await failure(points.upsert({ collectionName, wait: true, points: [{ id: numericId(3n), vectors: denseVectors([1, 2]) }] }));
    expect(refused.code).toBe(Code.InvalidArgument);
    const missing = await failure(server.grpc.api('collections').get({ collectionName: 'nowhere' }));
    expect(missing.code).toBe(Code.NotFound);
    expect(openExchangeCount()).toBe(0);
  });

  it('a route leaves its success envelope for an exchanging caller and answers it with an empty body', async () => {
    const token = openExchange({ vector: [0, 1, 0], limit: 1 });
    const response = await server.app.inject({
      method: 'POST',
      url: `/collections/${collectionName}/points/search`,
      headers: { [exchangeHeader]: token, 'content-type': exchangeContentType },
    });
    const envelope = closeExchange(token) as { status: string; result: Array<{ id: number }> };
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe('');
    expect(envelope.status).toBe('ok');
    expect(envelope.result.map((point) => point.id)).toEqual([2]);
  });

  it('a client sending the exchange body type with a made-up token gets the unsupported-body 400, and nothing is written', async () => {
    const response = await fetch(`${server.url}/collections/${collectionName}/points?wait=true`, {
      method: 'PUT',
      headers: { 'content-type': exchangeContentType, [exchangeHeader]: 'guessed.1' },
      body: JSON.stringify({ points: [{ id: 9, vector: [1, 1, 1] }] }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { status: { error: string } }).status.error).toBe(`Unsupported Content-Type "${exchangeContentType}": send application/json`);
    const count = await server.request('POST', `/collections/${collectionName}/points/count`, { exact: true });
    expect(count.body.result.count).toBe(2);
  });

  it('a body the JSON codec would refuse is refused through the exchange with the same message', async () => {
    let deep: unknown = 1;
    for (let level = 0; level < 300; level += 1) deep = { inner: deep };
    const token = openExchange({ points: [{ id: 5, vector: [1, 1, 1], payload: { deep } }] });
    const response = await server.app.inject({
      method: 'PUT',
      url: `/collections/${collectionName}/points?wait=true`,
      headers: { [exchangeHeader]: token, 'content-type': exchangeContentType },
    });
    closeExchange(token);
    expect(response.statusCode).toBe(400);
    expect((JSON.parse(response.body) as { status: { error: string } }).status.error).toBe('Format error in JSON body: the body is nested deeper than 256 levels');
  });
});
