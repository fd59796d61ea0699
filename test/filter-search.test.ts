// Filtered nearest-neighbour search through the Collection's nearest primitive: the planner's
// bitset, given to the kernel as `allowed`, must yield exactly the nearest points among those the
// filter accepts (exact scan), and a graph search must never return a point the filter rejects.
import { describe, expect, it } from 'vitest';
import { allowedSlots } from '../src/filter/collection-filters.js';
import { mulberry32 } from './support/seeded-random.js';
import { serverForFile } from './support/server.js';

const dimension = 8;
const pointCount = 5_000;

const vectors: number[][] = [];
const tags: string[][] = [];

const server = serverForFile({
  setUp: async () => {
    const random = mulberry32(2024);
    for (let id = 0; id < pointCount; id += 1) {
      vectors.push(Array.from({ length: dimension }, () => random()));
      // Position in [0, 100): tag "one" on 1% of points, "ten" on 10%, "half" on 50%.
      const position = (id * 37) % 100;
      tags.push([...(position < 1 ? ['one'] : []), ...(position < 10 ? ['ten'] : []), ...(position < 50 ? ['half'] : [])]);
    }
    for (const name of ['plain', 'indexed']) {
      await server.client.createCollection(name, { vectors: { size: dimension, distance: 'Euclid' } });
      if (name === 'indexed') await server.client.createPayloadIndex(name, { wait: true, field_name: 'tag', field_schema: 'keyword' });
      for (let start = 0; start < pointCount; start += 2_500) {
        const ids = Array.from({ length: 2_500 }, (_, offset) => start + offset);
        await server.client.upsert(name, { wait: true, batch: { ids, vectors: ids.map((id) => vectors[id]!), payloads: ids.map((id) => ({ tag: tags[id]! })) } });
      }
    }
  },
});

function bruteForce(query: number[], accepted: (id: number) => boolean, k: number): number[] {
  const scored: { id: number; distance: number }[] = [];
  for (let id = 0; id < pointCount; id += 1) {
    if (!accepted(id)) continue;
    const distance = Math.sqrt(vectors[id]!.reduce((sum, value, position) => sum + (value - query[position]!) ** 2, 0));
    scored.push({ id, distance });
  }
  return scored.sort((left, right) => left.distance - right.distance).slice(0, k).map((item) => item.id);
}

describe('filtered nearest == exact nearest over the accepted points', () => {
  const cases: [string, string][] = [];
  for (const name of ['plain', 'indexed']) for (const tag of ['one', 'ten', 'half']) cases.push([name, tag]);

  it.each(cases)('%s collection, tag %s', async (name, tag) => {
    const collection = server.app.collections.get(name);
    const filter = { must: [{ key: 'tag', match: { value: tag } }] };
    const allowed = allowedSlots(collection, filter, 'filter');
    const accepted = (id: number) => tags[id]!.includes(tag);
    const expectedCount = tags.filter((list) => list.includes(tag)).length;
    expect(allowed.size).toBe(expectedCount);
    const random = mulberry32(tag.length * 31 + name.length);
    let recalled = 0;
    for (let round = 0; round < 5; round += 1) {
      const query = Array.from({ length: dimension }, () => random());
      const expected = bruteForce(query, accepted, 10);
      const exact = await collection.nearest('', Float32Array.from(query), 10, { allowed: allowed.toBytes(), exact: true });
      expect(exact.points.map((entry) => entry.id)).toEqual(expected);
      const graph = await collection.nearest('', Float32Array.from(query), 10, { allowed: allowed.toBytes() });
      for (const entry of graph.points) expect(accepted(entry.id as number)).toBe(true);
      recalled += graph.points.filter((entry) => expected.includes(entry.id as number)).length;
    }
    expect(recalled / 50).toBeGreaterThanOrEqual(0.9);
  });
});

describe('filtered searches in flight together', () => {
  it('concurrent filtered searches each answer from their own filter while filter memory is reused between them', async () => {
    // Each request's filter sets go back for reuse when it has answered (src/points/slot-set.ts):
    // with many in flight at once and filters of different sizes, a set given back too early
    // would show here as a point of another filter, or a missing one.
    const filters: [string, (id: number) => boolean, unknown][] = [
      ['one', (id) => tags[id]!.includes('one'), { must: [{ key: 'tag', match: { value: 'one' } }] }],
      ['ten', (id) => tags[id]!.includes('ten'), { must: [{ key: 'tag', match: { value: 'ten' } }] }],
      ['not half', (id) => !tags[id]!.includes('half'), { must_not: [{ key: 'tag', match: { value: 'half' } }] }],
      ['one or half', (id) => tags[id]!.includes('one') || tags[id]!.includes('half'), { should: [{ key: 'tag', match: { value: 'one' } }, { key: 'tag', match: { value: 'half' } }] }],
    ];
    const random = mulberry32(77);
    const asked = Array.from({ length: 120 }, (_, position) => ({ query: Array.from({ length: dimension }, () => random()), filter: filters[position % filters.length]! }));
    for (const name of ['plain', 'indexed']) {
      const answers = await Promise.all(
        asked.map(({ query, filter }) => server.request('POST', `/collections/${name}/points/search`, { vector: query, filter: filter[2], limit: 10, params: { exact: true } })),
      );
      answers.forEach((answer, position) => {
        const { query, filter } = asked[position]!;
        expect(answer.status).toBe(200);
        const ids = (answer.body.result as { id: number }[]).map((point) => point.id);
        expect([name, filter[0], ids]).toEqual([name, filter[0], bruteForce(query, filter[1], 10)]);
      });
    }
  });
});
