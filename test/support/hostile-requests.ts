// Hostile HTTP requests for the fuzz test (test/fuzz.test.ts) and the long fuzz run
// (bench/fuzz/main.ts): generated bodies, query strings, path parameters and headers for every
// route the server registered, sent as raw bytes over a socket (so malformed request lines and
// headers reach node's parser too), and the rule every answer must keep (docs/api.md §1): never
// a 5xx other than a route's 501, every error in the envelope, always an answer.
import { connect } from 'node:net';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';

export interface Route {
  method: string;
  url: string;
}

/**
 * Every route the app registered, read from `printRoutes({ commonPrefix: false })`: each line is
 * a path segment appended to its parent's path, with its methods in parentheses.
 */
export function registeredRoutes(app: FastifyInstance): Route[] {
  const routes: Route[] = [];
  const pathAtLevel: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const marker = line.indexOf('── ');
    if (marker < 0) continue;
    const level = (marker - 1) / 4;
    const match = /^(.*?)(?: \(([A-Z, ]+)\))?$/.exec(line.slice(marker + 3));
    if (!match) continue;
    const path = `${level === 0 ? '' : pathAtLevel[level - 1]}${match[1]}`;
    pathAtLevel[level] = path;
    for (const method of match[2]?.split(', ') ?? []) routes.push({ method, url: path });
  }
  return routes;
}

export const fuzzCollection = 'fuzz';
export const fuzzDimension = 4;

/** The collection and points the generated requests aim at; safe to call again to restore them. */
export async function seedFuzzCollection(base: string): Promise<void> {
  const send = (method: string, path: string, body: unknown) =>
    fetch(`${base}${path}`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((response) => response.text());
  await send('PUT', `/collections/${fuzzCollection}`, { vectors: { size: fuzzDimension, distance: 'Cosine' } });
  const points = Array.from({ length: 8 }, (_unused, position) => ({
    id: position + 1,
    vector: [1, position / 8, 0.5, -0.25],
    payload: { a: position, tag: `t${position % 3}`, nested: { b: position % 2 === 0 } },
  }));
  await send('PUT', `/collections/${fuzzCollection}/points?wait=true`, { points });
}

const vector = [0.1, 0.2, 0.3, 0.4];
const filter = { must: [{ key: 'a', match: { value: 1 } }, { key: 'a', range: { gte: 0, lt: 5 } }] };
const search = { vector, limit: 3, filter, with_payload: true, params: { hnsw_ef: 16 } };

/** A plausible body per route tail, so mutations reach the validation deep inside it. */
const templates: Record<string, unknown> = {
  '/collections/:collection_name': {
    vectors: { size: 4, distance: 'Cosine' },
    hnsw_config: { m: 16, ef_construct: 100, max_indexing_threads: 2 },
    optimizers_config: { indexing_threshold: 10000 },
    sparse_vectors: { text: { modifier: 'idf' } },
    strict_mode_config: { enabled: false },
  },
  '/points': { points: [{ id: 1, vector, payload: { a: 1 } }], ids: [1, 2], with_payload: true, with_vector: true },
  '/points/delete': { points: [7], filter },
  '/points/vectors': { points: [{ id: 2, vector }] },
  '/points/vectors/delete': { points: [2], vector: [''] },
  '/points/payload': { payload: { b: 2 }, points: [1], key: 'nested' },
  '/points/payload/delete': { keys: ['b'], points: [1] },
  '/points/payload/clear': { points: [3] },
  '/points/batch': { operations: [{ upsert: { points: [{ id: 5, vector }] } }, { delete: { points: [6] } }] },
  '/points/count': { filter, exact: true },
  '/points/scroll': { limit: 3, filter, order_by: { key: 'a', direction: 'asc' }, offset: 1 },
  '/points/search': search,
  '/points/search/batch': { searches: [search] },
  '/points/search/groups': { ...search, group_by: 'tag', group_size: 2 },
  '/points/search/matrix/pairs': { sample: 4, limit: 2, filter },
  '/points/search/matrix/offsets': { sample: 4, limit: 2 },
  '/points/query': { query: vector, limit: 3, filter, prefetch: [{ query: vector, limit: 5 }], with_payload: true },
  '/points/query/batch': { searches: [{ query: { nearest: vector }, limit: 2 }] },
  '/points/query/groups': { query: vector, group_by: 'tag', limit: 2 },
  '/points/recommend': { positive: [1], negative: [2], limit: 3, strategy: 'best_score' },
  '/points/recommend/batch': { searches: [{ positive: [1], limit: 2 }] },
  '/points/recommend/groups': { positive: [1], group_by: 'tag', limit: 2 },
  '/points/discover': { target: 1, context: [{ positive: 1, negative: 2 }], limit: 3 },
  '/points/discover/batch': { searches: [{ target: 1, context: [], limit: 2 }] },
  '/facet': { key: 'tag', limit: 3, filter, exact: true },
  '/index': { field_name: 'a', field_schema: { type: 'integer', range: true } },
  '/auth/login': { username: 'root', password: 'correct horse battery staple' },
  '/auth/admin': { username: 'root', password: 'correct horse battery staple', setup_code: 'x' },
  '/auth/admin/reset_password': { username: 'root', current_password: 'a', new_password: 'b' },
  '/auth/access_token': { name: 'fuzz', permission: 'read', collections: [fuzzCollection] },
};

function templateFor(url: string): unknown {
  const tail = url.replace(/^\/collections\/:collection_name/, '');
  return templates[url] ?? templates[tail === '' ? url : tail] ?? { filter, limit: 2 };
}

/** Hostile values as JSON text fragments: numbers past 2^53, float32 extremes, deep nesting. */
const deepNest = (depth: number, inner = '1') => `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;
const hostileFragment: fc.Arbitrary<string> = fc.oneof(
  fc.json({ maxDepth: 3 }),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
  fc.constantFrom(
    '9007199254740993',
    '18446744073709551615',
    '-9223372036854775809',
    '[1, 9007199254740993]',
    '{"a": 18446744073709551616}',
    '[{"id": 9007199254740993}]',
    '3.4028235e38',
    '-3.4028235e38',
    '3.5e38',
    '1e-45',
    '1e400',
    '-0',
    '0',
    '1e308',
    '[3e38, 3e38, 3e38, 3e38]',
    '[-3.4e38, 3.4e38, 0, 0]',
    '[0, 0, 0, 0]',
    '[1e-40, 1e-40, 1e-40, 1e-40]',
    '[1e-45, 0, 0, 0]',
    '[1, 2, 3]',
    '[1, 2, 3, 4, 5]',
    '{"indices": [1, 9007199254740993], "values": [1, 2]}',
    '{"__proto__": {"polluted": true}}',
    '{"constructor": {"prototype": {}}}',
    '""',
    '"\\u0000"',
    '"🦀🦀"',
    'null',
    'true',
    '{}',
    '[]',
    `"${'x'.repeat(70000)}"`,
    deepNest(255),
    deepNest(257),
    deepNest(3000),
    `[9007199254740993, ${deepNest(3000)}]`,
    `{"a": 9007199254740993, "b": ${deepNest(300, '{}')}}`,
  ),
);

/** Every path (list of keys) inside a template, the root included. */
function pathsOf(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  const paths = [prefix];
  if (Array.isArray(value)) value.forEach((item, position) => paths.push(...pathsOf(item, [...prefix, position])));
  else if (typeof value === 'object' && value !== null) for (const [key, item] of Object.entries(value)) paths.push(...pathsOf(item, [...prefix, key]));
  return paths;
}

const marker = '\u0001HOSTILE\u0001';

/** The template with the value at `path` replaced by a hostile fragment (as text). */
function mutated(template: unknown, path: (string | number)[], fragment: string): string {
  if (path.length === 0) return fragment;
  const copy = structuredClone(template) as Record<string | number, unknown>;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  node[path[path.length - 1]!] = marker;
  return JSON.stringify(copy).replace(JSON.stringify(marker), fragment);
}

function bodyFor(url: string): fc.Arbitrary<string | undefined> {
  const template = templateFor(url);
  const paths = pathsOf(template);
  return fc.oneof(
    { weight: 6, arbitrary: fc.tuple(fc.constantFrom(...paths), hostileFragment).map(([path, fragment]) => mutated(template, path, fragment)) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...paths), hostileFragment).map(([path, fragment]) => mutated(template, path, fragment).slice(0, -1)) },
    { weight: 1, arbitrary: fc.tuple(fc.string({ maxLength: 12 }), hostileFragment).map(([key, fragment]) => `{${JSON.stringify(key)}: ${fragment}, ${JSON.stringify(template).slice(1)}`) },
    { weight: 1, arbitrary: fc.string({ maxLength: 200 }) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

const pathParameter: Record<string, fc.Arbitrary<string>> = {
  collection_name: fc.oneof(
    { weight: 6, arbitrary: fc.constant(fuzzCollection) },
    { weight: 1, arbitrary: fc.constantFrom('missing', '..', '%2e%2e', 'a%2Fb', '%00', '%zz', '%', 'x'.repeat(1100), '%F0%9F%A6%80', 'a b', '') },
    { weight: 1, arbitrary: fc.string({ maxLength: 20 }).map(encodeURIComponent) },
  ),
  id: fc.constantFrom('1', '0', '-1', '9007199254740993', '18446744073709551616', '1.5', '1e3', 'abc', '550e8400-e29b-41d4-a716-446655440000', '%7B%7D', 'null'),
};
const anyPathParameter = fc.oneof(fc.constantFrom('', '%', '%00', 'x'.repeat(1100), 'a', '1', 'fuzz'), fc.string({ maxLength: 16 }).map(encodeURIComponent));

const queryKey = fc.oneof(fc.constantFrom('wait', 'timeout', 'ordering', 'with', 'exact', 'consistency', 'api-key', 'limit', '__proto__'), fc.string({ maxLength: 8 }).map(encodeURIComponent));
const queryValue = fc.oneof(
  fc.constantFrom('true', 'false', '1', '0', '-1', '1e400', '9007199254740993', 'weak', 'all', '%', '%zz', '%00', '[]', '{}', 'x'.repeat(3000), ''),
  fc.string({ maxLength: 12 }).map(encodeURIComponent),
);
const queryString = fc.oneof(
  { weight: 3, arbitrary: fc.constant('') },
  { weight: 4, arbitrary: fc.array(fc.tuple(queryKey, queryValue), { minLength: 1, maxLength: 4 }).map((pairs) => `?${pairs.map(([key, value]) => `${key}=${value}`).join('&')}`) },
  { weight: 1, arbitrary: fc.constantFrom('?', '?&&', '?=', '?wait', '?wait=true&wait=false', '?a[b]=1', '?%', '?#frag') },
);

/** Raw, possibly illegal, header lines beyond Host, Content-Length and Connection. */
const extraHeaders = fc.array(
  fc.constantFrom(
    'Content-Type: application/json',
    'Content-Type: application/json',
    'Content-Type: application/json; charset=utf-8',
    'Content-Type: text/plain',
    'Content-Type: application/x-www-form-urlencoded',
    'Content-Type: ',
    'Content-Type: application/json\u0000',
    'api-key: wrong',
    'Authorization: Bearer not-a-token',
    'Authorization: Basic Og==',
    'Accept-Version: 1.x',
    'Transfer-Encoding: chunked',
    'Content-Encoding: gzip',
    'X-Forwarded-For: 203.0.113.7',
    'Bad Header: value',
    `X-Long: ${'h'.repeat(20000)}`,
  ),
  { maxLength: 3 },
);

export interface HostileRequest {
  route: Route;
  method: string;
  target: string;
  headers: string[];
  body: string | undefined;
  /** True when the bytes are not a well-formed HTTP request at all. */
  broken: boolean;
}

function targetFor(route: Route): fc.Arbitrary<string> {
  const names = [...route.url.matchAll(/:([a-z_]+)/g)].map((match) => match[1]!);
  const values = names.map((name) => {
    // Deleting or recreating the shared collection would leave the rest of a run to 404s.
    if (name === 'collection_name' && (route.method === 'DELETE' || route.method === 'PUT') && /:collection_name$/.test(route.url)) {
      return fc.constantFrom('scratch', 'scratch-two', '%', 'x'.repeat(300));
    }
    return pathParameter[name] ?? anyPathParameter;
  });
  return fc.tuple(fc.tuple(...values), queryString).map(([chosen, query]) => {
    let position = 0;
    return `${route.url.replace(/:([a-z_]+)/g, () => chosen[position++] ?? '')}${query}`;
  });
}

/** Request lines and framing node's parser must refuse: they never reach a route. */
const brokenRequest = fc.constantFrom(
  'GET / HTTP/1.1\r\nHost: x\r\nBad Header: v\r\n\r\n',
  'GET /collections?%zz HTTP/1.1\r\nHost: x\r\nX: \u0007\r\n\r\n',
  'GET /a b c HTTP/1.1\r\nHost: x\r\n\r\n',
  'BREW /collections HTTP/1.1\r\nHost: x\r\n\r\n',
  'GET /collections HTTP/9.9\r\nHost: x\r\n\r\n',
  'POST /auth/login HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n',
  'POST /collections/fuzz/points/search HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n{}',
  'POST /collections/fuzz/points/search HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
  `GET /${'u'.repeat(20000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
  `GET /collections HTTP/1.1\r\nHost: x\r\nX-Big: ${'h'.repeat(20000)}\r\n\r\n`,
  '\u0000\u0001\u0002 garbage\r\n\r\n',
);

/** A generated request against one of `routes`; about one in twenty is broken at the HTTP level. */
export function hostileRequest(routes: Route[]): fc.Arbitrary<HostileRequest> {
  const wellFormed = fc.constantFrom(...routes).chain((route) =>
    fc.record({
      route: fc.constant(route),
      method: fc.constant(route.method),
      target: targetFor(route),
      headers: extraHeaders,
      body: route.method === 'GET' || route.method === 'HEAD' ? fc.constant(undefined) : bodyFor(route.url),
      broken: fc.constant(false),
    }),
  );
  const broken = brokenRequest.map((raw) => ({ route: { method: 'RAW', url: raw.slice(0, 40) }, method: 'RAW', target: raw, headers: [], body: undefined, broken: true }));
  return fc.oneof({ weight: 19, arbitrary: wellFormed }, { weight: 1, arbitrary: broken });
}

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The request's bytes: request line, headers, and the body with its true Content-Length. */
function requestBytes(request: HostileRequest, host: string): Buffer {
  if (request.broken) return Buffer.from(request.target, 'latin1');
  const body = request.body === undefined ? undefined : Buffer.from(request.body, 'utf8');
  const lines = [`${request.method} ${request.target} HTTP/1.1`, `Host: ${host}`, 'Connection: close', ...request.headers];
  if (body) {
    if (!request.headers.some((line) => line.startsWith('Content-Type'))) lines.push('Content-Type: application/json');
    lines.push(`Content-Length: ${body.length}`);
  }
  // A chunked request without a body still needs its last chunk, or it is simply unfinished.
  const tail = body ?? Buffer.from(request.headers.includes('Transfer-Encoding: chunked') ? '0\r\n\r\n' : '', 'latin1');
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), tail]);
}

function decodeChunked(text: string): string {
  let decoded = '';
  let rest = text;
  for (;;) {
    const end = rest.indexOf('\r\n');
    const size = Number.parseInt(rest.slice(0, end), 16);
    if (end < 0 || !Number.isFinite(size) || size === 0) return decoded;
    decoded += rest.slice(end + 2, end + 2 + size);
    rest = rest.slice(end + 4 + size);
  }
}

/** Sends one request on a new connection and reads the answer until the server closes it. */
export function sendRaw(port: number, request: HostileRequest, timeoutMs = 15000): Promise<RawAnswer | undefined> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      const raw = Buffer.concat(chunks).toString('utf8');
      const split = raw.indexOf('\r\n\r\n');
      const statusLine = /^HTTP\/1\.[01] (\d{3})/.exec(raw);
      if (split < 0 || !statusLine) return resolve(undefined);
      const headers: Record<string, string> = {};
      for (const line of raw.slice(0, split).split('\r\n').slice(1)) {
        const colon = line.indexOf(':');
        if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      const body = raw.slice(split + 4);
      resolve({ status: Number(statusLine[1]), headers, body: headers['transfer-encoding'] === 'chunked' ? decodeChunked(body) : body });
    };
    const timer = setTimeout(finish, timeoutMs);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', finish);
    socket.on('close', finish);
    socket.on('connect', () => socket.write(requestBytes(request, `127.0.0.1:${port}`)));
  });
}

export type Verdict = 'ok' | 'server_error' | 'not_enveloped' | 'no_answer';

function isErrorEnvelope(body: unknown): boolean {
  if (typeof body !== 'object' || body === null) return false;
  const keys = Object.keys(body).sort().join(',');
  const record = body as Record<string, unknown>;
  const status = record.status as Record<string, unknown> | undefined;
  return keys === 'status,time' && typeof record.time === 'number' && typeof status === 'object' && status !== null && Object.keys(status).join() === 'error' && typeof status.error === 'string';
}

function isAuthErrorEnvelope(body: unknown): boolean {
  if (typeof body !== 'object' || body === null) return false;
  const record = body as Record<string, unknown>;
  return Object.keys(record).sort().join(',') === 'message,status' && record.status === 'error' && typeof record.message === 'string';
}

/**
 * The rule of docs/api.md §1: no 5xx except a route's 501; every error body is the error
 * envelope (or the auth group's on `/auth`); a JSON success parses. HEAD answers have no body.
 */
export function judge(request: HostileRequest, answer: RawAnswer | undefined): Verdict {
  if (!answer) return 'no_answer';
  if (answer.status >= 500 && answer.status !== 501) return 'server_error';
  if (request.method === 'HEAD') return 'ok';
  let body: unknown;
  try {
    body = answer.body === '' ? undefined : JSON.parse(answer.body);
  } catch {
    return answer.status >= 400 || (answer.headers['content-type'] ?? '').includes('json') ? 'not_enveloped' : 'ok';
  }
  if (answer.status < 400) return 'ok';
  const path = request.broken ? request.target.split(' ')[1] ?? '' : request.target;
  if (isErrorEnvelope(body)) return 'ok';
  return path.startsWith('/auth') && isAuthErrorEnvelope(body) ? 'ok' : 'not_enveloped';
}
