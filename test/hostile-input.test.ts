// Issue 18's hostile-input cases, each reproduced: integers past 2^53 inside a refused value
// (once a 500), requests node's parser refuses (once fastify's own body), and the nesting limit
// after an unsafe number (once skipped). Raw HTTP, raw sockets, and the official client.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from './support/envelope.js';
import { sendRaw, type HostileRequest } from './support/hostile-requests.js';
import { makeDataDirectory, removeDataDirectory, startServer, type TestServer } from './support/server.js';

let server: TestServer;
let directory: string;
let port: number;
const name = 'hostile';

beforeAll(async () => {
  directory = await makeDataDirectory();
  server = await startServer(directory);
  port = Number(new URL(server.url).port);
  await server.client.createCollection(name, { vectors: { size: 2, distance: 'Dot' } });
});

afterAll(async () => {
  await server.close();
  await removeDataDirectory(directory);
});

const rawText = (method: string, path: string, text: string) => server.request(method, path, text);
const broken = (raw: string): HostileRequest => ({ route: { method: 'RAW', url: '' }, method: 'RAW', target: raw, headers: [], body: undefined, broken: true });

describe('integers past 2^53 in a refused value', () => {
  it('bigint — PATCH with an array holding 2^53 + 1 is a 400 naming the field', async () => {
    const response = await rawText('PATCH', `/collections/${name}`, '{"hnsw_config": {"m": [9007199254740993]}}');
    const message = expectError(response, 400);
    expect(message).toContain('hnsw_config.m');
    expect(message).toContain('[9007199254740993]');
  });

  it('bigint — login with an object holding 2^64 as the username is a 400, not a 500', async () => {
    const response = await rawText('POST', '/auth/login', '{"username": {"a": 18446744073709551616}, "password": "x"}');
    expect(response.status).toBe(400);
    expect(JSON.stringify(response.body)).toContain('username');
  });

  it('bigint — a filter value of [2^53 + 1] in a search is a 400 naming the field', async () => {
    const body = '{"vector": [1, 0], "limit": 1, "filter": {"must": [{"key": [9007199254740993], "match": {"value": 1}}]}}';
    const message = expectError(await rawText('POST', `/collections/${name}/points/search`, body), 400);
    expect(message).toMatch(/filter/);
  });

  it('bigint — a text index option holding 2^53 + 1 is a 400 naming the option', async () => {
    const body = '{"field_name": "t", "field_schema": {"type": "text", "stopwords": [9007199254740993]}}';
    const message = expectError(await rawText('PUT', `/collections/${name}/index`, body), 400);
    expect(message).toContain('stopwords');
  });
});

describe('requests node refuses are answered in the envelope', () => {
  it('client error — a space-broken request line gets the error envelope with a 400', async () => {
    const answer = await sendRaw(port, broken('GET /a b c HTTP/1.1\r\nHost: x\r\n\r\n'));
    expect(answer?.status).toBe(400);
    expect(Object.keys(JSON.parse(answer!.body)).sort()).toEqual(['status', 'time']);
  });

  it('client error — an illegal header byte on GET / with a bad query string gets the envelope', async () => {
    const answer = await sendRaw(port, broken('GET /?%zz HTTP/1.1\r\nHost: x\r\nX: \u0007\r\n\r\n'));
    expect(answer?.status).toBe(400);
    expect(JSON.parse(answer!.body).status.error).toBe('Bad request: malformed header');
  });

  it('client error — oversized headers (the 431 class) get the envelope as a 400', async () => {
    const answer = await sendRaw(port, broken(`GET /collections HTTP/1.1\r\nHost: x\r\nX-Big: ${'h'.repeat(20000)}\r\n\r\n`));
    expect(answer?.status).toBe(400);
    expect(JSON.parse(answer!.body).status.error).toBe('Bad request: the request line and headers are too large');
  });

  it('client error — an over-long URL (the 414 class) gets the envelope as a 400', async () => {
    const answer = await sendRaw(port, broken(`GET /${'u'.repeat(20000)} HTTP/1.1\r\nHost: x\r\n\r\n`));
    expect(answer?.status).toBe(400);
    expect(typeof JSON.parse(answer!.body).status.error).toBe('string');
  });

  it('client error — a broken request to /auth gets the auth envelope', async () => {
    const answer = await sendRaw(port, broken('POST /auth/login HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n'));
    expect(answer?.status).toBe(400);
    expect(JSON.parse(answer!.body)).toEqual({ status: 'error', message: 'Bad request: malformed message framing (Content-Length or Transfer-Encoding)' });
  });

  it('client error — the server keeps serving the official client afterwards', async () => {
    const info = await server.client.getCollection(name);
    expect(info.config.params.vectors).toEqual({ size: 2, distance: 'Dot' });
  });
});

describe('the nesting limit holds on every parse path', () => {
  const deep = (depth: number) => `${'['.repeat(depth)}1${']'.repeat(depth)}`;

  it('nesting — 3,000 levels after a number past 2^53 are refused', async () => {
    const body = `{"points": [{"id": 9007199254740993, "vector": [1, 0], "payload": {"deep": ${deep(3000)}}}]}`;
    const message = expectError(await rawText('PUT', `/collections/${name}/points?wait=true`, body), 400);
    expect(message).toBe('Format error in JSON body: the body is nested deeper than 256 levels');
  });

  it('nesting — 300 levels after an unsafe number are refused as on the fast path', async () => {
    const unsafeFirst = `{"a": 18446744073709551615, "b": ${deep(300)}}`;
    const safeOnly = `{"a": 1, "b": ${deep(300)}}`;
    const first = expectError(await rawText('POST', `/collections/${name}/points/scroll`, unsafeFirst), 400);
    const second = expectError(await rawText('POST', `/collections/${name}/points/scroll`, safeOnly), 400);
    expect(first).toBe(second);
  });

  it('nesting — an unsafe id with a shallow payload still round-trips exactly', async () => {
    const body = `{"points": [{"id": 9007199254740993, "vector": [1, 0], "payload": {"deep": ${deep(20)}}}]}`;
    expect((await rawText('PUT', `/collections/${name}/points?wait=true`, body)).status).toBe(200);
    const read = await server.request('GET', `/collections/${name}/points/9007199254740993`);
    expect(read.text).toContain('"id":9007199254740993');
  });
});
