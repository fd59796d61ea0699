// Crash: a child server is killed with SIGKILL in the middle of a stream of wait=true upserts
// (some wait=false, several kill points, checkpoints happening during the stream). After each restart every
// acknowledged point is there with its payload and vector, and no batch is half applied.
import { afterAll, describe, expect, it } from 'vitest';
import { makeDataDirectory, removeDataDirectory } from './support/server.js';
import { startChildServer, waitUntilReady, type ChildServer } from './support/child-server.js';
import { call } from './support/http-call.js';

const batchSize = 40;
const dimension = 4;
const collection = 'crashy';

let child: ChildServer | undefined;
let directory: string | undefined;

afterAll(async () => {
  await child?.kill('SIGKILL');
  if (directory) await removeDataDirectory(directory);
});

interface Batch {
  tag: string;
  ids: number[];
}

function pointsOf(batch: Batch) {
  return batch.ids.map((id) => ({ id, vector: [id, id % 7, -id, 0.5], payload: { batch: batch.tag, id } }));
}


/** Every point of the collection, by scrolling through ids we know could exist. */
async function storedPoints(url: string, ids: number[]): Promise<Map<number, { payload: any; vector: number[] }>> {
  const found = new Map<number, { payload: any; vector: number[] }>();
  for (let start = 0; start < ids.length; start += 2000) {
    const response = await call(url, 'POST', `/collections/${collection}/points`, { ids: ids.slice(start, start + 2000), with_vector: true });
    expect(response.status).toBe(200);
    for (const record of response.body.result) found.set(record.id, { payload: record.payload, vector: record.vector });
  }
  return found;
}

describe('crash', () => {
  it('crash — SIGKILL during a stream of upserts (wait=true, some wait=false) loses no acknowledged batch and leaves no half batch, at several kill points', async () => {
    directory = await makeDataDirectory();
    const acknowledged: Batch[] = [];
    const unknown: Batch[] = [];
    // Small checkpoint interval so kills also land during checkpoints and log trims.
    const environment = { QUIVER__STORAGE__CHECKPOINT_OPERATIONS: '5', QUIVER__STORAGE__FSYNC: 'true' };
    // (batches acknowledged before the kill, delay in ms between sending the next batch and the kill)
    const killPoints: [number, number][] = [
      [3, 0],
      [8, 2],
      [5, 6],
      [12, 1],
      [6, 15],
    ];
    let nextId = 1;
    for (const [round, [batchesBeforeKill, killDelay_ms]] of killPoints.entries()) {
      child = await startChildServer(directory, environment);
      await waitUntilReady(child.url);
      if (round === 0) {
        const created = await call(child.url, 'PUT', `/collections/${collection}`, { vectors: { size: dimension, distance: 'Euclid' } });
        expect(created.status).toBe(200);
      }
      for (let count = 0; count < batchesBeforeKill; count += 1) {
        const batch: Batch = { tag: `r${round}b${count}`, ids: Array.from({ length: batchSize }, () => nextId++) };
        // Every third batch is wait=false: acknowledged once durable, before the kernel has it.
        const wait = count % 3 !== 2;
        const response = await call(child.url, 'PUT', `/collections/${collection}/points?wait=${wait}`, { points: pointsOf(batch) });
        expect(response.status).toBe(200);
        expect(response.body.result.status).toBe(wait ? 'completed' : 'acknowledged');
        acknowledged.push(batch);
      }
      // The batch in flight at the kill: it may or may not have been written, never in part.
      const inFlight: Batch = { tag: `r${round}-inflight`, ids: Array.from({ length: batchSize }, () => nextId++) };
      const pending = call(child.url, 'PUT', `/collections/${collection}/points?wait=true`, { points: pointsOf(inFlight) }).then(
        (response) => response.status === 200,
        () => false,
      );
      await new Promise((resolve) => setTimeout(resolve, killDelay_ms));
      await child.kill('SIGKILL');
      if (await pending) acknowledged.push(inFlight);
      else unknown.push(inFlight);
    }

    child = await startChildServer(directory, environment);
    await waitUntilReady(child.url);
    const allIds = Array.from({ length: nextId - 1 }, (_, position) => position + 1);
    const stored = await storedPoints(child.url, allIds);
    for (const batch of acknowledged) {
      for (const point of pointsOf(batch)) {
        expect(stored.get(point.id), `acknowledged point ${point.id} of ${batch.tag}`).toEqual({ payload: point.payload, vector: point.vector });
      }
    }
    for (const batch of unknown) {
      const present = batch.ids.filter((id) => stored.has(id)).length;
      expect([0, batch.ids.length], `batch ${batch.tag} has ${present} of ${batch.ids.length} points`).toContain(present);
      for (const point of pointsOf(batch)) {
        if (stored.has(point.id)) expect(stored.get(point.id)).toEqual({ payload: point.payload, vector: point.vector });
      }
    }
    const info = await call(child.url, 'GET', `/collections/${collection}`);
    expect(info.body.result.points_count).toBe(stored.size);
    // Returned vectors come from the kernel (not the store): it was rebuilt or replayed correctly.
    for (const batch of acknowledged.slice(-3)) {
      const first = pointsOf(batch)[0]!;
      const records = await call(child.url, 'POST', `/collections/${collection}/points`, { ids: [first.id], with_vector: true });
      expect(records.body.result[0].vector).toEqual(first.vector);
    }
    await child.kill('SIGTERM');
    child = undefined;
  }, 120_000);
});
