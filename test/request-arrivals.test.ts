// The server tells the inline-search gate as each request begins (src/http/request-arrivals.ts):
// REST requests, refused and unmatched ones, and calls through the gRPC door all count, so that a
// second request read in the same turn of the event loop sends its search to the kernel pool
// (src/native/inline-search.ts, whose own rules are in inline-search.test.ts).
import { describe, expect, it } from 'vitest';
import { requestsBegunSoFar } from '../src/native/index.js';
import { startGrpcServer } from './grpc/grpc-server.js';

describe('request arrivals', () => {
  it('request arrivals — every REST request and every gRPC call begins one request for the inline gate', async () => {
    const server = await startGrpcServer();
    try {
      await server.request('PUT', '/collections/arrivals', { vectors: { size: 2, distance: 'Dot' } });
      await server.request('PUT', '/collections/arrivals/points?wait=true', { points: [{ id: 1, vector: [1, 0] }] });
      const before = requestsBegunSoFar();
      expect((await server.request('POST', '/collections/arrivals/points/search', { vector: [1, 0], limit: 1 })).status).toBe(200);
      expect((await server.request('PUT', '/collections/arrivals/points', { points: 'none' })).status).toBe(400);
      expect((await server.request('GET', '/no/such/route')).status).toBe(404);
      expect(requestsBegunSoFar() - before).toBe(3);
      const points = server.grpc.api('points');
      const answers = await Promise.all([1, 2].map(() => points.search({ collectionName: 'arrivals', vector: [1, 0], limit: 1n })));
      expect(answers.map((answer) => answer.result.length)).toEqual([1, 1]);
      expect(requestsBegunSoFar() - before).toBe(5);
    } finally {
      await server.stop();
    }
  });
});
