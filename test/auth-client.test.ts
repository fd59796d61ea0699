// The official Qdrant JS client authenticates with `apiKey` (sent as the `api-key` header).
import { QdrantClient } from '@qdrant/js-client-rest';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createAccessToken, createAuthApp, loginAdmin, type AuthTestApp } from './support/auth.js';

let context: AuthTestApp;
let url: string;
let readToken: string;
let writeToken: string;

beforeAll(async () => {
  context = await createAuthApp();
  const address = await context.app.listen({ host: '127.0.0.1', port: 0 });
  url = address;
  const jwt = await loginAdmin(context.app);
  readToken = (await createAccessToken(context.app, jwt, { name: 'client-read', permission: 'read' })).token;
  writeToken = (await createAccessToken(context.app, jwt, { name: 'client-write', permission: 'write' })).token;
  // The client warns about an API key over plain http; that is expected in a local test.
  vi.spyOn(console, 'warn').mockImplementation(() => undefined);
});

afterAll(async () => {
  vi.restoreAllMocks();
  await context?.dispose();
});

function client(apiKey?: string): QdrantClient {
  return new QdrantClient({ url, ...(apiKey === undefined ? {} : { apiKey }), checkCompatibility: false });
}

/** The HTTP status a client call failed with (the client throws on anything but 200/201). */
async function failureStatus(call: Promise<unknown>): Promise<number> {
  try {
    await call;
  } catch (error) {
    const status = (error as { status?: unknown }).status;
    if (typeof status === 'number') return status;
    const match = /Unexpected Response: (\d{3})/.exec((error as Error).message);
    if (match) return Number(match[1]);
    throw error;
  }
  throw new Error('the call succeeded');
}

describe('@qdrant/js-client-rest with apiKey', () => {
  it('reaches a public route without a key', async () => {
    const info = await client().versionInfo();
    expect(info.title).toBe('quiverdb - vector search engine');
  });

  it('without a key, or with a wrong one, gets 401', async () => {
    expect(await failureStatus(client().getAliases())).toBe(401);
    expect(await failureStatus(client('qv_wrong').getAliases())).toBe(401);
  });

  it('with a read token passes auth on a read route (the aliases group then answers 501)', async () => {
    expect(await failureStatus(client(readToken).getAliases())).toBe(501);
  });

  it('with a read token is refused 403 on a write route; a write token passes', async () => {
    expect(await failureStatus(client(readToken).createSnapshot('books'))).toBe(403);
    expect(await failureStatus(client(writeToken).createSnapshot('books'))).toBe(501);
  });
});
