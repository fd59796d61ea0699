// Property-based fuzzing of every registered route (docs/api.md §1): generated hostile bodies,
// query strings, path parameters and headers, plus requests node's parser refuses, sent as raw
// bytes. Seeded and bounded; the long run is `npm run fuzz` (bench/fuzz/main.ts).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostileRequest, judge, registeredRoutes, seedFuzzCollection, sendRaw, type Route, type Verdict } from './support/hostile-requests.js';
import { makeDataDirectory, removeDataDirectory, startServer, type TestServer } from './support/server.js';

let server: TestServer;
let directory: string;
let port: number;
let routes: Route[];

beforeAll(async () => {
  directory = await makeDataDirectory();
  server = await startServer(directory);
  port = Number(new URL(server.url).port);
  routes = registeredRoutes(server.app);
  await seedFuzzCollection(server.url);
});

afterAll(async () => {
  await server.close();
  await removeDataDirectory(directory);
});

describe('fuzz — every hostile request is answered in the envelope', () => {
  it('fuzz — the route list comes from the server and holds every route family', () => {
    const urls = new Set(routes.map((route) => `${route.method} ${route.url}`));
    expect(urls.has('POST /collections/:collection_name/points/query')).toBe(true);
    expect(urls.has('PATCH /collections/:collection_name')).toBe(true);
    expect(urls.has('POST /auth/login')).toBe(true);
    expect(urls.has('GET /')).toBe(true);
    expect(routes.length).toBeGreaterThan(60);
  });

  it('fuzz — no 5xx, no answer outside the envelope, and the server still answers after', async () => {
    const failures: { verdict: Verdict; request: string; status?: number; body?: string }[] = [];
    const reached = new Set<string>();
    let sent = 0;
    await fc.assert(
      fc.asyncProperty(hostileRequest(routes), async (request) => {
        // Deletes and payload clears wear the seed points away: restore them now and then.
        if (++sent % 250 === 0) await seedFuzzCollection(server.url);
        const answer = await sendRaw(port, request);
        reached.add(`${request.route.method} ${request.route.url}`);
        const verdict = judge(request, answer);
        if (verdict !== 'ok') {
          failures.push({ verdict, request: `${request.method} ${request.target.slice(0, 200)} ${request.body?.slice(0, 200) ?? ''}`, status: answer?.status, body: answer?.body.slice(0, 300) });
        }
        return true;
      }),
      { seed: 18_2026, numRuns: 2500, endOnFailure: true },
    );
    expect(failures.slice(0, 10)).toEqual([]);
    // Nearly every route was hit (the broken requests count as one more).
    expect(reached.size).toBeGreaterThan(routes.length * 0.9);
    const after = await server.request('GET', '/collections/fuzz');
    expect(after.status).toBe(200);
  }, 110_000);
});
