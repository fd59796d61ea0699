// A torn tail of the store's log, for real (docs/durability.md): the last record of LevelDB's
// log file of a killed server is cut short; the next start says so at error level, with the
// operation ids lost, and GET / reports it — never a silent drop.
import { readdir, stat, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { call, logRecords, newDirectory, removeDirectory, startReady } from './fault-support.js';

const directories: string[] = [];
afterAll(async () => {
  for (const created of directories) await removeDirectory(created);
});

async function newestLog(data: string): Promise<string> {
  const logs = (await readdir(join(data, 'db'))).filter((name) => /^\d+\.log$/.test(name)).sort((left, right) => Number.parseInt(right, 10) - Number.parseInt(left, 10));
  return join(data, 'db', logs[0]!);
}

describe('storage faults — torn log tail', { timeout: 90_000 }, () => {
  it('torn log — the last acknowledged write cut short in the log is reported at error level with its operation id and in GET /', async () => {
    const data = await newDirectory('torn');
    directories.push(data);
    let server = await startReady(data);
    await call(server.url, 'PUT', '/collections/c', { vectors: { size: 4, distance: 'Dot' } });
    for (let id = 1; id <= 10; id += 1) {
      const answer = await call(server.url, 'PUT', '/collections/c/points?wait=true', { points: [{ id, vector: [id, 1, 2, 3] }] });
      expect((answer.body.result as { operation_id: number }).operation_id).toBe(id);
    }
    await server.kill('SIGKILL');
    const log = await newestLog(data);
    await truncate(log, (await stat(log)).size - 7);

    server = await startReady(data);
    try {
      const torn = logRecords(server.logLines).find((record) => record.level === 50 && String(record.msg).startsWith("the store's log ended in a torn record"));
      expect(torn).toBeDefined();
      expect(torn!.lost_operations).toEqual([{ collection: 1, operationIds: [10] }]);
      expect(String(torn!.msg)).toContain('collection number 1 operation 10');
      const storage = (await call(server.url, 'GET', '/')).body.storage as { state: string; torn_log_tail: { lost_operations: unknown } };
      expect(storage.state).toBe('recovered_with_loss');
      expect(storage.torn_log_tail.lost_operations).toEqual([{ collection: 1, operationIds: [10] }]);
      // And in the metrics an alert reads (docs/api.md §13.2).
      const metrics = await fetch(`${server.url}/metrics`).then((response) => response.text());
      expect(metrics).toMatch(/^quiverdb_storage_torn_log_lost_operations 1$/m);
      expect(metrics).toMatch(/^quiverdb_storage_state\{state="recovered_with_loss"\} 1$/m);
      // The store's truth: point 10 is gone, 1..9 are served.
      const scroll = await call(server.url, 'POST', '/collections/c/points/scroll', { limit: 100 });
      expect((scroll.body.result as { points: { id: number }[] }).points.map((point) => point.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
      // Writes go on from the store's last operation.
      const next = await call(server.url, 'PUT', '/collections/c/points?wait=true', { points: [{ id: 11, vector: [1, 1, 1, 1] }] });
      expect(next.status).toBe(200);
    } finally {
      await server.kill('SIGTERM');
    }
  });

  it('torn log — an intact log after a kill reports nothing', async () => {
    const data = await newDirectory('intact');
    directories.push(data);
    let server = await startReady(data);
    await call(server.url, 'PUT', '/collections/c', { vectors: { size: 4, distance: 'Dot' } });
    await call(server.url, 'PUT', '/collections/c/points?wait=true', { points: [{ id: 1, vector: [1, 1, 2, 3] }] });
    await server.kill('SIGKILL');
    server = await startReady(data);
    try {
      expect(server.logLines.some((line) => line.includes('torn record'))).toBe(false);
      expect(((await call(server.url, 'GET', '/')).body.storage as { state: string }).state).toBe('ok');
      const metrics = await fetch(`${server.url}/metrics`).then((response) => response.text());
      expect(metrics).toMatch(/^quiverdb_storage_torn_log_lost_operations 0$/m);
      expect(metrics).toMatch(/^quiverdb_storage_state\{state="ok"\} 1$/m);
    } finally {
      await server.kill('SIGTERM');
    }
  });
});
