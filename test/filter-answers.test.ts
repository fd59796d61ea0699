// Kept filter answers (src/filter/filter-answers.ts) through the server: a filter asked again at
// the same collection state is answered from the kept set, and every change a read could see —
// new points, payload writes, deletes, removed vectors, strict mode, a collection made again —
// is in the very next answer.
import { describe, expect, it } from 'vitest';
import { allowedSlots } from '../src/filter/collection-filters.js';
import { serverForFile } from './support/server.js';

const server = serverForFile();

let collectionNumber = 0;
/** A fresh collection of ten points, colour red on the even ids and blue on the odd ones, each with an `image` vector on ids below 5. */
async function colours(): Promise<string> {
  collectionNumber += 1;
  const name = `answers-${collectionNumber}`;
  const created = await server.request('PUT', `/collections/${name}`, { vectors: { '': { size: 2, distance: 'Euclid' }, image: { size: 2, distance: 'Dot' } } });
  expect(created.status).toBe(200);
  const points = Array.from({ length: 10 }, (_, id) => ({ id, vector: { '': [id, 1], ...(id < 5 ? { image: [1, id] } : {}) }, payload: { colour: id % 2 === 0 ? 'red' : 'blue' } }));
  expect((await server.request('PUT', `/collections/${name}/points?wait=true`, { points })).status).toBe(200);
  return name;
}

/** Every id the filter accepts, through an exact filtered search (the kernel reads the kept set). */
async function idsOf(name: string, filter: unknown): Promise<number[]> {
  const answer = await server.request('POST', `/collections/${name}/points/search`, { vector: [0, 0], limit: 100, filter, params: { exact: true } });
  expect(answer.status).toBe(200);
  return (answer.body.result as { id: number }[]).map((point) => point.id).sort((left, right) => left - right);
}

/** Asks three times, so that the answer is kept (second ask) and read back (third). */
async function keptIdsOf(name: string, filter: unknown): Promise<number[]> {
  const first = await idsOf(name, filter);
  expect(await idsOf(name, filter)).toEqual(first);
  expect(await idsOf(name, filter)).toEqual(first);
  return first;
}

const red = { must: [{ key: 'colour', match: { value: 'red' } }] };

describe('kept filter answers', () => {
  it('a filter asked twice at one state is answered from one kept set, and equal text is the same filter', async () => {
    const name = await colours();
    const collection = server.app.collections.get(name);
    const first = allowedSlots(collection, red, 'filter');
    const second = allowedSlots(collection, JSON.parse(JSON.stringify(red)), 'filter');
    expect(second).not.toBe(first);
    expect(second.shared).toBe(true);
    expect(allowedSlots(collection, { must: [{ key: 'colour', match: { value: 'red' } }] }, 'filter')).toBe(second);
    expect(second.toArray()).toEqual(first.toArray());
  });

  it('a new point that matches is in the next answer', async () => {
    const name = await colours();
    expect(await keptIdsOf(name, red)).toEqual([0, 2, 4, 6, 8]);
    await server.request('PUT', `/collections/${name}/points?wait=true`, { points: [{ id: 11, vector: { '': [1, 1] }, payload: { colour: 'red' } }] });
    expect(await idsOf(name, red)).toEqual([0, 2, 4, 6, 8, 11]);
  });

  it('a payload write that ends a match, and a delete, are in the next answer', async () => {
    const name = await colours();
    expect(await keptIdsOf(name, red)).toEqual([0, 2, 4, 6, 8]);
    await server.request('POST', `/collections/${name}/points/payload?wait=true`, { payload: { colour: 'blue' }, points: [2] });
    expect(await keptIdsOf(name, red)).toEqual([0, 4, 6, 8]);
    await server.request('POST', `/collections/${name}/points/delete?wait=true`, { points: [4] });
    expect(await keptIdsOf(name, red)).toEqual([0, 6, 8]);
    await server.request('POST', `/collections/${name}/points/payload/clear?wait=true`, { points: [6] });
    expect(await idsOf(name, red)).toEqual([0, 8]);
  });

  it('a write acknowledged without wait is in the next answer once it is applied', async () => {
    const name = await colours();
    expect(await keptIdsOf(name, red)).toEqual([0, 2, 4, 6, 8]);
    await server.request('POST', `/collections/${name}/points/payload?wait=false`, { payload: { colour: 'red' }, points: [1] });
    await server.request('POST', `/collections/${name}/points/payload?wait=true`, { payload: { colour: 'red' }, points: [3] });
    expect(await idsOf(name, red)).toEqual([0, 1, 2, 3, 4, 6, 8]);
  });

  it('a removed vector is in the next has_vector answer', async () => {
    const name = await colours();
    const withImage = { must: [{ has_vector: 'image' }] };
    expect(await keptIdsOf(name, withImage)).toEqual([0, 1, 2, 3, 4]);
    await server.request('POST', `/collections/${name}/points/vectors/delete?wait=true`, { points: [1, 3], vector: ['image'] });
    expect(await keptIdsOf(name, withImage)).toEqual([0, 2, 4]);
    await server.request('PUT', `/collections/${name}/points/vectors?wait=true`, { points: [{ id: 7, vector: { image: [2, 2] } }] });
    expect(await idsOf(name, withImage)).toEqual([0, 2, 4, 7]);
  });

  it('an exact count shares the kept answer and sees the next write', async () => {
    const name = await colours();
    const count = async () => (await server.request('POST', `/collections/${name}/points/count`, { filter: red, exact: true })).body.result.count as number;
    expect([await count(), await count(), await count()]).toEqual([5, 5, 5]);
    expect(allowedSlots(server.app.collections.get(name), red, 'filter').shared).toBe(true);
    await server.request('POST', `/collections/${name}/points/delete?wait=true`, { filter: red });
    expect(await count()).toBe(0);
    expect(await idsOf(name, red)).toEqual([]);
  });

  it('scroll pages read the kept answer and see a write between two pages', async () => {
    const name = await colours();
    const page = async (offset?: number) =>
      (await server.request('POST', `/collections/${name}/points/scroll`, { filter: red, limit: 2, ...(offset === undefined ? {} : { offset }) })).body.result as {
        points: { id: number }[];
        next_page_offset: number | null;
      };
    const first = await page();
    expect(first.points.map((point) => point.id)).toEqual([0, 2]);
    expect((await page(first.next_page_offset!)).points.map((point) => point.id)).toEqual([4, 6]);
    expect(allowedSlots(server.app.collections.get(name), red, 'filter').shared).toBe(true);
    await server.request('POST', `/collections/${name}/points/payload?wait=true`, { payload: { colour: 'red' }, points: [5] });
    expect((await page(first.next_page_offset!)).points.map((point) => point.id)).toEqual([4, 5]);
  });

  it('strict mode turned on refuses a filter whose answer was kept', async () => {
    const name = await colours();
    expect(await keptIdsOf(name, red)).toEqual([0, 2, 4, 6, 8]);
    expect((await server.request('PATCH', `/collections/${name}`, { strict_mode_config: { enabled: true, unindexed_filtering_retrieve: false } })).status).toBe(200);
    const refused = await server.request('POST', `/collections/${name}/points/search`, { vector: [0, 0], limit: 100, filter: red });
    expect(refused.status).toBe(400);
    expect(refused.body.status.error).toContain('Index required but not found for "colour"');
  });

  it('a collection deleted and made again under the same name answers from its own points', async () => {
    const name = await colours();
    expect(await keptIdsOf(name, red)).toEqual([0, 2, 4, 6, 8]);
    expect((await server.request('DELETE', `/collections/${name}`)).status).toBe(200);
    expect((await server.request('PUT', `/collections/${name}`, { vectors: { size: 2, distance: 'Euclid' } })).status).toBe(200);
    await server.request('PUT', `/collections/${name}/points?wait=true`, { points: [{ id: 3, vector: [1, 1], payload: { colour: 'red' } }] });
    expect(await idsOf(name, red)).toEqual([3]);
  });

  it('a full-text index made after an answer was kept changes how the next answer matches text', async () => {
    const name = await colours();
    await server.request('PUT', `/collections/${name}/points?wait=true`, { points: [{ id: 20, vector: { '': [1, 1] }, payload: { note: 'the skyline' } }] });
    const sky = { must: [{ key: 'note', match: { text: 'sky' } }] };
    // Without a text index a text match is a substring match; with one, whole tokens.
    expect(await keptIdsOf(name, sky)).toEqual([20]);
    await server.request('PUT', `/collections/${name}/index?wait=true`, { field_name: 'note', field_schema: { type: 'text', tokenizer: 'word' } });
    expect(await idsOf(name, sky)).toEqual([]);
  });
});
