// The small collection the conformance tests start from (five 4-dimensional Cosine points with
// payloads), what can be observed of a collection, and a way to hold the kernel back.
import { expectSuccess } from './envelope.js';
import type { TestServer } from './server.js';

export const dimension = 4;
export const basePoints = [
  { id: 1, vector: [1, 0, 0, 0], payload: { city: 'Berlin', rank: 1, tags: ['a', 'b'], nested: { level: 1, other: 'x' } } },
  { id: 2, vector: [0, 1, 0, 0], payload: { city: 'London', rank: 2 } },
  { id: 3, vector: [0, 0, 1, 0], payload: { city: 'Paris', rank: 3 } },
  { id: 4, vector: [0, 0, 0, 1], payload: { city: 'Rome', rank: 4 } },
  { id: 5, vector: [1, 1, 0, 0], payload: { city: 'Madrid', rank: 5 } },
];

/** Creates collection `name` and writes the base points into it. */
export async function createWithPoints(server: TestServer, name: string): Promise<void> {
  expectSuccess(await server.request('PUT', `/collections/${name}`, { vectors: { size: dimension, distance: 'Cosine' } }));
  expectSuccess(await server.request('PUT', `/collections/${name}/points?wait=true`, { points: basePoints }));
}

/** Everything observable about a collection's points: ids, payloads and vectors, by id order. */
export async function snapshot(server: TestServer, name: string): Promise<unknown> {
  const scrolled = expectSuccess(await server.request('POST', `/collections/${name}/points/scroll`, { limit: 1000, with_payload: true, with_vector: true }));
  const info = expectSuccess(await server.request('GET', `/collections/${name}`));
  return { points: scrolled.points, points_count: info.points_count, payload_schema: info.payload_schema };
}

/** Holds the kernel's vector updates back, as a busy kernel would, until the returned release. */
export function holdKernelUpdates(server: TestServer, collectionName: string): () => void {
  const index = server.app.collections.get(collectionName).vectorIndex('');
  const kernelUpsert = index.upsert.bind(index);
  let open: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  index.upsert = async (slots, vectors) => {
    await gate;
    return kernelUpsert(slots, vectors);
  };
  return () => {
    open();
    index.upsert = kernelUpsert;
  };
}
