// Waits for a collection to turn green (every vector linked): polls its status until a deadline,
// not a fixed number of times, so a slow shared CI machine only makes the wait longer.
import type { QdrantClient } from '@qdrant/js-client-rest';
import { call } from './http-call.js';

/** The deadline: far beyond any build in the tests, short of vitest's own test timeout. */
export const greenDeadlineMs = 50_000;

/** `server`: the official client of an in-process server, or the base URL of a child server. */
export async function waitGreen(server: QdrantClient | string, name: string, deadlineMs = greenDeadlineMs): Promise<void> {
  const status = async () =>
    typeof server === 'string' ? ((await call(server, 'GET', `/collections/${name}`)).body.result?.status as string | undefined) : (await server.getCollection(name)).status;
  const started = Date.now();
  for (;;) {
    if ((await status()) === 'green') return;
    if (Date.now() - started > deadlineMs) throw new Error(`${name} did not turn green within ${deadlineMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
