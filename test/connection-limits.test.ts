// Connection hygiene (docs/api.md §8): real sockets against a real listening server. Silent,
// slow-header, slow-body and idle keep-alive connections are closed by their deadlines, the
// connection cap closes the excess on arrival, and a normal client is served throughout.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSuccess } from './support/envelope.js';
import { dataDirectoriesForFile, startServer, type TestServer } from './support/server.js';

const newDirectory = dataDirectoriesForFile();

/** A raw socket, when it closed (ms after it connected) and everything the server sent it. */
interface WatchedSocket {
  socket: Socket;
  received: () => string;
  /** Resolves with the milliseconds from connect to close. */
  closed: Promise<number>;
  isOpen: () => boolean;
}

async function openSocket(url: string): Promise<WatchedSocket> {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port) });
  let text = '';
  let open = true;
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    text += chunk;
  });
  // A reset from the server is a close too; the test only cares that the socket is gone.
  socket.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const started = performance.now();
  const closed = new Promise<number>((resolve) => {
    socket.once('close', () => {
      open = false;
      resolve(performance.now() - started);
    });
  });
  return { socket, received: () => text, closed, isOpen: () => open };
}

/** Sends `chunk` every `interval_ms` until the socket closes (a slow-loris client). */
function trickle(watched: WatchedSocket, chunk: () => string, interval_ms: number): void {
  const timer = setInterval(() => {
    if (!watched.isOpen()) clearInterval(timer);
    else watched.socket.write(chunk());
  }, interval_ms);
  void watched.closed.then(() => clearInterval(timer));
}

/** A normal client asking `GET /collections` every 100 ms until `until` settles; returns the statuses. */
async function serveMeanwhile(server: TestServer, until: Promise<unknown>): Promise<number[]> {
  const statuses: number[] = [];
  let done = false;
  void until.finally(() => {
    done = true;
  });
  while (!done) {
    const response = await server.request('GET', '/collections');
    expectSuccess(response);
    statuses.push(response.status);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return statuses;
}

function withinSeconds(promise: Promise<number>, seconds: number): Promise<number> {
  return Promise.race([
    promise,
    new Promise<number>((_resolve, reject) => setTimeout(() => reject(new Error(`socket still open after ${seconds} s`)), seconds * 1000)),
  ]);
}

describe('connection deadlines', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer(await newDirectory(), {
      service: { idle_timeout_seconds: 1, header_timeout_seconds: 1, request_timeout_seconds: 2, keep_alive_timeout_seconds: 1 },
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('connections — silent sockets are closed after the idle timeout while a normal client keeps being served', async () => {
    const silent = await Promise.all(Array.from({ length: 50 }, () => openSocket(server.url)));
    const allClosed = withinSeconds(Promise.all(silent.map((watched) => watched.closed)).then((times) => Math.max(...times)), 4);
    const statuses = await serveMeanwhile(server, allClosed);
    const slowest = await allClosed;
    expect(slowest).toBeGreaterThanOrEqual(900);
    // Served while the silent sockets were open; how many depends on the machine's load (one CI run
    // on a busy machine managed 4 in the second), so only that service went on is asserted.
    expect(statuses.length).toBeGreaterThanOrEqual(2);
    expect(statuses.every((status) => status === 200)).toBe(true);
  });

  it('connections — slow-header sockets that keep trickling bytes are closed by the header timeout', async () => {
    const slow = await Promise.all(Array.from({ length: 20 }, () => openSocket(server.url)));
    let header = 0;
    for (const watched of slow) {
      watched.socket.write('GET /collections HTTP/1.1\r\nHost: localhost\r\n');
      // Every 300 ms one more header line: never idle, never finished.
      trickle(watched, () => `X-Slow-${(header += 1)}: x\r\n`, 300);
    }
    const allClosed = withinSeconds(Promise.all(slow.map((watched) => watched.closed)).then((times) => Math.max(...times)), 5);
    const statuses = await serveMeanwhile(server, allClosed);
    const slowest = await allClosed;
    // Not the idle timeout (1 s of silence never happens): the header deadline, checked twice a second.
    expect(slowest).toBeGreaterThanOrEqual(900);
    expect(statuses.every((status) => status === 200)).toBe(true);
    // Told why before the close, in the error envelope with a status the contract allows
    // (docs/api.md §1.2 has no 408, so a request cut off by its deadline is a 400).
    for (const watched of slow) {
      expect(watched.received()).toMatch(/^HTTP\/1\.1 400 /);
      expect(watched.received()).toMatch(/"status":\{"error":"[^"]+"\}/);
    }
  });

  it('connections — a body trickled slower than the request timeout allows is cut off', async () => {
    const watched = await openSocket(server.url);
    watched.socket.write('PUT /collections/slow_body HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{');
    trickle(watched, () => ' ', 300);
    const closedAfter = await withinSeconds(watched.closed, 5);
    expect(closedAfter).toBeGreaterThanOrEqual(1900);
    expect(watched.received()).not.toMatch(/^HTTP\/1\.1 200/);
    expect((await server.request('GET', '/collections/slow_body/exists')).body.result).toEqual({ exists: false });
  });

  it('connections — an idle keep-alive connection is closed after the keep-alive timeout', async () => {
    const watched = await openSocket(server.url);
    watched.socket.write('GET /collections HTTP/1.1\r\nHost: localhost\r\n\r\n');
    const closedAfter = await withinSeconds(watched.closed, 4);
    expect(watched.received()).toMatch(/^HTTP\/1\.1 200/);
    expect(closedAfter).toBeGreaterThanOrEqual(900);
  });

  it('connections — a client that keeps sending requests keeps its connection', async () => {
    const watched = await openSocket(server.url);
    for (let request = 0; request < 6; request++) {
      watched.socket.write('GET /collections HTTP/1.1\r\nHost: localhost\r\n\r\n');
      await new Promise((resolve) => setTimeout(resolve, 400));
    }
    expect(watched.isOpen()).toBe(true);
    expect(watched.received().match(/HTTP\/1\.1 200/g)).toHaveLength(6);
    watched.socket.destroy();
  });
});

describe('connection cap', () => {
  let server: TestServer;
  const cap = 8;

  beforeAll(async () => {
    server = await startServer(await newDirectory(), {
      service: { max_connections: cap, idle_timeout_seconds: 1, header_timeout_seconds: 1, keep_alive_timeout_seconds: 1 },
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('connections — beyond max_connections a new connection is closed on arrival, and served again once the idle ones are shed', async () => {
    // The test's own HTTP client may hold a pooled connection from startServer; let it lapse.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const held = await Promise.all(Array.from({ length: cap }, () => openSocket(server.url)));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const extra = await openSocket(server.url);
    extra.socket.write('GET /collections HTTP/1.1\r\nHost: localhost\r\n\r\n');
    const extraClosedAfter = await withinSeconds(extra.closed, 1);
    expect(extraClosedAfter).toBeLessThan(500);
    expect(extra.received()).toBe('');
    await withinSeconds(Promise.all(held.map((watched) => watched.closed)).then((times) => Math.max(...times)), 4);
    expectSuccess(await server.request('GET', '/collections'));
  });
});

describe('connection settings', () => {
  it('config — the deadlines and the cap have bounded defaults', async () => {
    const { loadConfig } = await import('../src/config.js');
    const config = loadConfig();
    expect(config.service.idle_timeout_seconds).toBe(30);
    expect(config.service.header_timeout_seconds).toBe(10);
    expect(config.service.request_timeout_seconds).toBe(60);
    expect(config.service.keep_alive_timeout_seconds).toBe(5);
    expect(config.service.max_connections).toBe(1024);
    expect(() => loadConfig({ overrides: { service: { max_connections: 0 } } })).toThrow(/service\.max_connections/);
    expect(() => loadConfig({ overrides: { service: { header_timeout_seconds: 0 } } })).toThrow(/service\.header_timeout_seconds/);
  });
});
