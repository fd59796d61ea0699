// Back-pressure on writes (docs/api.md §8, §1.2): a collection's write queue holds at most
// limits.max_queued_writes writes; beyond that a write is refused with a 503 in the error envelope
// and a Retry-After header, nothing of it is applied, and reads keep being answered meanwhile.
// The kernel is held back (as a busy kernel would be) so the queue fills deterministically.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdKernelUpdates } from './support/base-points.js';
import { clientStatus, expectError, expectSuccess, expectWriteResult } from './support/envelope.js';
import { dataDirectoriesForFile, startServer, type TestServer } from './support/server.js';

const newDirectory = dataDirectoriesForFile();
const capacity = 3;
const fullMessage = /^Service unavailable: the collection's write queue is full \(3 writes waiting\), retry after 1 s$/;

let server: TestServer;

beforeAll(async () => {
  server = await startServer(await newDirectory(), { limits: { max_queued_writes: capacity } });
});
afterAll(async () => {
  await server?.close();
});

function point(id: number): { id: number; vector: number[]; payload: { id: number } } {
  return { id, vector: [1, id, 0, 0], payload: { id } };
}

/** The ids stored in `name`, ascending: what the slow reference (a plain set) is compared with. */
async function storedIds(name: string): Promise<number[]> {
  const result = expectSuccess(await server.request('POST', `/collections/${name}/points/scroll`, { limit: 1000 }));
  return (result.points as { id: number }[]).map((entry) => entry.id);
}

/** Starts `capacity` upserts of one point each (wait=true) that stay queued while the kernel is held. */
async function fillQueue(name: string, firstId: number): Promise<Promise<{ status: number; body: any; text: string }>[]> {
  const writes = Array.from({ length: capacity }, (_, offset) =>
    server.request('PUT', `/collections/${name}/points?wait=true`, { points: [point(firstId + offset)] }),
  );
  // The writes reach the queue once their bodies are parsed; wait until all are in line.
  const collection = server.app.collections.get(name);
  for (let attempt = 0; attempt < 200; attempt++) {
    const info = collection.info() as { update_queue: { length: number } };
    if (info.update_queue.length >= capacity) break;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return writes;
}

describe('bounded write queue', () => {
  it('write queue — a write beyond max_queued_writes gets a 503 with Retry-After in the envelope; reads are still served', async () => {
    const name = 'queue_raw';
    expectSuccess(await server.request('PUT', `/collections/${name}`, { vectors: { size: 4, distance: 'Dot' } }));
    const expected = new Set<number>();
    const release = holdKernelUpdates(server, name);
    const queued = await fillQueue(name, 1);
    for (let id = 1; id <= capacity; id++) expected.add(id);

    const response = await fetch(`${server.url}/collections/${name}/points?wait=true`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ points: [point(100)] }),
    });
    expect(response.headers.get('retry-after')).toBe('1');
    const text = await response.text();
    expectError({ status: response.status, body: JSON.parse(text), text }, 503, fullMessage);
    // Every client write kind is refused the same way: delete, payload, batch.
    expectError(await server.request('POST', `/collections/${name}/points/delete?wait=true`, { points: [1] }), 503, fullMessage);
    expectError(await server.request('POST', `/collections/${name}/points/payload?wait=true`, { payload: { x: 1 }, points: [1] }), 503, fullMessage);
    expectError(
      await server.request('POST', `/collections/${name}/points/batch?wait=true`, { operations: [{ upsert: { points: [point(101)] } }] }),
      503,
      fullMessage,
    );

    // Reads do not wait for the writes: search, scroll and count answer while the queue is full.
    const hits = expectSuccess(await server.request('POST', `/collections/${name}/points/search`, { vector: [1, 0, 0, 0], limit: 10 }));
    expect(Array.isArray(hits)).toBe(true);
    expectSuccess(await server.request('POST', `/collections/${name}/points/count`, {}));

    release();
    for (const write of await Promise.all(queued)) expectWriteResult(expectSuccess(write), true);
    // Room again: the next write is accepted, and nothing of the refused ones was applied.
    expectWriteResult(expectSuccess(await server.request('PUT', `/collections/${name}/points?wait=true`, { points: [point(4)] })), true);
    expected.add(4);
    expect(await storedIds(name)).toEqual([...expected].sort((a, b) => a - b));
    const payload = expectSuccess(await server.request('GET', `/collections/${name}/points/1`)).payload;
    expect(payload).toEqual({ id: 1 });
  });

  it('write queue — the official client sees the 503 and its message, and succeeds once the queue drains', async () => {
    const name = 'queue_client';
    await server.client.createCollection(name, { vectors: { size: 4, distance: 'Dot' } });
    const release = holdKernelUpdates(server, name);
    const queued = await fillQueue(name, 10);
    const refused = await clientStatus(server.client.upsert(name, { wait: true, points: [point(200)] }));
    expect(refused.status).toBe(503);
    expect(refused.data.status.error).toMatch(fullMessage);
    release();
    await Promise.all(queued);
    const accepted = await server.client.upsert(name, { wait: true, points: [point(13)] });
    expect(accepted.status).toBe('completed');
    expect(await storedIds(name)).toEqual([10, 11, 12, 13]);
  });

  it('write queue — acknowledged writes (wait=false) hold their place until the kernel has them', async () => {
    const name = 'queue_nowait';
    expectSuccess(await server.request('PUT', `/collections/${name}`, { vectors: { size: 4, distance: 'Dot' } }));
    const release = holdKernelUpdates(server, name);
    const first = await server.request('PUT', `/collections/${name}/points?wait=false`, { points: [point(1)] });
    // Acknowledged (durable) while its kernel update is still held: it still occupies the queue.
    expectWriteResult(expectSuccess(first), false);
    const rest = [2, 3].map((id) => server.request('PUT', `/collections/${name}/points?wait=false`, { points: [point(id)] }));
    const collection = server.app.collections.get(name);
    for (let attempt = 0; attempt < 200 && (collection.info() as { update_queue: { length: number } }).update_queue.length < capacity; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expectError(await server.request('PUT', `/collections/${name}/points?wait=false`, { points: [point(50)] }), 503, fullMessage);
    release();
    for (const write of await Promise.all(rest)) expectWriteResult(expectSuccess(write), false);
    await collection.drain();
    expect(await storedIds(name)).toEqual([1, 2, 3]);
  });
});
