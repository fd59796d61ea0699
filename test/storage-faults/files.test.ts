// The files beside the store (docs/durability.md): temporary files a killed run left behind, a
// damaged JWT secret file, and a second server on the same directory. Real child servers.
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { call, logRecords, runToExit, scratchDirectories, startReady } from './fault-support.js';

const directory = scratchDirectories();

const adminEnvironment = {
  QUIVER__AUTH__ENABLED: 'true',
  QUIVER__AUTH__ADMIN_USERNAME: 'operator',
  QUIVER__AUTH__ADMIN_PASSWORD: 'a long enough password for the test',
};

describe('storage faults — files beside the store', { timeout: 90_000 }, () => {
  it('leftover temporary files — checkpoint and secret temporaries of a killed run are removed at start, with a count and size', async () => {
    const data = await directory('leftover');
    let server = await startReady(data);
    await call(server.url, 'PUT', '/collections/kept', { vectors: { size: 2, distance: 'Dot' } });
    await call(server.url, 'PUT', '/collections/kept/points?wait=true', { points: [{ id: 1, vector: [1, 2] }] });
    await server.kill('SIGTERM');
    const collectionDirectory = join(data, 'collections', '1');
    // The clean stop's point hand-off file is consumed by the next start (docs/architecture.md §21).
    const own = (await readdir(collectionDirectory)).filter((name) => name !== 'points.qvp').sort();
    // What a kill during a checkpoint write and during a secret write leaves.
    await writeFile(join(collectionDirectory, `.${own[0]}.tmp-4242`), Buffer.alloc(1000, 7));
    await writeFile(join(collectionDirectory, '.sparse-00.qsi.tmp-77'), Buffer.alloc(500, 7));
    await writeFile(join(data, '.quiver-tmp-jwt_secret-0a0b0c'), 'half a secr');
    // ... and during a multivector sub-slot map write (atomic-file.ts's temporary, in the collection).
    await writeFile(join(collectionDirectory, '.quiver-tmp-vector-00.qvm-0d0e0f'), Buffer.alloc(200, 7));

    server = await startReady(data);
    try {
      expect((await readdir(collectionDirectory)).sort()).toEqual(own);
      expect((await readdir(data)).some((name) => name.startsWith('.quiver-tmp-'))).toBe(false);
      const removed = logRecords(server.logLines).find((record) => record.msg === 'removed temporary files left by an interrupted run');
      expect(removed).toMatchObject({ files: 4, bytes: 1711 });
      expect((await call(server.url, 'POST', '/collections/kept/points/scroll', { limit: 10 })).status).toBe(200);
    } finally {
      await server.kill('SIGTERM');
    }
  });

  it('JWT secret — an empty file with no admin user is regenerated (no JWT can exist), with a warning', async () => {
    const data = await directory('secret-free');
    let server = await startReady(data);
    await server.kill('SIGTERM');
    const path = join(data, 'jwt_secret');
    expect((await readFile(path, 'utf8')).trim().length).toBeGreaterThanOrEqual(32);
    await writeFile(path, '');
    server = await startReady(data);
    try {
      expect((await readFile(path, 'utf8')).trim().length).toBeGreaterThanOrEqual(32);
      expect((await stat(path)).mode & 0o777).toBe(0o600);
      expect(server.logLines.some((line) => line.includes('no JWT was signed with it: generating a new secret'))).toBe(true);
    } finally {
      await server.kill('SIGTERM');
    }
  });

  it('JWT secret — a torn file while an admin exists refuses the start, naming the file and what to do', async () => {
    const data = await directory('secret-admin');
    const server = await startReady(data, adminEnvironment);
    await server.kill('SIGTERM');
    const path = join(data, 'jwt_secret');
    const secret = await readFile(path, 'utf8');
    await writeFile(path, secret.slice(0, 10));
    const refused = await runToExit(data, adminEnvironment);
    expect(refused.code).not.toBe(0);
    expect(refused.output).toContain(`${path} holds a damaged JWT secret`);
    expect(refused.output).toContain('Restore the file from a backup, or delete it');
    // Untouched: the operator decides.
    expect(await readFile(path, 'utf8')).toBe(secret.slice(0, 10));
  });

  it('second server — a second server on the same directory is refused while the first serves on', async () => {
    const data = await directory('second');
    const first = await startReady(data);
    try {
      await call(first.url, 'PUT', '/collections/kept', { vectors: { size: 2, distance: 'Dot' } });
      const second = await runToExit(data);
      expect(second.code).not.toBe(0);
      expect(second.output).toContain('could not load the data directory; refusing to serve');
      expect((await call(first.url, 'GET', '/collections/kept')).status).toBe(200);
    } finally {
      await first.kill('SIGTERM');
    }
  });
});
