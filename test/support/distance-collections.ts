// A server for one test file with one collection per distance (named after it), each holding the
// same vectors with a `group` payload (id % 3), and the query call the tests share.
import { upsertAll, type DistanceName } from './search-data.js';
import { serverForFile, type FileServer } from './server.js';

export const allDistances: DistanceName[] = ['Cosine', 'Euclid', 'Dot', 'Manhattan'];

export function serverWithDistanceCollections(dimension: number, vectors: number[][]): FileServer {
  const server = serverForFile({
    setUp: async () => {
      for (const distance of allDistances) {
        await server.request('PUT', `/collections/${distance}`, { vectors: { size: dimension, distance } });
        await upsertAll(
          server.request,
          distance,
          vectors.map((vector, id) => ({ id, vector, payload: { group: id % 3 } })),
        );
      }
    },
  });
  return server;
}

export interface Hit {
  id: number;
  score: number;
}

/** POST C/points/query's points; anything but a 200 throws with the answer. */
export async function queryPointHits(server: FileServer, collection: string, body: unknown): Promise<Hit[]> {
  const response = await server.request('POST', `/collections/${collection}/points/query`, body);
  if (response.status !== 200) throw new Error(`query failed: ${response.status} ${response.text}`);
  return response.body.result.points;
}
