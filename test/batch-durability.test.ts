// Durability of POST .../points/batch (docs/api.md §10): a batch is one logged store write, so a
// restart (clean, or after SIGKILL at any moment) shows every acknowledged batch whole and the
// batch in flight at the kill either whole or not at all, never in part. Checked against the
// slow reference of support/write-reference.ts.
import { afterAll, describe, expect, it } from 'vitest';
import { startChildServer, waitUntilReady, type ChildServer } from './support/child-server.js';
import { makeDataDirectory, removeDataDirectory, startServer } from './support/server.js';
import { WriteReference } from './support/write-reference.js';
import { call } from './support/http-call.js';

const collection = 'batches';
const perBatch = 12;

let child: ChildServer | undefined;
let directory: string | undefined;

afterAll(async () => {
  await child?.kill('SIGKILL');
  if (directory) await removeDataDirectory(directory);
});


/**
 * Batch `number`: new points, a payload edit on them, a vector removed from one, and the first
 * point of the previous batch deleted. Each part alone would be visible, so a half-applied
 * batch could not go unnoticed.
 */
function batchOf(number: number) {
  const ids = Array.from({ length: perBatch }, (_, position) => number * perBatch + position + 1);
  const points = ids.map((id) => ({ id, vector: { a: [id, 1], b: [1, -id] }, payload: { batch: number } }));
  const previousFirst = (number - 1) * perBatch + 1;
  const operations = [
    { upsert: { points } },
    { set_payload: { points: ids, payload: { done: true } } },
    { delete_vectors: { points: [ids[1]!], vector: ['b'] } },
    ...(number > 0 ? [{ delete: { points: [previousFirst] } }] : []),
  ];
  const apply = (reference: WriteReference) => {
    reference.upsert(points);
    reference.setPayload({ ids }, { done: true });
    reference.deleteVectors({ ids: [ids[1]!] }, ['b']);
    if (number > 0) reference.delete({ ids: [previousFirst] });
  };
  return { operations, apply };
}

async function storedState(url: string, lastBatch: number): Promise<unknown[]> {
  const ids = Array.from({ length: (lastBatch + 1) * perBatch }, (_, position) => position + 1);
  const response = await call(url, 'POST', `/collections/${collection}/points`, { ids, with_payload: true, with_vector: true });
  expect(response.status).toBe(200);
  return (response.body.result as { id: number; payload: unknown; vector: unknown }[])
    .map((record) => ({ id: record.id, payload: record.payload, vector: record.vector }))
    .sort((a, b) => a.id - b.id);
}

describe('batch durability', () => {
  it('restart — a batch written with wait=false is whole after a clean restart, and the vector indexes agree', async () => {
    const cleanDirectory = await makeDataDirectory();
    try {
      let server = await startServer(cleanDirectory);
      await server.request('PUT', `/collections/${collection}`, { vectors: { a: { size: 2, distance: 'Euclid' }, b: { size: 2, distance: 'Dot' } } });
      const reference = new WriteReference();
      for (const number of [0, 1, 2]) {
        const batch = batchOf(number);
        const response = await server.client.batchUpdate(collection, { wait: false, operations: batch.operations });
        expect(response.map((result) => result.status)).toEqual(batch.operations.map(() => 'acknowledged'));
        batch.apply(reference);
      }
      await server.close();
      server = await startServer(cleanDirectory);
      expect(await storedState(server.url, 2)).toEqual(reference.records());
      for (const record of reference.records()) {
        const found = await server.client.query(collection, { query: record.vector.a!, using: 'a', limit: 1 });
        expect(found.points[0]!.id).toBe(record.id);
      }
      await server.close();
    } finally {
      await removeDataDirectory(cleanDirectory);
    }
  }, 60_000);

  it('restart — every acknowledged batch survives SIGKILL whole; the batch in flight is whole or absent, at several kill points', async () => {
    directory = await makeDataDirectory();
    // Frequent checkpoints so kills also land during checkpoints and log trims.
    const environment = { QUIVER__STORAGE__CHECKPOINT_OPERATIONS: '3', QUIVER__STORAGE__FSYNC: 'true' };
    let reference = new WriteReference();
    let number = 0;
    let inFlight: { apply: (reference: WriteReference) => void } | undefined;
    const killPoints: [number, number][] = [
      [4, 0],
      [2, 3],
      [5, 1],
      [3, 8],
    ];
    for (const [round, [acknowledgedBatches, killDelay_ms]] of [...killPoints, [0, -1] as [number, number]].entries()) {
      child = await startChildServer(directory, environment);
      await waitUntilReady(child.url);
      if (round === 0) {
        const created = await call(child.url, 'PUT', `/collections/${collection}`, { vectors: { a: { size: 2, distance: 'Euclid' }, b: { size: 2, distance: 'Dot' } } });
        expect(created.status).toBe(200);
      } else {
        // The batch in flight at the last kill: the state must match the reference with it or without it.
        const state = await storedState(child.url, number);
        const withIt = reference.clone();
        inFlight!.apply(withIt);
        const matches = [reference, withIt].filter((candidate) => JSON.stringify(candidate.records()) === JSON.stringify(state));
        expect(matches.length, `round ${round}: the state is neither without nor with the batch in flight`).toBeGreaterThan(0);
        reference = matches[matches.length - 1]!;
        // Vectors come back from the kernel too: a search finds the last applied batch's points.
        const last = reference.records().at(-1)!;
        const search = await call(child.url, 'POST', `/collections/${collection}/points/search`, { vector: { name: 'a', vector: last.vector.a }, limit: 1 });
        expect(search.body.result[0].id).toBe(last.id);
      }
      if (killDelay_ms < 0) break;
      for (let count = 0; count < acknowledgedBatches; count += 1) {
        const batch = batchOf(number);
        number += 1;
        const wait = count % 2 === 0;
        const response = await call(child.url, 'POST', `/collections/${collection}/points/batch?wait=${wait}`, { operations: batch.operations });
        expect(response.status).toBe(200);
        batch.apply(reference);
      }
      const pendingBatch = batchOf(number);
      number += 1;
      inFlight = pendingBatch;
      const pending = call(child.url, 'POST', `/collections/${collection}/points/batch?wait=true`, { operations: pendingBatch.operations }).then(
        (response) => response.status === 200,
        () => false,
      );
      await new Promise((resolve) => setTimeout(resolve, killDelay_ms));
      await child.kill('SIGKILL');
      if (await pending) {
        // Acknowledged: it must be there whole.
        pendingBatch.apply(reference);
        inFlight = { apply: () => undefined };
      }
    }
    await child?.kill('SIGTERM');
    child = undefined;
  }, 180_000);
});
