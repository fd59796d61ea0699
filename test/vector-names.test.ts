// Named-vector management (docs/api.md §4.5): PUT / DELETE C/vectors/{vector_name} on an
// existing collection, through raw HTTP and the official client, durable across a restart, with
// the points checked against the slow reference of support/write-reference.ts.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startChildServer, waitUntilReady } from './support/child-server.js';
import { dataDirectoriesForFile, startServer, type TestServer } from './support/server.js';
import { WriteReference, type Vectors } from './support/write-reference.js';
import { call } from './support/http-call.js';

const newDirectory = dataDirectoriesForFile();

async function stored(server: TestServer, name: string, ids: number[]): Promise<unknown[]> {
  const response = await server.request('POST', `/collections/${name}/points`, { ids, with_payload: true, with_vector: true });
  expect(response.status).toBe(200);
  return (response.body.result as { id: number; payload: unknown; vector: unknown }[])
    .map((record) => ({ id: record.id, payload: record.payload, vector: record.vector }))
    .sort((a, b) => a.id - b.id);
}

async function vectorFiles(directory: string): Promise<string[]> {
  const found: string[] = [];
  for (const collection of await readdir(join(directory, 'collections'))) {
    for (const file of await readdir(join(directory, 'collections', collection))) if (file.startsWith('vector-')) found.push(file);
  }
  return found.sort();
}


const hex = (name: string) => `vector-${Buffer.from(name).toString('hex')}.qvi`;

describe('named vectors on an existing collection', () => {
  it('vector names — an added vector starts empty, takes writes, survives a restart; a removed one takes its vectors, index and file with it', async () => {
    const directory = await newDirectory();
    let server = await startServer(directory);
    const reference = new WriteReference();
    const points: { id: number; vector: Vectors; payload: Record<string, unknown> }[] = [
      { id: 1, vector: { text: [1, 0, 0] }, payload: { n: 1 } },
      { id: 2, vector: { text: [0, 1, 0] }, payload: { n: 2 } },
    ];
    expect((await server.request('PUT', '/collections/vn', { vectors: { text: { size: 3, distance: 'Dot' } } })).status).toBe(200);
    expect((await server.request('PUT', '/collections/vn/points?wait=true', { points })).status).toBe(200);
    reference.upsert(points);

    const added = await server.request('PUT', '/collections/vn/vectors/image?wait=true', { dense: { size: 2, distance: 'Euclid' } });
    expect(added.status).toBe(200);
    expect(added.body.result).toEqual({ operation_id: expect.any(Number), status: 'completed' });
    const info = await server.request('GET', '/collections/vn');
    expect(info.body.result.config.params.vectors).toEqual({ text: { size: 3, distance: 'Dot' }, image: { size: 2, distance: 'Euclid' } });
    expect(await stored(server, 'vn', [1, 2])).toEqual(reference.records());

    await server.client.updateVectors('vn', { wait: true, points: [{ id: 1, vector: { image: [3, 4] } }] });
    reference.updateVectors([{ id: 1, vector: { image: [3, 4] } }]);
    const search = await server.request('POST', '/collections/vn/points/search', { vector: { name: 'image', vector: [3, 4] }, limit: 5 });
    expect(search.body.result.map((point: { id: number }) => point.id)).toEqual([1]);

    // A checkpoint now, so the removed vector's file exists and recovery would have one to load.
    await server.close();
    expect(await vectorFiles(directory)).toEqual([hex('image'), hex('text')].sort());
    server = await startServer(directory);
    expect(await stored(server, 'vn', [1, 2])).toEqual(reference.records());

    const removed = await server.client.deleteVectorName('vn', 'text', { wait: true });
    expect(removed.status).toBe('completed');
    for (const id of [1, 2]) delete reference.points.get(id)!.vectors.text;
    expect(await stored(server, 'vn', [1, 2])).toEqual(reference.records());
    expect(await vectorFiles(directory)).toEqual([hex('image')]);
    const gone = await server.request('POST', '/collections/vn/points/search', { vector: { name: 'text', vector: [1, 0, 0] }, limit: 5 });
    expect(gone.status).toBe(400);

    // Back under the same name (official client): no point has it, before or after a restart.
    await server.client.createVectorName('vn', 'text', { dense: { size: 3, distance: 'Cosine' } });
    expect(await stored(server, 'vn', [1, 2])).toEqual(reference.records());
    await server.close();
    server = await startServer(directory);
    const infoAfter = await server.request('GET', '/collections/vn');
    expect(infoAfter.body.result.config.params.vectors).toEqual({ image: { size: 2, distance: 'Euclid' }, text: { size: 3, distance: 'Cosine' } });
    expect(await stored(server, 'vn', [1, 2])).toEqual(reference.records());
    expect(infoAfter.body.result.points_count).toBe(2);
    await server.close();
  }, 60_000);

  it('vector names — a removal survives SIGKILL: the log replays it over a checkpoint that still had the vectors', async () => {
    const directory = await newDirectory();
    let child = await startChildServer(directory);
    try {
      await waitUntilReady(child.url);
      await call(child.url, 'PUT', '/collections/vr', { vectors: { a: { size: 2, distance: 'Euclid' }, b: { size: 2, distance: 'Euclid' } } });
      await call(child.url, 'PUT', '/collections/vr/points?wait=true', { points: [{ id: 1, vector: { a: [1, 1], b: [2, 2] } }] });
      await child.kill('SIGTERM'); // a clean stop: checkpoint files with both vectors
      child = await startChildServer(directory);
      await waitUntilReady(child.url);
      expect((await call(child.url, 'DELETE', '/collections/vr/vectors/b')).status).toBe(200);
      expect((await call(child.url, 'PUT', '/collections/vr/vectors/b', { dense: { size: 2, distance: 'Euclid' } })).status).toBe(200);
      await child.kill('SIGKILL');
      child = await startChildServer(directory);
      await waitUntilReady(child.url);
      const records = await call(child.url, 'POST', '/collections/vr/points', { ids: [1], with_vector: true });
      expect(records.body.result).toEqual([{ id: 1, payload: {}, vector: { a: [1, 1] } }]);
      const search = await call(child.url, 'POST', '/collections/vr/points/search', { vector: { name: 'b', vector: [2, 2] }, limit: 5 });
      expect(search.body.result).toEqual([]);
      const info = await call(child.url, 'GET', '/collections/vr');
      expect(Object.keys(info.body.result.config.params.vectors).sort()).toEqual(['a', 'b']);
    } finally {
      await child.kill('SIGKILL');
    }
  }, 120_000);

  it('vector names — bad requests are 400s naming the field, and change nothing', async () => {
    const directory = await newDirectory();
    const server = await startServer(directory, { limits: { max_vector_size: 64 } });
    await server.request('PUT', '/collections/bad', { vectors: { text: { size: 3, distance: 'Dot' } } });
    await server.request('PUT', '/collections/single', { vectors: { size: 3, distance: 'Dot' } });
    const cases: [string, string, unknown, number, RegExp][] = [
      ['PUT', '/collections/bad/vectors/text', { dense: { size: 3, distance: 'Dot' } }, 400, /vector_name: vector text already exists/],
      ['PUT', '/collections/bad/vectors/x', { dense: { size: 65, distance: 'Dot' } }, 400, /dense\.size/],
      ['PUT', '/collections/bad/vectors/x', { dense: { size: 3, distance: 'Dot', datatype: 'int8' } }, 400, /datatype/],
      ['PUT', '/collections/bad/vectors/x', { dense: { size: 3, distance: 'Dot', multivector_config: { comparator: 'min_sim' } } }, 400, /multivector_config/],
      ['PUT', '/collections/bad/vectors/x', { dense: { size: 3, distance: 'Dot', datatype: 'float16', multivector_config: { comparator: 'max_sim' } } }, 400, /dense\.datatype/],
      ['PUT', '/collections/bad/vectors/x', { dense: { size: 3 } }, 400, /distance/],
      ['PUT', '/collections/bad/vectors/x', { size: 3, distance: 'Dot' }, 400, /body/],
      ['PUT', '/collections/single/vectors/x', { dense: { size: 3, distance: 'Dot' } }, 400, /unnamed vector/],
      ['DELETE', '/collections/bad/vectors/nope', undefined, 400, /Not existing vector name error: nope/],
      ['DELETE', '/collections/single/vectors/x', undefined, 400, /Not existing vector name/],
      ['PUT', '/collections/missing/vectors/x', { dense: { size: 3, distance: 'Dot' } }, 404, /missing/],
    ];
    for (const [method, path, body, status, message] of cases) {
      const response = await server.request(method, path, body);
      expect(response.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(status);
      expect(response.body.status.error).toMatch(message);
    }
    const info = await server.request('GET', '/collections/bad');
    expect(info.body.result.config.params.vectors).toEqual({ text: { size: 3, distance: 'Dot' } });
    await server.close();
  });

  it('vector names — a sparse vector is added to the configuration as sparse_vectors', async () => {
    const directory = await newDirectory();
    const server = await startServer(directory);
    await server.request('PUT', '/collections/sp', { vectors: { size: 3, distance: 'Dot' } });
    await server.client.createVectorName('sp', 'keywords', { sparse: { modifier: 'idf' } });
    const info = await server.client.getCollection('sp');
    expect(info.config.params.sparse_vectors).toEqual({ keywords: { modifier: 'idf' } });
    await server.client.deleteVectorName('sp', 'keywords');
    const after = await server.client.getCollection('sp');
    expect(after.config.params.sparse_vectors ?? {}).toEqual({});
    await server.close();
  });
});
