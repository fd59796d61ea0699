// Waits for a collection to turn green (every vector linked): polls its status until a deadline,
// not a fixed number of times, so a slow shared CI machine only makes the wait longer.
import type { QdrantClient } from '@qdrant/js-client-rest';

/** The deadline: far beyond any build in the tests, short of vitest's own test timeout. */
export const greenDeadlineMs = 50_000;

export async function waitGreen(client: QdrantClient, name: string, deadlineMs = greenDeadlineMs): Promise<void> {
  const started = Date.now();
  for (;;) {
    if ((await client.getCollection(name)).status === 'green') return;
    if (Date.now() - started > deadlineMs) throw new Error(`${name} did not turn green within ${deadlineMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
