import { describe, expect, it } from 'vitest';
import { jsonShaped } from '../json/json-shaped.js';
import { serializeJson } from '../json/serialize.js';
import { Float32Row } from './float32-row.js';
import { mixedFloat32Samples } from './float32-samples.js';
import { float32ToNumber } from './vectors.js';

describe('float32 rows', () => {
  it('jsonText — the kernel writes a row as JSON.stringify writes float32ToNumber\'s numbers (its slow twin), non-finite values and -0 included', () => {
    const count = 120_000;
    const values = mixedFloat32Samples(count);
    values.set([Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 1e21, 1e-7, 0.000001, 3.4028234663852886e38], 8);
    const twinText = (start: number, length: number) => JSON.stringify(Array.from(values.subarray(start, start + length), float32ToNumber));
    // Row by row, so a difference names its place; then one long row as a whole.
    const differing: string[] = [];
    for (let start = 0; start < count; start += 1000) {
      const text = new Float32Row(values, start, 1000).jsonText();
      if (text !== twinText(start, 1000)) differing.push(`row from ${start}`);
    }
    expect(differing).toEqual([]);
    expect(new Float32Row(values, 3, count - 3).jsonText()).toBe(twinText(3, count - 3));
    expect(new Float32Row(new Float32Array([0.1, -2.5]), 0, 2).jsonText()).toBe('[0.1,-2.5]');
  });

  it('serializeJson — rows take their place in the text as numbers, wherever they sit in the answer', () => {
    const source = new Float32Array([0.1, 0.2, 0.3, 1 / 3, -7, 1e-8, 2, 4, 8, 16, 32, 64]);
    const answer = {
      result: [
        { id: 1, payload: { note: 'a "quoted" \u0000 string' }, vector: new Float32Row(source, 0, 10) },
        { id: 2, vector: { image: new Float32Row(source, 2, 3), rows: [new Float32Row(source, 0, 2), new Float32Row(source, 10, 2)] } },
      ],
    };
    const expected = {
      result: [
        { id: 1, payload: { note: 'a "quoted" \u0000 string' }, vector: [0.1, 0.2, 0.3, 0.33333334, -7, 1e-8, 2, 4, 8, 16] },
        { id: 2, vector: { image: [0.3, 0.33333334, -7], rows: [[0.1, 0.2], [32, 64]] } },
      ],
    };
    expect(JSON.parse(serializeJson(answer))).toEqual(expected);
    // Outside serializeJson a row is its numbers: plain JSON.stringify, and the gRPC door's jsonShaped.
    expect(JSON.parse(JSON.stringify(answer))).toEqual(expected);
    expect(jsonShaped(answer)).toEqual(expected);
    // The gRPC door keeps the rows (its messages hold float32): the same float32 values.
    const kept = jsonShaped(answer, (value) => value instanceof Float32Row) as { result: [{ vector: Float32Row }] };
    expect(kept.result[0].vector).toBeInstanceOf(Float32Row);
    expect(Array.from(kept.result[0].vector.float32Values())).toEqual(Array.from(source.subarray(0, 10)));
  });

  it('serializeJson — a string that imitates a row\'s placeholder, or a bigint beside a row, still gives the rows\' numbers', () => {
    const row = new Float32Row(new Float32Array([0.5, 0.25, 1, 2, 3, 4, 5, 6, 7]), 0, 9);
    // The placeholder a row would get inside serializeJson, caught from its toJSON there.
    let placeholder = '';
    serializeJson({ toJSON: () => (placeholder = String(row.toJSON())) });
    expect(placeholder).toMatch(/^\u0000[0-9a-f]+:0$/);
    const imitation = { first: placeholder, vector: row };
    expect(JSON.parse(serializeJson(imitation))).toEqual({ first: placeholder, vector: [0.5, 0.25, 1, 2, 3, 4, 5, 6, 7] });
    expect(serializeJson({ id: 2n ** 60n, vector: row })).toBe('{"id":1152921504606846976,"vector":[0.5,0.25,1,2,3,4,5,6,7]}');
  });
});
