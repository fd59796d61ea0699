// Upserts through the fast body parser (src/json/upsert-body-parser.ts), alone and many at once
// through the write queue, over raw HTTP and the official JS client; every stored
// vector is checked against a slow reference (the body's numbers, rounded to float32 here).
import { describe, expect, it } from 'vitest';
import { mulberry32 } from './support/seeded-random.js';
import { serverForFile } from './support/server.js';

const server = serverForFile();
let counter = 0;

async function newCollection(dimension: number): Promise<string> {
  counter += 1;
  const name = `fast-upsert-${counter}`;
  const response = await server.request('PUT', `/collections/${name}`, { vectors: { size: dimension, distance: 'Euclid' } });
  expect(response.status).toBe(200);
  return name;
}

/** Number literals of the forms clients send (4 decimals, 17 digits, exponents, integers, -0). */
function literal(random: () => number): string {
  const sign = random() < 0.4 ? '-' : '';
  const forms = [() => (random() * 2).toFixed(4), () => String(random()), () => `${Math.floor(random() * 9) + 1}.${Math.floor(random() * 100)}e-${Math.floor(random() * 8)}`, () => String(Math.floor(random() * 100)), () => '0'];
  return `${sign}${forms[Math.floor(random() * forms.length)]!()}`;
}

/** The slow reference: each literal as JSON.parse reads it, stored as a 32-bit float. */
function expectStored(returned: number[], literals: string[], where: string): void {
  expect(returned.length, where).toBe(literals.length);
  literals.forEach((text, position) => {
    const expected = Math.fround(JSON.parse(text) as number);
    if (Math.fround(returned[position]!) !== expected) throw new Error(`${where}[${position}]: stored ${returned[position]} for ${text}`);
  });
}

describe('upsert fast path', () => {
  it('upsert fast path — raw HTTP: every vector, id form and payload is stored as the slow parser reads it', async () => {
    const dimension = 16;
    const name = await newCollection(dimension);
    const random = mulberry32(31);
    const expected = new Map<string, { literals: string[]; payload: unknown }>();
    const points: string[] = [];
    for (let position = 0; position < 300; position += 1) {
      const id = position % 3 === 0 ? `"00000000-0000-4000-8000-${String(position).padStart(12, '0')}"` : String(position + 1);
      const literals = Array.from({ length: dimension }, () => literal(random));
      const payload = position % 2 === 0 ? `{"n":${position},"text":"a \\"quoted\\" [word]","list":[1.5,{"deep":null}]}` : 'null';
      expected.set(String(JSON.parse(id)), { literals, payload: JSON.parse(payload) ?? {} });
      points.push(`{ "vector": [ ${literals.join(' , ')} ],\n "id": ${id}, "payload": ${payload} }`);
    }
    const upsert = await server.request('PUT', `/collections/${name}/points?wait=true`, `{"points":[${points.join(',')}]}`);
    expect(upsert.status, upsert.text).toBe(200);
    const ids = [...expected.keys()].map((key) => (/^\d+$/.test(key) ? Number(key) : key));
    const read = await server.request('POST', `/collections/${name}/points`, { ids, with_vector: true, with_payload: true });
    expect(read.status).toBe(200);
    expect(read.body.result).toHaveLength(300);
    for (const record of read.body.result as { id: number | string; vector: number[]; payload: unknown }[]) {
      const reference = expected.get(String(record.id))!;
      expectStored(record.vector, reference.literals, `point ${record.id}`);
      expect(record.payload).toEqual(reference.payload);
    }
  });

  it('upsert fast path — the official client: points written and read back equal the float32 reference', async () => {
    const dimension = 8;
    const name = await newCollection(dimension);
    const random = mulberry32(32);
    const points = Array.from({ length: 200 }, (_, position) => ({ id: position + 1, vector: Array.from({ length: dimension }, () => random() * 2 - 1), payload: { group: position % 7 } }));
    expect(await server.client.upsert(name, { wait: true, points })).toEqual({ operation_id: expect.any(Number), status: 'completed' });
    const records = await server.client.retrieve(name, { ids: points.map((point) => point.id), with_vector: true });
    expect(records).toHaveLength(200);
    for (const record of records) {
      const point = points[(record.id as number) - 1]!;
      expect((record.vector as number[]).map(Math.fround)).toEqual(point.vector.map(Math.fround));
      expect(record.payload).toEqual(point.payload);
    }
  });

  it('upsert fast path — ids above 2^53 still survive exactly (the lossless parser takes that body)', async () => {
    const name = await newCollection(2);
    const upsert = await server.request('PUT', `/collections/${name}/points?wait=true`, '{"points":[{"id":424242424242424242,"vector":[0.5,0.25]},{"id":3,"vector":[1,2]}]}');
    expect(upsert.status, upsert.text).toBe(200);
    const read = await server.request('POST', `/collections/${name}/points`, '{"ids":[424242424242424242,3],"with_vector":true}');
    expect(read.text).toContain('"id":424242424242424242');
    expect(read.body.result).toHaveLength(2);
  });

  it('upsert fast path — refused bodies are the same 400s naming the field, and nothing is written', async () => {
    const name = await newCollection(3);
    const cases: [string, RegExp][] = [
      ['{"points":[{"id":1,"vector":[1,2,3]},{"id":2,"vector":[1,"x",3]}]}', /points\[1\]\.vector\[1\]/],
      ['{"points":[{"id":1,"vector":[1,2,3]},{"id":2,"vector":[1,2]}]}', /points\[1\]\.vector/],
      ['{"points":[{"id":1,"vector":[1,2,3]},{"id":-2,"vector":[1,2,3]}]}', /points\[1\]\.id/],
      ['{"points":[{"id":1,"vector":[1,2,3],"payload":[1]}]}', /points\[0\]\.payload/],
      ['{"points":[{"id":1,"vector":[1,2,1e400]}]}', /Format error in JSON body/],
      ['{"points":[{"id":1,"vector":[1,2,3],}]}', /Format error in JSON body/],
    ];
    for (const [body, message] of cases) {
      const response = await server.request('PUT', `/collections/${name}/points?wait=true`, body);
      expect(response.status, body).toBe(400);
      expect(response.body.status.error, body).toMatch(message);
    }
    expect((await server.client.getCollection(name)).points_count).toBe(0);
  });

  it('upsert fast path — concurrent writes: many acknowledged upserts of one id leave the last one, and concurrent batches all land', async () => {
    const name = await newCollection(2);
    const acknowledged = await Promise.all(
      Array.from({ length: 20 }, (_, round) => server.request('PUT', `/collections/${name}/points`, { points: [{ id: 1, vector: [round, 1], payload: { round } }] })),
    );
    for (const response of acknowledged) expect(response.status).toBe(200);
    const ids = acknowledged.map((response) => response.body.result.operation_id as number);
    // Queue order is arrival order; the write with the highest operation id is the one kept.
    const last = ids.indexOf(Math.max(...ids));
    // A wait=true write queued after them answers once every earlier write reached the kernel.
    await server.client.upsert(name, { wait: true, points: [{ id: 2, vector: [0, 0] }] });
    expect(await server.client.retrieve(name, { ids: [1], with_vector: true })).toEqual([{ id: 1, payload: { round: last }, vector: [last, 1] }]);
    const batches = await Promise.all(
      Array.from({ length: 8 }, (_, batch) => server.client.upsert(name, { wait: true, points: Array.from({ length: 50 }, (_, position) => ({ id: 100 + batch * 50 + position, vector: [batch, position] })) })),
    );
    for (const result of batches) expect(result.status).toBe('completed');
    const count = await server.client.count(name, { exact: true });
    expect(count.count).toBe(2 + 8 * 50);
    expect(await server.client.retrieve(name, { ids: [100 + 7 * 50 + 49], with_vector: true })).toEqual([{ id: 100 + 7 * 50 + 49, payload: {}, vector: [7, 49] }]);
  });
});
