import { Type } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { describe, expect, it } from 'vitest';
import { denyUnknownFields } from '../json/unknown-fields.js';
import { logIgnoredFields, removeIgnoredFields, typeboxValidatorCompiler } from './validation.js';

const Point = Type.Object({ id: Type.Integer(), vector: Type.Array(Type.Number()) }, { additionalProperties: false });
const Body = Type.Object(
  {
    points: Type.Array(Point),
    query: Type.Optional(Type.Union([Type.Array(Type.Number()), Type.Object({ nearest: Type.Array(Type.Number()) }, { additionalProperties: false })])),
    with_payload: Type.Optional(Type.Object({ include: Type.Array(Type.String()) }, denyUnknownFields)),
  },
  { additionalProperties: false },
);
const compiled = TypeCompiler.Compile(Body);

describe('unknown body fields', () => {
  it('ignored fields — removed at every depth, in arrays and union members, and named', () => {
    const body = { points: [{ id: 1, vector: [1], payload: {} }, { id: 2, vector: [2] }, { id: 3, vector: [3], x: 1 }], query: { nearest: [1], mmr: {} }, vector: [1] };
    const ignored = removeIgnoredFields(compiled, body);
    expect(ignored.sort()).toEqual(['points[0].payload', 'points[2].x', 'query.mmr', 'vector']);
    expect(body).toEqual({ points: [{ id: 1, vector: [1] }, { id: 2, vector: [2] }, { id: 3, vector: [3] }], query: { nearest: [1] } });
    expect(compiled.Check(body)).toBe(true);
  });

  it('ignored fields — keys of a denying object and other problems stay for the report', () => {
    const body = { points: [{ id: 'x', vector: [1], extra: 1 }], with_payload: { include: ['a'], bogus: true } };
    removeIgnoredFields(compiled, body);
    expect(body).toEqual({ points: [{ id: 'x', vector: [1] }], with_payload: { include: ['a'], bogus: true } });
  });

  it('ignored fields — the validator answers as if they were absent and logs one debug line', () => {
    const lines: { object: object; message: string }[] = [];
    const logger = { debug: (object: object, message: string) => lines.push({ object, message }) };
    const validate = typeboxValidatorCompiler(logger)({ schema: Body, httpPart: 'body', method: 'PUT', url: '/collections/:collection_name/points' }) as (input: unknown) => { value?: unknown; error?: Error };
    expect(validate({ points: [{ id: 1, vector: [1], payload: {} }] })).toEqual({ value: { points: [{ id: 1, vector: [1] }] } });
    expect(lines).toEqual([
      { object: { route: 'PUT /collections/:collection_name/points', ignored_fields: ['points[0].payload'], ignored_count: 1 }, message: 'ignored unknown body fields: points[0].payload' },
    ]);
    expect(validate({ points: [], with_payload: { include: [], bogus: 1 } }).error?.message).toBe('Validation error in body with_payload.bogus: unknown field');
    logIgnoredFields(logger, 'route', []);
    expect(lines).toHaveLength(1);
  });
});
