import { TypeCompiler } from '@sinclair/typebox/compiler';
import { describe, expect, it } from 'vitest';
import { isQuiverError } from '../errors.js';
import { validationError } from '../http/validation.js';
import { queryBatchPlans, queryPlan, searchBatchPlans, searchPlan, type RequestLimits } from './request.js';
import { QueryBatchRequest, QueryRequest, SearchBatchRequest, SearchRequest, type QueryRequestBody, type SearchRequestBody } from './schemas.js';

const queryCheck = TypeCompiler.Compile(QueryRequest);
const searchCheck = TypeCompiler.Compile(SearchRequest);

/** The 400 message the validator would answer for `body`, or undefined when it passes. */
function schemaMessage(check: typeof queryCheck | typeof searchCheck, body: unknown): string | undefined {
  if (check.Check(body)) return undefined;
  return validationError(check, body, 'body').message;
}

function planMessage(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (isQuiverError(error) && error.status === 400) return error.message;
    throw error;
  }
  throw new Error('expected a 400');
}

function query(body: unknown) {
  expect(schemaMessage(queryCheck, body)).toBeUndefined();
  return queryPlan(body as QueryRequestBody);
}

describe('query request schema — every form of docs/api.md §5 is accepted', () => {
  it.each([
    ['bare vector', { query: [0.1, 0.2] }],
    ['point id (integer)', { query: 42 }],
    ['point id above 2^53', { query: 424242424242424242n }],
    ['point id (uuid)', { query: '550e8400-e29b-41d4-a716-446655440000' }],
    ['nearest', { query: { nearest: [1, 2] } }],
    ['recommend, default strategy', { query: { recommend: { positive: [1, [0.5, 0.5]], negative: [2] } } }],
    ['recommend best_score', { query: { recommend: { positive: [1], strategy: 'best_score' } } }],
    ['relevance_feedback', { query: { relevance_feedback: { target: [1, 0], feedback: [{ example: 3, score: 0.9 }, { example: [0, 1], score: 0.1 }], strategy: { naive: { a: 1, b: 1, c: 1 } } } } }],
    ['relevance_feedback without feedback', { query: { relevance_feedback: { target: 7, feedback: [], strategy: { naive: { a: 1, b: 0.5, c: -1 } } } } }],
    ['recommend sum_scores with negatives only', { query: { recommend: { negative: [[1, 2]], strategy: 'sum_scores' } } }],
    ['discover', { query: { discover: { target: 5, context: [{ positive: 1, negative: [0, 1] }] } } }],
    ['discover with one pair', { query: { discover: { target: [1, 1], context: { positive: 1, negative: 2 } } } }],
    ['context', { query: { context: [{ positive: 1, negative: 2 }] } }],
    ['order_by key', { query: { order_by: 'price' } }],
    ['order_by object', { query: { order_by: { key: 'price', direction: 'desc', start_from: 10 } } }],
    ['fusion rrf', { prefetch: [{ query: [1, 2] }, { query: 3 }], query: { fusion: 'rrf' } }],
    ['fusion dbsf', { prefetch: { query: [1, 2] }, query: { fusion: 'dbsf' } }],
    ['rrf with k', { prefetch: [{ query: [1, 2] }], query: { rrf: { k: 60 } } }],
    ['sample random', { query: { sample: 'random' } }],
    ['nested prefetch', { prefetch: { prefetch: { query: [1, 2], limit: 50 }, query: [1, 2], limit: 20 }, query: { fusion: 'rrf' } }],
    ['no query at all (scroll-like)', {}],
    ['everything else', {
      query: [1, 2], using: 'image', filter: { must: [] }, params: { hnsw_ef: 128, exact: false },
      score_threshold: 0.5, limit: 5, offset: 2, with_payload: ['a', 'b.c'], with_vector: ['image'],
      lookup_from: { collection: 'other', vector: 'text' },
    }],
    ['nulls for unset options, as Qdrant clients send them', {
      query: [1, 2], prefetch: null, using: null, filter: null, params: null, score_threshold: null, limit: null,
      offset: null, with_payload: null, with_vector: null, lookup_from: null,
    }],
  ])('%s', (_name, body) => {
    expect(schemaMessage(queryCheck, body)).toBeUndefined();
    expect(() => queryPlan(body as QueryRequestBody)).not.toThrow();
  });
});

describe('query request schema — bad input names the field', () => {
  it.each([
    ['a string limit', { query: [1], limit: 'ten' }, 'limit'],
    ['a zero limit', { query: [1], limit: 0 }, 'limit'],
    ['a negative offset', { query: [1], offset: -1 }, 'offset'],
    ['an unknown strategy', { query: { recommend: { positive: [1], strategy: 'median' } } }, 'query'],
    ['an unknown key', { query: [1], limt: 5 }, 'limt'],
    ['a bad with_payload', { query: [1], with_payload: 5 }, 'with_payload'],
    ['a bad nested prefetch limit', { prefetch: { query: [1], limit: -3 }, query: { fusion: 'rrf' } }, 'prefetch'],
    ['rrf k of 0', { prefetch: { query: [1] }, query: { rrf: { k: 0 } } }, 'query'],
  ])('%s', (_name, body, field) => {
    const message = schemaMessage(queryCheck, body);
    expect(message).toMatch(/^Validation error in body /);
    expect(message).toContain(field);
  });
});

describe('query refusals (docs/api.md §5) — 400 with Qdrant\'s messages', () => {
  it('prefetch without query', () => {
    expect(planMessage(() => query({ prefetch: { query: [1] } }))).toBe(
      "Bad request: A query is needed to merge the prefetches. Can't have prefetches without defining a query.",
    );
  });

  it('score_threshold without query', () => {
    expect(planMessage(() => query({ score_threshold: 10 }))).toBe(
      "Bad request: A query is needed to use the score_threshold. Can't have score_threshold without defining a query.",
    );
  });

  it('order_by with score_threshold', () => {
    expect(planMessage(() => query({ query: { order_by: 'price' }, score_threshold: 1 }))).toBe(
      "Bad request: Can't use score_threshold with an order_by query.",
    );
  });

  it('fusion with using', () => {
    expect(planMessage(() => query({ prefetch: { query: [1] }, query: { fusion: 'rrf' }, using: 'image' }))).toBe(
      "Bad request: Fusion queries cannot be combined with the 'using' field.",
    );
  });

  it('fusion without prefetches', () => {
    expect(planMessage(() => query({ query: { fusion: 'dbsf' } }))).toMatch(/cannot apply Fusion without prefetches/);
  });

  it('refusals apply inside nested prefetches and say where', () => {
    const message = planMessage(() => query({ prefetch: [{ query: [1] }, { prefetch: { query: [2] } }], query: { fusion: 'rrf' } }));
    expect(message).toMatch(/A query is needed to merge the prefetches/);
    expect(message).toContain('prefetch[1]');
  });

  it('average_vector needs a positive example; other strategies need any example', () => {
    expect(planMessage(() => query({ query: { recommend: { negative: [1] } } }))).toContain('query.recommend.positive');
    expect(planMessage(() => query({ query: { recommend: { strategy: 'best_score' } } }))).toContain('query.recommend');
  });

  it('context needs at least one pair', () => {
    expect(planMessage(() => query({ query: { context: [] } }))).toContain('query.context');
  });

  it('rrf weights need one weight per prefetch', () => {
    expect(planMessage(() => query({ prefetch: [{ query: [1] }, { query: [2] }], query: { rrf: { weights: [1] } } }))).toContain('query.rrf.weights');
  });
});

describe('query plans', () => {
  it('query — defaults: limit 10, offset 0, no payload, no vector, unnamed vector, approximate', () => {
    const plan = query({ query: [0.5, 0.5] });
    expect(plan).toMatchObject({ limit: 10, offset: 0, withPayload: false, withVector: false, using: '', tuning: { exact: false } });
    expect(plan.query).toEqual({ kind: 'nearest', target: { kind: 'vector', values: [0.5, 0.5] } });
  });

  it('query — an id query is a nearest query on that point', () => {
    expect(query({ query: 7 }).query).toEqual({ kind: 'nearest', target: { kind: 'point', id: 7 } });
    expect(query({ query: { nearest: 424242424242424242n } }).query).toEqual({ kind: 'nearest', target: { kind: 'point', id: 424242424242424242n } });
  });

  it('query — rrf k defaults to 2 and {"rrf": {"k"}} overrides it', () => {
    expect(query({ prefetch: { query: [1] }, query: { fusion: 'rrf' } }).query).toEqual({ kind: 'rrf', k: 2 });
    expect(query({ prefetch: { query: [1] }, query: { rrf: { k: 60 } } }).query).toEqual({ kind: 'rrf', k: 60 });
  });

  it('query — nested prefetches keep their own limits, filters and using', () => {
    const plan = query({
      prefetch: [{ prefetch: { query: [1], limit: 40, using: 'a' }, query: [2], limit: 20, filter: { must: [] } }, { query: 3 }],
      query: { fusion: 'dbsf' },
    });
    expect(plan.prefetches).toHaveLength(2);
    expect(plan.prefetches[0]).toMatchObject({ field: 'prefetch[0]', limit: 20, filter: { must: [] } });
    expect(plan.prefetches[0]?.prefetches[0]).toMatchObject({ field: 'prefetch[0].prefetch[0]', limit: 40, using: 'a' });
  });

  it('query — limit above the configured maximum is clamped to it; offset above it is refused naming the field', () => {
    const limits: RequestLimits = { maxLimit: 100, maxBatch: 2, maxPrefetchDepth: 2, maxExamples: 4, maxPrefetches: 3 };
    expect(queryPlan({ query: [1], limit: 101 }, limits).limit).toBe(100);
    expect(queryPlan({ query: [1], limit: 18446744073709551615n }, limits).limit).toBe(100);
    expect(planMessage(() => queryPlan({ query: [1], offset: 101 }, limits))).toContain('offset');
    expect(queryPlan({ prefetch: { query: [1], limit: 500 }, query: [1] }, limits).prefetches[0]?.limit).toBe(100);
    expect(planMessage(() => queryPlan({ query: { recommend: { positive: [1, 2, 3, 4, 5] } } }, limits))).toContain('query.recommend.positive');
    const deep = { prefetch: { prefetch: { prefetch: { query: [1] }, query: [1] }, query: [1] }, query: [1] };
    expect(planMessage(() => queryPlan(deep, limits))).toContain('prefetch');
    expect(planMessage(() => queryBatchPlans({ searches: [{}, {}, {}] }, limits))).toContain('searches');
    const wide = { prefetch: [{ prefetch: [{ query: [1] }, { query: [1] }], query: [1] }, { query: [1] }], query: { fusion: 'rrf' as const } };
    expect(planMessage(() => queryPlan(wide, limits))).toContain('at most 3 prefetches per request');
  });

  it('query batch — each search is planned, and errors say which one', () => {
    expect(TypeCompiler.Compile(QueryBatchRequest).Check({ searches: [{ query: [1] }, { query: 2 }] })).toBe(true);
    expect(queryBatchPlans({ searches: [{ query: [1] }, { query: 2 }] })).toHaveLength(2);
    expect(planMessage(() => queryBatchPlans({ searches: [{ query: [1] }, { score_threshold: 1 }] }))).toContain('searches[1]');
  });
});

describe('search request', () => {
  function search(body: unknown) {
    expect(schemaMessage(searchCheck, body)).toBeUndefined();
    return searchPlan(body as SearchRequestBody);
  }

  it('search — an unnamed vector, limit, defaults', () => {
    const plan = search({ vector: [1, 2], limit: 3 });
    expect(plan).toMatchObject({ limit: 3, offset: 0, using: '', withPayload: false, withVector: false });
    expect(plan.query).toEqual({ kind: 'nearest', target: { kind: 'vector', values: [1, 2] } });
  });

  it('search — a named vector sets using; top is an alias of limit; with_vectors of with_vector', () => {
    const plan = search({ vector: { name: 'image', vector: [1, 2] }, top: 4, with_vectors: true, with_payload: { exclude: ['x'] } });
    expect(plan).toMatchObject({ using: 'image', limit: 4, withVector: true, withPayload: { exclude: ['x'] } });
  });

  it('search — params, offset, filter and score_threshold are carried', () => {
    const plan = search({ vector: [1], limit: 1, offset: 5, params: { hnsw_ef: 256, exact: true }, filter: { must: [] }, score_threshold: 0.2 });
    expect(plan).toMatchObject({ offset: 5, tuning: { ef: 256, exact: true }, filter: { must: [] }, scoreThreshold: 0.2 });
  });

  it('search — a missing limit is a 400 naming limit', () => {
    expect(planMessage(() => search({ vector: [1] }))).toBe('Validation error in body limit: missing required field');
  });

  it('search — a missing vector, a string element, an unknown key are 400s naming the field', () => {
    expect(schemaMessage(searchCheck, { limit: 1 })).toContain('vector');
    expect(schemaMessage(searchCheck, { vector: [1, 'x'], limit: 1 })).toContain('vector');
    expect(schemaMessage(searchCheck, { vector: [1], limit: 1, exact: true })).toContain('exact');
  });

  it('search batch — every search planned, a bad one named by position', () => {
    expect(TypeCompiler.Compile(SearchBatchRequest).Check({ searches: [{ vector: [1], limit: 1 }] })).toBe(true);
    expect(searchBatchPlans({ searches: [{ vector: [1], limit: 1 }, { vector: [2], top: 2 }] }).map((plan) => plan.limit)).toEqual([1, 2]);
    expect(planMessage(() => searchBatchPlans({ searches: [{ vector: [1], limit: 1 }, { vector: [2] }] }))).toBe(
      'Validation error in body searches[1].limit: missing required field',
    );
  });
});

describe('with_payload paths are checked when the request is parsed', () => {
  it('with_payload — a malformed path is a 400 naming it before anything is searched', () => {
    expect(planMessage(() => query({ query: [1], with_payload: { include: ['a', 'b['] } }))).toMatch(/with_payload\.include\[1\]: unclosed "\["/);
    expect(planMessage(() => searchPlan({ vector: [1], limit: 1, with_payload: ['a.'] } as SearchRequestBody))).toMatch(/with_payload\[0\]/);
  });

  it('with_payload — in a batch the message names the search', () => {
    const body = { searches: [{ query: [1] }, { query: [1], with_payload: { exclude: 'x[' } }] };
    expect(planMessage(() => queryBatchPlans(body as never))).toMatch(/searches\[1\]\.with_payload\.exclude/);
  });

  it('with_payload — null and absent mean no payload; good paths pass', () => {
    expect(query({ query: [1], with_payload: null }).withPayload).toBe(false);
    expect(query({ query: [1] }).withPayload).toBe(false);
    expect(query({ query: [1], with_payload: ['a[0].b', 'c[]'] }).withPayload).toEqual(['a[0].b', 'c[]']);
  });
});

describe('relevance_feedback requests (docs/api.md §5.6)', () => {
  const naive = { a: 1, b: 2, c: 0.5 };

  it('relevance_feedback — the plan holds the target, the examples and the pairs from the scores', () => {
    const plan = query({ query: { relevance_feedback: { target: [1, 0], feedback: [{ example: 4, score: 0.2 }, { example: [0, 1], score: 0.7 }], strategy: { naive } } } });
    expect(plan.query).toMatchObject({
      kind: 'relevance_feedback',
      target: { kind: 'vector', values: [1, 0] },
      feedback: [{ example: { kind: 'point', id: 4 }, score: 0.2 }, { example: { kind: 'vector', values: [0, 1] }, score: 0.7 }],
      strategy: naive,
      pairs: [{ better: 1, worse: 0 }],
    });
  });

  it.each([
    ['a missing strategy', { target: [1], feedback: [] }, 'query'],
    ['a strategy other than naive', { target: [1], feedback: [], strategy: { smart: naive } }, 'query'],
    ['a missing c', { target: [1], feedback: [], strategy: { naive: { a: 1, b: 1 } } }, 'query'],
    ['a string score', { target: [1], feedback: [{ example: 1, score: 'high' }], strategy: { naive } }, 'query'],
    ['feedback that is not a list', { target: [1], feedback: { example: 1, score: 1 }, strategy: { naive } }, 'query'],
  ])('relevance_feedback — %s is a schema 400', (_name, input, field) => {
    const message = schemaMessage(queryCheck, { query: { relevance_feedback: input } });
    expect(message).toMatch(/^Validation error in body /);
    expect(message).toContain(field);
  });

  it('relevance_feedback — bad values are 400s naming the field, at the root and in a prefetch', () => {
    const feedback = [{ example: 1, score: 0.5 }, { example: 2, score: 0.5 }];
    expect(planMessage(() => query({ query: { relevance_feedback: { target: 'nope', feedback, strategy: { naive } } } }))).toMatch(/^query\.relevance_feedback\.target: /);
    expect(planMessage(() => query({ query: { relevance_feedback: { target: [1], feedback: [{ example: 'not-a-uuid', score: 1 }], strategy: { naive } } } }))).toMatch(
      /^query\.relevance_feedback\.feedback\[0\]\.example: /,
    );
    expect(planMessage(() => query({ query: { relevance_feedback: { target: [1], feedback: [{ example: 1, score: 1e39 }], strategy: { naive } } } }))).toMatch(
      /^Validation error in body query\.relevance_feedback\.feedback\[0\]\.score: must be a finite 32-bit float/,
    );
    expect(planMessage(() => query({ query: { relevance_feedback: { target: [1], feedback, strategy: { naive: { a: 1, b: -1e40, c: 1 } } } } }))).toMatch(
      /query\.relevance_feedback\.strategy\.naive\.b: must be a finite 32-bit float/,
    );
    // Equal scores give confidence 0, and 0 to a negative power is infinite.
    const prefetch = { prefetch: { query: { relevance_feedback: { target: [1], feedback, strategy: { naive: { a: 1, b: -1, c: 1 } } } } }, query: { fusion: 'rrf' } };
    expect(planMessage(() => query(prefetch))).toMatch(/prefetch\[0\]\.query\.relevance_feedback\.strategy\.naive: the weight confidence\^b \* c of the pair feedback\[0\], feedback\[1\] is not a finite/);
  });

  it('relevance_feedback — the examples are bounded like every example form', () => {
    const limits: RequestLimits = { maxLimit: 100, maxBatch: 10, maxPrefetchDepth: 2, maxExamples: 4, maxPrefetches: 4 };
    const feedback = Array.from({ length: 4 }, (_, position) => ({ example: position + 1, score: position }));
    expect(planMessage(() => queryPlan({ query: { relevance_feedback: { target: [1], feedback, strategy: { naive } } } } as QueryRequestBody, limits))).toMatch(
      /query\.relevance_feedback\.feedback: at most 3 examples \(got 4\)/,
    );
  });
});
