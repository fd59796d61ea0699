// Scroll over HTTP (docs/api.md §3): id order, inclusive offset, next_page_offset, filters, order_by.
import { describe, expect, it } from 'vitest';
import { serverForFile } from './support/server.js';

const server = serverForFile({
  setUp: async () => {
    await server.client.createCollection('many', { vectors: { size: 2, distance: 'Dot' } });
    // 10,000 points, written in shuffled id order so that id order is not insertion order.
    const ids = Array.from({ length: 10_000 }, (_, position) => (position * 7919) % 10_000);
    for (let start = 0; start < ids.length; start += 2_500) {
      const chunk = ids.slice(start, start + 2_500);
      await server.client.upsert('many', { wait: true, batch: { ids: chunk, vectors: chunk.map((id) => [id, 1]), payloads: chunk.map((id) => ({ n: id, tenth: id % 10 })) } });
    }
  },
});

describe('scroll — paging', () => {
  it('pages through 10,000 points in id order with none missed or repeated', async () => {
    const seen: number[] = [];
    let offset: number | undefined;
    let pages = 0;
    for (;;) {
      const page = await server.client.scroll('many', { limit: 777, with_payload: false, ...(offset === undefined ? {} : { offset }) });
      seen.push(...page.points.map((point) => point.id as number));
      pages += 1;
      if (page.next_page_offset === null || page.next_page_offset === undefined) break;
      offset = page.next_page_offset as number;
    }
    expect(pages).toBe(13);
    expect(seen).toEqual(Array.from({ length: 10_000 }, (_, id) => id));
  });

  it('offset is inclusive and next_page_offset is the first id of the next page', async () => {
    const page = await server.client.scroll('many', { offset: 100, limit: 3 });
    expect(page.points.map((point) => point.id)).toEqual([100, 101, 102]);
    expect(page.points[0]!.payload).toEqual({ n: 100, tenth: 0 });
    expect(page.next_page_offset).toBe(103);
  });

  it('a filter pages through exactly the accepted points', async () => {
    const seen: number[] = [];
    let offset: number | undefined;
    for (;;) {
      const page = await server.client.scroll('many', { limit: 100, filter: { must: [{ key: 'tenth', match: { value: 3 } }] }, ...(offset === undefined ? {} : { offset }) });
      seen.push(...page.points.map((point) => point.id as number));
      if (page.next_page_offset === null || page.next_page_offset === undefined) break;
      offset = page.next_page_offset as number;
    }
    expect(seen).toEqual(Array.from({ length: 1_000 }, (_, position) => position * 10 + 3));
  });

  it('with_payload and with_vector choose what records hold', async () => {
    const page = await server.client.scroll('many', { limit: 1, with_payload: ['n'], with_vector: true });
    expect(page.points).toEqual([{ id: 0, payload: { n: 0 }, vector: [0, 1] }]);
  });
});

describe('scroll — id order across id kinds', () => {
  it('integers ascending (big ones exact), then UUIDs by bytes', async () => {
    await server.client.createCollection('kinds', { vectors: { size: 2, distance: 'Dot' } });
    const uuidLow = '00000000-0000-0000-0000-000000000001';
    const uuidHigh = 'ff000000-0000-0000-0000-000000000000';
    const body = `{"points": [
      {"id": "${uuidHigh}", "vector": [1, 1]}, {"id": 424242424242424242, "vector": [1, 1]},
      {"id": 5, "vector": [1, 1]}, {"id": "${uuidLow}", "vector": [1, 1]}, {"id": 9007199254740993, "vector": [1, 1]}]}`;
    expect((await server.request('PUT', '/collections/kinds/points?wait=true', body)).status).toBe(200);
    const response = await server.request('POST', '/collections/kinds/points/scroll', { limit: 3, with_payload: false });
    expect(response.text).toContain('"id":5},{"id":9007199254740993},{"id":424242424242424242}');
    expect(response.text).toContain(`"next_page_offset":"${uuidLow}"`);
    const next = await server.request('POST', '/collections/kinds/points/scroll', { limit: 3, offset: uuidLow, with_payload: false });
    expect(next.body.result).toEqual({ points: [{ id: uuidLow }, { id: uuidHigh }], next_page_offset: null });
  });
});

describe('scroll — id order across writes', () => {
  it('points that come and go between scrolls (every id kind) show at once, in order, none stale', async () => {
    await server.client.createCollection('moving', { vectors: { size: 2, distance: 'Dot' } });
    const live = new Set<number | string>();
    const expected = () => [...live].sort((left, right) => (typeof left === typeof right ? (left < right ? -1 : left > right ? 1 : 0) : typeof left === 'number' ? -1 : 1));
    const scrollAll = async () => {
      const response = await server.request('POST', '/collections/moving/points/scroll', { limit: 1_000, with_payload: false });
      return (response.body.result.points as { id: number | string }[]).map((point) => point.id);
    };
    const upsert = async (ids: (number | string)[]) => {
      await server.client.upsert('moving', { wait: true, points: ids.map((id) => ({ id, vector: [1, 1] })) });
      for (const id of ids) live.add(id);
    };
    await upsert(Array.from({ length: 300 }, (_, position) => position * 3));
    expect(await scrollAll()).toEqual(expected());
    // Small changes after a scroll: merged into the kept order.
    await upsert([1, 2, 301, '00000000-0000-4000-8000-000000000002']);
    await server.client.delete('moving', { wait: true, points: [0, 3, 897] });
    for (const id of [0, 3, 897]) live.delete(id);
    expect(await scrollAll()).toEqual(expected());
    // A point deleted and written again, and one written and deleted, between two scrolls.
    await server.client.delete('moving', { wait: true, points: [6] });
    await upsert([6, 1_000_000, '00000000-0000-4000-8000-000000000001']);
    await server.client.delete('moving', { wait: true, points: [1_000_000] });
    live.delete(1_000_000);
    expect(await scrollAll()).toEqual(expected());
    const page = await server.client.scroll('moving', { offset: 5, limit: 3, with_payload: false });
    expect(page.points.map((point) => point.id)).toEqual([6, 9, 12]);
  });
});

describe('scroll — order_by', () => {
  it('needs a range index on the key (400 otherwise)', async () => {
    const response = await server.request('POST', '/collections/many/points/scroll', { limit: 3, order_by: 'n' });
    expect(response.status).toBe(400);
    expect(response.body.status.error).toMatch(/^order_by\.key: no range index on "n"/);
  });

  it('orders by the indexed value in either direction from start_from, with order_value', async () => {
    await server.client.createPayloadIndex('many', { wait: true, field_name: 'n', field_schema: 'integer' });
    const ascending = await server.client.scroll('many', { limit: 3, order_by: 'n', with_payload: false });
    expect(ascending.points).toEqual([{ id: 0, order_value: 0 }, { id: 1, order_value: 1 }, { id: 2, order_value: 2 }]);
    expect(ascending.next_page_offset).toBeNull();
    const descending = await server.client.scroll('many', { limit: 2, order_by: { key: 'n', direction: 'desc', start_from: 5000 }, with_payload: false });
    expect(descending.points).toEqual([{ id: 5000, order_value: 5000 }, { id: 4999, order_value: 4999 }]);
    const filtered = await server.client.scroll('many', { limit: 2, order_by: { key: 'n', start_from: 42 }, filter: { must: [{ key: 'tenth', match: { value: 7 } }] }, with_payload: false });
    expect(filtered.points.map((point) => point.id)).toEqual([47, 57]);
  });

  it('refuses offset together with order_by', async () => {
    const response = await server.request('POST', '/collections/many/points/scroll', { limit: 3, offset: 5, order_by: 'n' });
    expect(response.status).toBe(400);
    expect(response.body.status.error).toMatch(/^offset: cannot be combined with order_by/);
  });
});
