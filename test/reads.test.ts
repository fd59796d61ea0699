// Read-side conformance over HTTP, raw and through the official client, each answer checked
// against a slow reference written here: has_vector and slice in every place filters run
// (docs/api.md §6.2), payload selectors with array paths (§3.5), order_by on multi-valued
// fields (§3.4) and unknown body fields (§1.4).
import { describe, expect, it } from 'vitest';
import { serverForFile } from './support/server.js';

interface City {
  name?: string;
  population?: number;
  sights?: string[];
}

interface Row {
  id: number;
  image: boolean;
  payload: { tag: string; scores: number[] | number; country: { name: string; cities: City[] }; when?: string };
}

const rows: Row[] = Array.from({ length: 60 }, (_, id) => {
  const scores = id % 4 === 0 ? [id % 7, (id * 3) % 11, id % 7] : id % 4 === 1 ? (id * 5) % 13 : [(id * 2) % 9, ((id * 2) % 9) + 0.5];
  const cities: City[] = [{ name: `c${id}`, population: id }, { name: `d${id}`, sights: ['s'] }];
  if (id % 5 === 0) cities.push({ population: 1 });
  return { id, image: id % 3 === 0, payload: { tag: ['red', 'green', 'blue'][id % 3]!, scores, country: { name: `n${id % 4}`, cities } } };
});

const server = serverForFile({
  setUp: async () => {
    await server.client.createCollection('reads', { vectors: { image: { size: 2, distance: 'Dot' }, text: { size: 2, distance: 'Euclid' } } });
    await server.client.upsert('reads', {
      wait: true,
      points: rows.map((row) => ({ id: row.id, vector: { text: [row.id, 1], ...(row.image ? { image: [1, row.id] } : {}) }, payload: row.payload })),
    });
    await server.client.createPayloadIndex('reads', { field_name: 'scores', field_schema: 'float', wait: true });
    await server.client.createPayloadIndex('reads', { field_name: 'tag', field_schema: 'keyword', wait: true });
  },
});

const sorted = (ids: Iterable<number>) => [...ids].sort((left, right) => left - right);
const idsOf = (points: { id: unknown }[]) => sorted(points.map((point) => point.id as number));

describe('has_vector in every place filters run', () => {
  const hasImage = { must: [{ has_vector: 'image' }] };
  const expected = rows.filter((row) => row.image).map((row) => row.id);

  it('count, scroll, query and search accept exactly the points holding the vector', async () => {
    expect((await server.client.count('reads', { filter: hasImage })).count).toBe(expected.length);
    expect(idsOf((await server.client.scroll('reads', { filter: hasImage, limit: 100 })).points)).toEqual(expected);
    expect(idsOf((await server.client.query('reads', { query: [0, 0], using: 'text', filter: hasImage, limit: 100 })).points)).toEqual(expected);
    const search = await server.request('POST', '/collections/reads/points/search', { vector: { name: 'text', vector: [0, 0] }, filter: hasImage, limit: 100 });
    expect(idsOf(search.body.result)).toEqual(expected);
    // must_not and the unnamed name: every point here has named vectors only.
    expect((await server.client.count('reads', { filter: { must_not: [{ has_vector: 'image' }] } })).count).toBe(rows.length - expected.length);
    expect((await server.client.count('reads', { filter: { must: [{ has_vector: '' }] } })).count).toBe(0);
    expect((await server.client.count('reads', { filter: { must: [{ has_vector: 'text' }] } })).count).toBe(rows.length);
  });

  it('facet counts only the points holding the vector', async () => {
    const response = await server.request('POST', '/collections/reads/facet', { key: 'tag', filter: hasImage, exact: true });
    const reference = new Map<string, number>();
    for (const row of rows) if (row.image) reference.set(row.payload.tag, (reference.get(row.payload.tag) ?? 0) + 1);
    expect(response.status).toBe(200);
    expect(response.body.result.hits).toEqual([...reference].map(([value, count]) => ({ value, count })));
  });

  it('delete by filter, and a vector added or removed later, follow the point', async () => {
    await server.client.createCollection('has-vector-writes', { vectors: { image: { size: 2, distance: 'Dot' }, text: { size: 2, distance: 'Dot' } } });
    await server.client.upsert('has-vector-writes', { wait: true, points: [1, 2, 3, 4].map((id) => ({ id, vector: { text: [1, id], ...(id % 2 === 0 ? { image: [id, 1] } : {}) } })) });
    await server.client.updateVectors('has-vector-writes', { wait: true, points: [{ id: 1, vector: { image: [1, 1] } }] });
    expect(idsOf((await server.client.scroll('has-vector-writes', { filter: { must: [{ has_vector: 'image' }] } })).points)).toEqual([1, 2, 4]);
    await server.client.delete('has-vector-writes', { wait: true, filter: { must: [{ has_vector: 'image' }] } });
    expect(idsOf((await server.client.scroll('has-vector-writes', {})).points)).toEqual([3]);
  });
});

describe('slice', () => {
  it('slices are disjoint, cover the collection, and agree across count, scroll and query', async () => {
    const seen = new Set<number>();
    let total = 0;
    for (let index = 0; index < 3; index += 1) {
      const filter = { must: [{ slice: { total: 3, index } }] } as never;
      const scrolled = idsOf((await server.client.scroll('reads', { filter, limit: 100 })).points);
      const counted = (await server.client.count('reads', { filter })).count;
      const queried = idsOf((await server.client.query('reads', { query: [0, 0], using: 'text', filter, limit: 100 })).points);
      expect(counted).toBe(scrolled.length);
      expect(queried).toEqual(scrolled);
      for (const id of scrolled) {
        expect(seen.has(id)).toBe(false);
        seen.add(id);
      }
      total += counted;
      // The same request gives the same slice.
      expect(idsOf((await server.client.scroll('reads', { filter, limit: 100 })).points)).toEqual(scrolled);
    }
    expect(total).toBe(rows.length);
    expect(sorted(seen)).toEqual(rows.map((row) => row.id));
  });

  it('combines with other conditions and refuses an index outside total', async () => {
    const both = { must: [{ slice: { total: 2, index: 1 } }, { key: 'tag', match: { value: 'red' } }] } as never;
    const slice = idsOf((await server.client.scroll('reads', { filter: { must: [{ slice: { total: 2, index: 1 } }] } as never, limit: 100 })).points);
    const expected = slice.filter((id) => rows[id]!.payload.tag === 'red');
    expect(idsOf((await server.client.scroll('reads', { filter: both, limit: 100 })).points)).toEqual(expected);
    const response = await server.request('POST', '/collections/reads/points/count', { filter: { must: [{ slice: { total: 2, index: 2 } }] } });
    expect(response.status).toBe(400);
    expect(response.body.status.error).toBe('filter.must[0].slice.index: expected an integer from 0 to 1 (below total), got 2');
  });
});

// The slow reference of the selector semantics (docs/api.md §3.5): every node has a path (array
// element i takes `[i]`, which a pattern's `[]` agrees with); include keeps a node whose path and
// a pattern agree over their common length, exclude drops a node a pattern agrees with the start
// of. Patterns here are plain `a.b[].c` text.
function pathParts(text: string): string[] {
  return text.replaceAll('[', '.[').split('.');
}

function selectReference(payload: unknown, mode: 'include' | 'exclude', patterns: string[]): unknown {
  const parsed = patterns.map(pathParts);
  const partAgrees = (part: string, step: string) => part === step || (part === '[]' && step.startsWith('['));
  const agree = (pattern: string[], path: string[], length: number) => pattern.slice(0, length).every((part, position) => partAgrees(part, path[position]!));
  const keep = (path: string[]) =>
    mode === 'include'
      ? parsed.some((pattern) => agree(pattern, path, Math.min(pattern.length, path.length)))
      : !parsed.some((pattern) => pattern.length <= path.length && agree(pattern, path, pattern.length));
  const walk = (value: unknown, path: string[]): unknown => {
    if (Array.isArray(value)) {
      return value.flatMap((element, index) => (keep([...path, `[${index}]`]) ? [walk(element, [...path, `[${index}]`])] : []));
    }
    if (typeof value !== 'object' || value === null) return value;
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => keep([...path, key]))
        .map(([key, child]) => [key, walk(child, [...path, key])]),
    );
  };
  return walk(payload, []);
}

describe('payload selectors with array paths', () => {
  const cases: ['include' | 'exclude', string[]][] = [
    ['include', ['country.cities[].name']],
    ['include', ['country.cities[].population', 'tag']],
    ['include', ['country.cities[0].name']],
    ['include', ['country.cities[1]', 'scores[0]']],
    ['include', ['scores[]']],
    ['exclude', ['country.cities[].population']],
    ['exclude', ['country.cities[]', 'scores']],
    ['exclude', ['country.cities[0].name']],
    ['exclude', ['country.cities[1].name', 'scores[0]']],
    ['exclude', ['country.name', 'country.cities[].sights']],
  ];

  it.each(cases)('%s %j equals the reference in retrieve, scroll and query', async (mode, patterns) => {
    const ids = [0, 5, 7];
    const reference = ids.map((id) => selectReference(rows[id]!.payload, mode, patterns));
    const selector = mode === 'include' ? { include: patterns } : { exclude: patterns };
    const retrieved = await server.client.retrieve('reads', { ids, with_payload: selector });
    expect(retrieved.map((record) => record.payload)).toEqual(reference);
    const raw = await server.request('POST', '/collections/reads/points/scroll', { filter: { must: [{ has_id: ids }] }, with_payload: selector });
    expect(raw.body.result.points.map((record: { payload: unknown }) => record.payload)).toEqual(reference);
    const queried = await server.client.query('reads', { query: { order_by: 'scores' }, filter: { must: [{ has_id: [5] }] }, with_payload: selector, limit: 1 });
    expect(queried.points[0]!.payload).toEqual(selectReference(rows[5]!.payload, mode, patterns));
    if (mode === 'include') {
      const listed = await server.client.retrieve('reads', { ids, with_payload: patterns });
      expect(listed.map((record) => record.payload)).toEqual(reference);
    }
  });

  it('the array-path answers are the documented ones', async () => {
    const [record] = await server.client.retrieve('reads', { ids: [5], with_payload: { include: ['country.cities[].name'] } });
    expect(record!.payload).toEqual({ country: { cities: [{ name: 'c5' }, { name: 'd5' }, {}] } });
    const [excluded] = await server.client.retrieve('reads', { ids: [1], with_payload: { exclude: ['country.cities[].population', 'scores', 'tag'] } });
    expect(excluded!.payload).toEqual({ country: { name: 'n1', cities: [{ name: 'c1' }, { name: 'd1', sights: ['s'] }] } });
    // An index selects that element: include keeps only it, exclude acts on it alone.
    const [first] = await server.client.retrieve('reads', { ids: [5], with_payload: { include: ['country.cities[0].name'] } });
    expect(first!.payload).toEqual({ country: { cities: [{ name: 'c5' }] } });
    const [others] = await server.client.retrieve('reads', { ids: [1], with_payload: { exclude: ['country.cities[0].name', 'scores', 'tag'] } });
    expect(others!.payload).toEqual({ country: { name: 'n1', cities: [{ population: 1 }, { name: 'd1', sights: ['s'] }] } });
  });

  it('a malformed selector path is a 400 naming it', async () => {
    const response = await server.request('POST', '/collections/reads/points', { ids: [1], with_payload: { include: ['country.cities[x]'] } });
    expect(response.status).toBe(400);
    expect(response.body.status.error).toMatch(/^with_payload\.include\[0\]: "\[x\]" at position 14/);
  });

  it('a malformed with_payload path in a query is a 400 even when no point matches', async () => {
    const nothing = { must: [{ has_id: [999_999] }] };
    const response = await server.request('POST', '/collections/reads/points/query', { filter: nothing, with_payload: { exclude: ['country.cities['] } });
    expect(response.status).toBe(400);
    expect(response.body.status.error).toMatch(/^with_payload\.exclude\[0\]: /);
    const batch = await server.request('POST', '/collections/reads/points/query/batch', { searches: [{ filter: nothing }, { filter: nothing, with_payload: ['a.'] }] });
    expect(batch.status).toBe(400);
    expect(batch.body.status.error).toMatch(/^searches\[1\]\.with_payload\[0\]: /);
    await expect(server.client.query('reads', { filter: nothing, with_payload: ['a..b'] })).rejects.toThrow();
    // The same request with a good path answers an empty list.
    expect((await server.client.query('reads', { filter: nothing, with_payload: ['country.cities[0]'] })).points).toEqual([]);
  });
});

/** Every (id, value) row order_by yields: one per distinct numeric value, value then id order. */
function orderReference(direction: 'asc' | 'desc', startFrom?: number, only?: Set<number>): { id: number; value: number }[] {
  const result: { id: number; value: number }[] = [];
  for (const row of rows) {
    if (only && !only.has(row.id)) continue;
    const values = new Set(Array.isArray(row.payload.scores) ? row.payload.scores : [row.payload.scores]);
    for (const value of values) {
      if (startFrom !== undefined && (direction === 'asc' ? value < startFrom : value > startFrom)) continue;
      result.push({ id: row.id, value });
    }
  }
  return result.sort((left, right) => (direction === 'asc' ? left.value - right.value : right.value - left.value) || left.id - right.id);
}

const rowsOf = (points: { id: unknown; order_value?: unknown }[]) => points.map((point) => ({ id: point.id as number, value: point.order_value as number }));

describe('order_by on a multi-valued field', () => {
  it('scroll returns a point once per distinct value, each with its own order_value', async () => {
    for (const direction of ['asc', 'desc'] as const) {
      const page = await server.client.scroll('reads', { order_by: { key: 'scores', direction }, limit: 1000, with_payload: false });
      expect(rowsOf(page.points)).toEqual(orderReference(direction));
      expect(page.next_page_offset ?? null).toBeNull();
    }
    const from = await server.request('POST', '/collections/reads/points/scroll', { order_by: { key: 'scores', direction: 'desc', start_from: 6 }, limit: 7 });
    expect(rowsOf(from.body.result.points)).toEqual(orderReference('desc', 6).slice(0, 7));
  });

  it('paging with start_from and dropping the rows already seen yields every row once', async () => {
    // start_from paging needs a page larger than the most rows sharing one value.
    const ties = new Map<number, number>();
    for (const row of orderReference('asc')) ties.set(row.value, (ties.get(row.value) ?? 0) + 1);
    const pageSize = Math.max(...ties.values()) + 3;
    const collected: { id: number; value: number }[] = [];
    const seen = new Set<string>();
    let startFrom: number | undefined;
    for (let pages = 0; pages < 100; pages += 1) {
      const page = await server.client.scroll('reads', { order_by: { key: 'scores', ...(startFrom === undefined ? {} : { start_from: startFrom }) }, limit: pageSize, with_payload: false });
      let added = 0;
      for (const row of rowsOf(page.points)) {
        const key = `${row.id}:${row.value}`;
        if (seen.has(key)) continue;
        seen.add(key);
        collected.push(row);
        added += 1;
      }
      if (added === 0) break;
      startFrom = collected[collected.length - 1]!.value;
    }
    expect(collected).toEqual(orderReference('asc'));
  });

  it('query order_by over the collection and over a prefetch follows the same rule', async () => {
    const whole = await server.client.query('reads', { query: { order_by: { key: 'scores', direction: 'desc', start_from: 8 } }, limit: 15 });
    expect(rowsOf(whole.points)).toEqual(orderReference('desc', 8).slice(0, 15));
    const nearest = await server.client.query('reads', { query: [10, 1], using: 'text', limit: 6 });
    const prefetched = new Set(nearest.points.map((point) => point.id as number));
    const ordered = await server.client.query('reads', { prefetch: { query: [10, 1], using: 'text', limit: 6 }, query: { order_by: 'scores' }, limit: 100 });
    expect(rowsOf(ordered.points)).toEqual(orderReference('asc', undefined, prefetched));
  });
});

describe('unknown body fields are ignored, except where Qdrant refuses them', () => {
  it('a per-point payload in PUT points/vectors is ignored; the vector is updated, the payload kept', async () => {
    await server.client.createCollection('unknown-fields', { vectors: { size: 2, distance: 'Dot' } });
    await server.client.upsert('unknown-fields', { wait: true, points: [{ id: 1, vector: [1, 0], payload: { keep: true } }] });
    const raw = await server.request('PUT', '/collections/unknown-fields/points/vectors?wait=true', { points: [{ id: 1, vector: [0, 1], payload: { lost: true } }] });
    expect(raw.status).toBe(200);
    await server.client.updateVectors('unknown-fields', { wait: true, points: [{ id: 1, vector: [0, 2], payload: { lost: true } } as never] });
    const [record] = await server.client.retrieve('unknown-fields', { ids: [1], with_vector: true });
    expect(record).toMatchObject({ payload: { keep: true }, vector: [0, 2] });
  });

  it('a legacy vector key in a query body, and unknown keys at any depth, change nothing', async () => {
    const plain = await server.request('POST', '/collections/reads/points/query', { query: [3, 1], using: 'text', limit: 4 });
    const extra = await server.request('POST', '/collections/reads/points/query', { query: { nearest: [3, 1], future: 1 }, vector: [9, 9], using: 'text', limit: 4, params: { hnsw_ef: 16, later: true } });
    expect(extra.status).toBe(200);
    expect(extra.body.result).toEqual(plain.body.result);
    const client = await server.client.query('reads', { query: [3, 1], using: 'text', limit: 4, vector: [9, 9] } as never);
    expect(client.points).toEqual(plain.body.result.points);
    const upsert = await server.request('PUT', '/collections/unknown-fields/points?wait=true', { points: [{ id: 2, vector: [1, 1], paylod: { a: 1 } }], future_option: 3 });
    expect(upsert.status).toBe(200);
    const [record] = await server.client.retrieve('unknown-fields', { ids: [2] });
    expect(record!.payload).toEqual({});
    const created = await server.request('PUT', '/collections/unknown-config', { vectors: { size: 2, distance: 'Dot', future: 1 }, unknown_option: true });
    expect(created.status).toBe(200);
    expect((await server.client.getCollection('unknown-config')).config.params.vectors).toEqual({ size: 2, distance: 'Dot' });
  });

  it('filters and payload selectors still refuse unknown keys with 400', async () => {
    const filter = await server.request('POST', '/collections/reads/points/scroll', { filter: { must: [], must_nt: [] } });
    expect(filter.status).toBe(400);
    expect(filter.body.status.error).toMatch(/^filter\.must_nt: unknown field/);
    const selector = await server.request('POST', '/collections/reads/points/scroll', { with_payload: { exclude: ['tag'], include: ['tag'] } });
    expect(selector.status).toBe(400);
    expect(selector.body.status.error).toMatch(/^Validation error in body with_payload/);
    const extra = await server.request('POST', '/collections/reads/points', { ids: [1], with_payload: { include: ['tag'], fields: ['x'] } });
    expect(extra.status).toBe(400);
    expect(extra.body.status.error).toBe('Validation error in body with_payload.fields: unknown field');
    await expect(server.client.scroll('reads', { filter: { must: [], must_nt: [] } as never })).rejects.toThrow();
  });
});
