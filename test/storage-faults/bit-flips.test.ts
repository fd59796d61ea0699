// Bit flips in the files of a stopped server, for real (docs/durability.md): each is refused
// clearly or served intact — never served wrong. A flipped table block refuses the start; a
// flipped checkpoint is rebuilt from the store and answers exactly; a flipped log record is
// reported as lost, never dropped in silence. And what is not damage is not called damage: a
// table file left by an interrupted compaction.
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { call, logRecords, runToExit, scratchDirectories, startReady } from './fault-support.js';

const directory = scratchDirectories();

const dimension = 32;
/** Incompressible values, so the store keeps its blocks uncompressed (no decompressor to notice a flip). */
function vectorOf(id: number): number[] {
  return Array.from({ length: dimension }, (_, axis) => Math.sin(id * 7919 + axis * 104_729));
}

async function flipByte(path: string, position: number): Promise<void> {
  const bytes = await readFile(path);
  bytes[position] = bytes[position]! ^ 0x10;
  await writeFile(path, bytes);
}

async function filled(data: string, count: number): Promise<void> {
  const server = await startReady(data);
  await call(server.url, 'PUT', '/collections/c', { vectors: { size: dimension, distance: 'Euclid' } });
  for (let from = 1; from <= count; from += 100) {
    const points = Array.from({ length: Math.min(100, count - from + 1) }, (_, position) => ({ id: from + position, vector: vectorOf(from + position) }));
    expect((await call(server.url, 'PUT', '/collections/c/points?wait=true', { points })).status).toBe(200);
  }
  await server.kill('SIGTERM');
}

/** The slow reference: the nearest ids by Euclidean distance over every stored vector. */
function nearest(query: number[], count: number, limit: number): number[] {
  const distance = (id: number) => vectorOf(id).reduce((sum, value, axis) => sum + (value - query[axis]!) ** 2, 0);
  return Array.from({ length: count }, (_, position) => position + 1)
    .sort((left, right) => distance(left) - distance(right))
    .slice(0, limit);
}

describe('storage faults — bit flips', { timeout: 90_000 }, () => {
  it('bit flip — a flipped byte in a store table file refuses the start, naming the file; the intact store starts', async () => {
    const data = await directory('table');
    await filled(data, 400);
    // The next start turns the log into a table file; it starts (all blocks check out).
    let server = await startReady(data);
    await server.kill('SIGTERM');
    const tables = (await readdir(join(data, 'db'))).filter((name) => name.endsWith('.ldb'));
    expect(tables.length).toBeGreaterThan(0);
    let largest = tables[0]!;
    for (const name of tables) if ((await stat(join(data, 'db', name))).size > (await stat(join(data, 'db', largest))).size) largest = name;
    await flipByte(join(data, 'db', largest), Math.floor((await stat(join(data, 'db', largest))).size / 3));

    const refused = await runToExit(data);
    expect(refused.code).not.toBe(0);
    expect(refused.output).toContain(`${largest} is damaged`);
    expect(refused.output).toContain('fails its checksum');
    // Flipped back, it serves every vector intact.
    await flipByte(join(data, 'db', largest), Math.floor((await stat(join(data, 'db', largest))).size / 3));
    server = await startReady(data);
    try {
      expect(logRecords(server.logLines).some((record) => record.msg === "the store's table files pass their checksums")).toBe(true);
      const scroll = await call(server.url, 'POST', '/collections/c/points/scroll', { limit: 1000, with_vector: true });
      const points = (scroll.body.result as { points: { id: number; vector: number[] }[] }).points;
      expect(points).toHaveLength(400);
      for (const point of points) expect(point.vector.map((value) => Math.fround(value))).toEqual(vectorOf(point.id).map((value) => Math.fround(value)));
    } finally {
      await server.kill('SIGTERM');
    }
  });

  it('interrupted compaction — a table file the manifest does not hold (what a stop during a compaction leaves) is not damage: the start goes on, LevelDB removes it, every point answers', async () => {
    const data = await directory('compaction');
    await filled(data, 300);
    let server = await startReady(data);
    await server.kill('SIGTERM');
    // A half-written compaction output: LevelDB's next file number, no footer, never in the manifest.
    const leftOver = '999999.ldb';
    await writeFile(join(data, 'db', leftOver), Buffer.alloc(70_000, 0x5a));
    server = await startReady(data);
    try {
      const notice = logRecords(server.logLines).find((record) => Array.isArray(record.files) && (record.files as string[]).includes(leftOver));
      expect(notice?.msg).toMatch(/manifest does not hold/);
      expect(await readdir(join(data, 'db'))).not.toContain(leftOver);
      const scroll = await call(server.url, 'POST', '/collections/c/points/scroll', { limit: 1000 });
      expect((scroll.body.result as { points: unknown[] }).points).toHaveLength(300);
    } finally {
      await server.kill('SIGTERM');
    }
  });

  it('bit flip — a flipped checkpoint is refused by its checksum and the index rebuilt from the store answers as the reference does', async () => {
    const data = await directory('checkpoint');
    await filled(data, 300);
    const collectionDirectory = join(data, 'collections', '1');
    const checkpoint = (await readdir(collectionDirectory)).find((name) => name.startsWith('vector-'))!;
    const size = (await stat(join(collectionDirectory, checkpoint))).size;
    await flipByte(join(collectionDirectory, checkpoint), Math.floor(size / 2));
    const server = await startReady(data);
    try {
      const rebuilt = logRecords(server.logLines).find((record) => String(record.msg).startsWith('no usable checkpoint'));
      expect(String(rebuilt?.reason)).toContain('fails its checksum');
      // The stored CRC was read from the file (a real mismatch, not a missing or zeroed trailer);
      // a CRC may well start with a 0 digit, so only the all-zero one is ruled out.
      expect(String(rebuilt?.reason)).not.toContain('fails its checksum (stored 00000000,');
      for (const probe of [3, 150, 299]) {
        const query = vectorOf(probe).map((value) => value + 0.01);
        const search = await call(server.url, 'POST', '/collections/c/points/search', { vector: query, limit: 5, params: { exact: true } });
        expect((search.body.result as { id: number }[]).map((point) => point.id)).toEqual(nearest(query, 300, 5));
      }
    } finally {
      await server.kill('SIGTERM');
    }
  });

  it('bit flip — a flipped record in the middle of the store log is reported as lost at error level, never dropped in silence', async () => {
    const data = await directory('log');
    let server = await startReady(data);
    await call(server.url, 'PUT', '/collections/c', { vectors: { size: dimension, distance: 'Euclid' } });
    for (let id = 1; id <= 40; id += 1) await call(server.url, 'PUT', '/collections/c/points?wait=true', { points: [{ id, vector: vectorOf(id) }] });
    await server.kill('SIGKILL');
    const log = (await readdir(join(data, 'db'))).filter((name) => name.endsWith('.log')).sort((left, right) => Number.parseInt(right, 10) - Number.parseInt(left, 10))[0]!;
    const size = (await stat(join(data, 'db', log))).size;
    await flipByte(join(data, 'db', log), Math.floor(size / 2));
    server = await startReady(data);
    try {
      const reported = logRecords(server.logLines).find((record) => record.level === 50 && String(record.msg).includes('torn record'));
      expect(reported).toBeDefined();
      expect(String(reported!.problem)).toContain('fails its checksum');
      const storage = (await call(server.url, 'GET', '/')).body.storage as { state: string; torn_log_tail: { lost_operations: { collection: number; operationIds: number[] }[] } };
      expect(storage.state).toBe('recovered_with_loss');
      expect(storage.torn_log_tail.lost_operations[0]!.collection).toBe(1);
    } finally {
      await server.kill('SIGTERM');
    }
  });
});
